import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Console, Effect } from "effect"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { CliFailure, UsageError } from "./AppRuntime.js"
import { MIN_ORDERS, planOrders } from "./demo/OrderPlan.js"
import { shopifyAdmin } from "./demo/SimulatorAdmin.js"
import { HEADER_PAIR_SETS } from "../simulator/pod/auth.js"
import { runPodSimulatorStandalone } from "../simulator/pod/index.js"
import { runEtsySimulatorStandalone } from "../simulator/etsy/index.js"
import { runJsonFeedSimulatorStandalone } from "../simulator/jsonfeed/index.js"
import { runShopifySimulatorStandalone } from "../simulator/shopify/index.js"
import { runWooCommerceSimulatorStandalone } from "../simulator/woocommerce/index.js"

// The example config's defaults point at these ports, so `simulate` and the example work together as they are.
const port = (name: string, description: string, fallback: number) =>
  Options.integer(name).pipe(
    Options.withDescription(`${description} (default ${fallback}; 0: any free port)`),
    Options.withDefault(fallback)
  )

const hostOption = Options.text("host").pipe(
  Options.withDescription("address to listen on (default 127.0.0.1)"),
  Options.withDefault("127.0.0.1")
)

/**
 * Starts a simulator for the life of the command scope. A port that cannot be taken is said with
 * the port, the simulator, and the option that moves it.
 */
const serve = <R extends { readonly url: string; readonly close: () => Promise<void> }>(
  what: { readonly name: string; readonly flag: string; readonly host: string; readonly port: number },
  start: () => Promise<R>
) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: start,
      catch: (error) => {
        const code = (error as NodeJS.ErrnoException).code
        const why = code === "EADDRINUSE"
          ? "the port is in use (another podsync simulate, or a demo, still running?)"
          : code === "EACCES" || code === "EADDRNOTAVAIL"
          ? `this address cannot be listened on (${code})`
          : (error as Error).message
        return new CliFailure({
          message: `cannot start the ${what.name} on ${what.host}:${what.port}: ${why}; stop what listens there, ` +
            `or pass ${what.flag} N (0: any free port)`
        })
      }
    }),
    (running) => Effect.promise(() => running.close())
  )

/** What to do next, with the addresses the simulators listen on (pure). */
export const simulateHints = (urls: { readonly pod: string; readonly shopify: string }, seeded: number): string =>
  [
    "",
    seeded > 0
      ? `Put ${seeded} paid orders in the Shopify simulator (a few with SKUs the example mapping does not cover: podsync holds those, saying why).`
      : "No orders yet: start with --orders N to have N paid Shopify orders put in, or put one in yourself:",
    ...(seeded > 0 ? [] : [
      `  curl -X POST ${urls.shopify}/__sim/orders -H 'content-type: application/json' \\`,
      `    -d '{"financialStatus":"PAID","lineItems":[{"sku":"UTS01-FOREST-S","title":"Tee","quantity":1,"price":"24.00"}]}'`
    ]),
    "Run podsync against them, in another terminal:",
    "  npx podsync start --config config/simulators.yaml",
    "Move the drafts along at the POD service (checkout, then ship), as its team would:",
    `  curl -X POST ${urls.pod}/__sim/checkout-all -H 'content-type: application/json' -d '{"paid":true}'`,
    `  curl -X POST ${urls.pod}/__sim/ship-all`,
    "Ship some orders in two boxes (the second at the next ship-all), as the service sometimes does:",
    `  curl -X POST ${urls.pod}/__sim/faults -H 'content-type: application/json' -d '{"kind":"splitPackages","probability":0.2}'`,
    "Then npx podsync status --config config/simulators.yaml shows where everything is. Ctrl-C stops the simulators."
  ].join("\n")

/**
 * `podsync simulate`: the local simulators of the services podsync talks to,
 * one line each (`<name> listening on http://…`), then how to put orders in
 * and move them along (with `--orders N`, N paid orders are put in), until Ctrl-C.
 */
export const simulateCommand = Command.make(
  "simulate",
  {
    host: hostOption,
    podPort: port("pod-port", "port of the POD API simulator", 9100),
    shopifyPort: port("shopify-port", "port of the Shopify Admin API simulator", 9101),
    woocommercePort: port("woocommerce-port", "port of the WooCommerce REST API simulator", 9102),
    etsyPort: port("etsy-port", "port of the Etsy Open API simulator", 9103),
    jsonfeedPort: port("jsonfeed-port", "port of the JSON feed reference storefront", 9104),
    noRateLimit: Options.boolean("no-rate-limit").pipe(Options.withDescription("lift the POD simulator's 100 per 10 s limit")),
    orders: Options.integer("orders").pipe(
      Options.withPseudoName("N"),
      Options.withDescription(
        `put this many paid orders in the Shopify simulator at start: 0, or at least ${MIN_ORDERS} (a mix of mapped and unmapped items; default 0)`
      ),
      Options.withDefault(0)
    ),
    podAuthHeaders: Options.choice("pod-auth-headers", ["both", "gearment", "x-api"] as const).pipe(
      Options.withDescription(
        "the v3 credential headers the POD simulator accepts: both published pairs, X-Gearment-Client-Key/-Secret only, or X-API-Key/-Secret only (default both)"
      ),
      Options.withDefault("both" as const)
    )
  },
  ({ etsyPort, host, jsonfeedPort, noRateLimit, orders, podAuthHeaders, podPort, shopifyPort, woocommercePort }) =>
    Effect.scoped(Effect.gen(function*() {
      if (orders !== 0 && orders < MIN_ORDERS) {
        return yield* new UsageError({
          message: `--orders takes 0, or ${MIN_ORDERS} or more (a mix of mapped and unmapped items); got ${orders}`
        })
      }
      const pod = yield* serve({ name: "POD API simulator", flag: "--pod-port", host, port: podPort }, () =>
        runPodSimulatorStandalone({
          host,
          port: podPort,
          authHeaders: HEADER_PAIR_SETS[podAuthHeaders],
          ...(noRateLimit ? { rateLimit: false as const } : {})
        }))
      const shopify = yield* serve(
        { name: "Shopify simulator", flag: "--shopify-port", host, port: shopifyPort },
        () => runShopifySimulatorStandalone({ host, port: shopifyPort })
      )
      yield* serve(
        { name: "WooCommerce simulator", flag: "--woocommerce-port", host, port: woocommercePort },
        () => runWooCommerceSimulatorStandalone({ host, port: woocommercePort })
      )
      yield* serve(
        { name: "Etsy simulator", flag: "--etsy-port", host, port: etsyPort },
        () => runEtsySimulatorStandalone({ host, port: etsyPort })
      )
      yield* serve(
        { name: "JSON feed storefront", flag: "--jsonfeed-port", host, port: jsonfeedPort },
        () => runJsonFeedSimulatorStandalone({ host, port: jsonfeedPort })
      )
      const admin = shopifyAdmin(shopify.url)
      // The demo's orders (its mapped tees, a few unmapped items), all left for podsync to find.
      if (orders > 0) yield* Effect.forEach(planOrders(orders), (planned) => admin.createOrder(planned.spec), { discard: true })
      yield* Console.log(simulateHints({ pod: pod.url, shopify: shopify.url }, orders))
      return yield* Effect.never
    })).pipe(Effect.provide(NodeHttpClient.layerUndici))
).pipe(Command.withDescription("Run the local simulators (POD API, stores)"))
