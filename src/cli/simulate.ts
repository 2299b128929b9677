import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { runPodSimulatorStandalone } from "../simulator/pod/index.js"
import { runEtsySimulatorStandalone } from "../simulator/etsy/index.js"
import { runJsonFeedSimulatorStandalone } from "../simulator/jsonfeed/index.js"
import { runShopifySimulatorStandalone } from "../simulator/shopify/index.js"
import { runWooCommerceSimulatorStandalone } from "../simulator/woocommerce/index.js"

const port = (name: string, description: string) =>
  Options.integer(name).pipe(Options.withDescription(description), Options.optional)

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
    podPort: port("pod-port", "port of the POD API simulator (default: any free port)"),
    shopifyPort: port("shopify-port", "port of the Shopify Admin API simulator (default: any free port)"),
    woocommercePort: port("woocommerce-port", "port of the WooCommerce REST API simulator (default: any free port)"),
    etsyPort: port("etsy-port", "port of the Etsy Open API simulator (default: any free port)"),
    jsonfeedPort: port("jsonfeed-port", "port of the JSON feed reference storefront (default: any free port)"),
    noRateLimit: Options.boolean("no-rate-limit").pipe(Options.withDescription("lift the POD simulator's 100 per 10 s limit"))
  },
  ({ etsyPort, host, jsonfeedPort, noRateLimit, podPort, shopifyPort, woocommercePort }) =>
    Effect.scoped(Effect.gen(function*() {
      yield* serve(() =>
        runPodSimulatorStandalone({
          host,
          port: Option.getOrElse(podPort, () => 0),
          ...(noRateLimit ? { rateLimit: false as const } : {})
        })
      )
      yield* serve(() => runShopifySimulatorStandalone({ host, port: Option.getOrElse(shopifyPort, () => 0) }))
      yield* serve(() => runWooCommerceSimulatorStandalone({ host, port: Option.getOrElse(woocommercePort, () => 0) }))
      yield* serve(() => runEtsySimulatorStandalone({ host, port: Option.getOrElse(etsyPort, () => 0) }))
      yield* serve(() => runJsonFeedSimulatorStandalone({ host, port: Option.getOrElse(jsonfeedPort, () => 0) }))
      return yield* Effect.never
    }))
).pipe(Command.withDescription("Run the local simulators (POD API, stores)"))
