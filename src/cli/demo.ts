import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { CliFailure } from "./AppRuntime.js"
import { MIN_ORDERS } from "./demo/OrderPlan.js"
import { runDemo } from "./demo/RunDemo.js"

const ordersOption = Options.integer("orders").pipe(
  Options.withPseudoName("N"),
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

const consoleOption = Options.boolean("console").pipe(
  Options.withDescription(
    "after the summary, keep the daemon and the simulators running with the web console served, until Ctrl-C " +
      "(default: when run in a terminal)"
  )
)

const noConsoleOption = Options.boolean("no-console").pipe(
  Options.withDescription("end with the summary, even in a terminal")
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
  {
    orders: ordersOption,
    speed: speedOption,
    allPlatforms: allPlatformsOption,
    keepData: keepDataOption,
    dataDir: dataDirOption,
    console: consoleOption,
    noConsole: noConsoleOption
  },
  ({ allPlatforms, console, dataDir, keepData, noConsole, orders, speed }) =>
    runDemo({
      orders,
      speed,
      keepData,
      // In a terminal a person is watching: the console stays up for them. Piped (CI), the demo ends.
      ...(console || (!noConsole && process.stdout.isTTY === true && process.stdin.isTTY === true)
        ? { serveConsoleUntil: Effect.never }
        : {}),
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
