import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
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

const hostOption = Options.text("host").pipe(Options.withDescription("address to listen on"), Options.withDefault("127.0.0.1"))

/** Starts a simulator for the life of the command scope. */
const serve = (start: () => Promise<{ readonly close: () => Promise<void> }>) =>
  Effect.acquireRelease(Effect.promise(start), (running) => Effect.promise(() => running.close()))

/**
 * `podsync simulate`: the local simulators of the services podsync talks to,
 * one line each (`<name> listening on http://…`), until Ctrl-C.
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
    podAuthHeaders: Options.choice("pod-auth-headers", ["both", "gearment", "x-api"] as const).pipe(
      Options.withDescription(
        "the v3 credential headers the POD simulator accepts: both published pairs, X-Gearment-Client-Key/-Secret only, or X-API-Key/-Secret only"
      ),
      Options.withDefault("both" as const)
    )
  },
  ({ etsyPort, host, jsonfeedPort, noRateLimit, podAuthHeaders, podPort, shopifyPort, woocommercePort }) =>
    Effect.scoped(Effect.gen(function*() {
      yield* serve(() =>
        runPodSimulatorStandalone({
          host,
          port: podPort,
          authHeaders: HEADER_PAIR_SETS[podAuthHeaders],
          ...(noRateLimit ? { rateLimit: false as const } : {})
        })
      )
      yield* serve(() => runShopifySimulatorStandalone({ host, port: shopifyPort }))
      yield* serve(() => runWooCommerceSimulatorStandalone({ host, port: woocommercePort }))
      yield* serve(() => runEtsySimulatorStandalone({ host, port: etsyPort }))
      yield* serve(() => runJsonFeedSimulatorStandalone({ host, port: jsonfeedPort }))
      return yield* Effect.never
    }))
).pipe(Command.withDescription("Run the local simulators (POD API, stores)"))
