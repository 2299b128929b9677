import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { CliFailure } from "./AppRuntime.js"
import { MIN_ORDERS } from "./demo/OrderPlan.js"
import { runDemo } from "./demo/RunDemo.js"

const ordersOption = Options.integer("orders").pipe(
  Options.withDescription(
    `how many shop orders to generate (at least ${MIN_ORDERS}; 2–3 of them with an unmapped item, one cancelled; default 24)`
  ),
  Options.withDefault(24)
)

const speedOption = Options.choice("speed", ["fast", "normal"]).pipe(
  Options.withDescription("order arrival pace: normal, about one order a second; fast, ten a second (default normal)"),
  Options.withDefault("normal" as const)
)

const keepDataOption = Options.boolean("keep-data").pipe(
  Options.withDescription("do not wipe the data folder at start (it must not hold an earlier demo's orders: the simulators start afresh)")
)

const allPlatformsOption = Options.boolean("all-platforms").pipe(
  Options.withDescription(
    "one store of each platform (Shopify, WooCommerce, Etsy, JSON feed) run together by one daemon, each against its own simulator " +
      "(config/demo-all.yaml); the orders are spread over the stores in turn"
  )
)

const dataDirOption = Options.directory("data-dir").pipe(
  Options.withDescription("the demo's data folder (default: demo.yaml's ./data/demo); wiped at start unless --keep-data"),
  Options.optional
)

/**
 * `podsync demo` (and `npm start`): the simulators, the daemon on the embedded
 * database and a stream of orders, with a live view and a summary at the end;
 * a Shopify store, or with `--all-platforms` one store of each platform.
 * Exits 0 when every order ended where expected or on Ctrl-C; 1 when some did
 * not within the time allowed.
 */
export const demoCommand = Command.make(
  "demo",
  { orders: ordersOption, speed: speedOption, allPlatforms: allPlatformsOption, keepData: keepDataOption, dataDir: dataDirOption },
  ({ allPlatforms, dataDir, keepData, orders, speed }) =>
    runDemo({
      orders,
      speed,
      keepData,
      setup: allPlatforms ? "all-platforms" : "shopify",
      ...Option.match(dataDir, { onNone: () => ({}), onSome: (dir) => ({ dataDir: dir }) })
    }).pipe(
      Effect.flatMap((outcome) =>
        outcome.ending === "timed_out"
          ? Effect.fail(
            new CliFailure({
              message: `the demo did not finish: ${outcome.progress.outstanding.length} orders are not where it expects them (listed above)`
            })
          )
          : Effect.void
      )
    )
).pipe(Command.withDescription("Run the demo: local simulators, the daemon on the embedded database, generated orders, a live view"))
