import { CliConfig, Command, HelpDoc, Usage, ValidationError } from "@effect/cli"
import { descriptionOf, renderHelp, renderOverview } from "./cli/Help.js"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Exit } from "effect"
import { checkCommand } from "./cli/check.js"
import { demoCommand } from "./cli/demo.js"
import { explainCommand } from "./cli/explain.js"
import { pullCommand, reconcileCommand } from "./cli/pull.js"
import { reportCommand } from "./cli/report.js"
import { mappingsCommand } from "./cli/mappings.js"
import { migrateCommand } from "./cli/migrate.js"
import { simulateCommand } from "./cli/simulate.js"
import { startCommand } from "./cli/start.js"
import { statusCommand } from "./cli/status.js"

const podsync = Command.make("podsync").pipe(
  Command.withDescription("Connects print-on-demand stores to the POD service's API v3"),
  Command.withSubcommands([
    startCommand,
    migrateCommand,
    checkCommand,
    statusCommand,
    simulateCommand,
    mappingsCommand,
    pullCommand,
    reconcileCommand,
    explainCommand,
    reportCommand,
    demoCommand
  ])
)

/** Each command's help, as `podsync <command> --help` shows it. */
const helps: Record<string, HelpDoc.HelpDoc> = {
  start: Command.getHelp(startCommand, CliConfig.defaultConfig),
  migrate: Command.getHelp(migrateCommand, CliConfig.defaultConfig),
  check: Command.getHelp(checkCommand, CliConfig.defaultConfig),
  status: Command.getHelp(statusCommand, CliConfig.defaultConfig),
  simulate: Command.getHelp(simulateCommand, CliConfig.defaultConfig),
  mappings: Command.getHelp(mappingsCommand, CliConfig.defaultConfig),
  pull: Command.getHelp(pullCommand, CliConfig.defaultConfig),
  reconcile: Command.getHelp(reconcileCommand, CliConfig.defaultConfig),
  explain: Command.getHelp(explainCommand, CliConfig.defaultConfig),
  report: Command.getHelp(reportCommand, CliConfig.defaultConfig),
  demo: Command.getHelp(demoCommand, CliConfig.defaultConfig)
}

/** Each command's usage line, as its --help shows it. */
const usages: Record<string, Usage.Usage> = {
  start: Command.getUsage(startCommand),
  migrate: Command.getUsage(migrateCommand),
  check: Command.getUsage(checkCommand),
  status: Command.getUsage(statusCommand),
  simulate: Command.getUsage(simulateCommand),
  mappings: Command.getUsage(mappingsCommand),
  pull: Command.getUsage(pullCommand),
  reconcile: Command.getUsage(reconcileCommand),
  explain: Command.getUsage(explainCommand),
  report: Command.getUsage(reportCommand),
  demo: Command.getUsage(demoCommand)
}

const VERSION = "0.1.0"

const cli = Command.run(podsync, { name: "podsync", version: VERSION })

const LOG_LEVELS = ["trace", "debug", "info", "warning", "error", "none"]

/** A mistake in how podsync was called: said with the usage, exit 2. */
let usageMistake: string | undefined

/**
 * `--log-level LEVEL` anywhere on the line (before or after the command): it is taken out and set
 * as $PODSYNC_LOG_LEVEL, which every command's logger reads over the config's level.
 */
const takeLogLevel = (argv: ReadonlyArray<string>): Array<string> => {
  const rest: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ""
    const inline = arg.startsWith("--log-level=") ? arg.slice("--log-level=".length) : undefined
    if (arg !== "--log-level" && inline === undefined) {
      rest.push(arg)
      continue
    }
    const level = inline ?? argv[++i]
    if (level === undefined || !LOG_LEVELS.includes(level)) {
      usageMistake = `--log-level expects one of ${LOG_LEVELS.join(", ")}; got ${level === undefined ? "nothing" : `"${level}"`}`
    } else process.env.PODSYNC_LOG_LEVEL = level
  }
  return rest
}

/** The usage of the command named on the line, else the list of commands. */
const usageOf = (argv: ReadonlyArray<string>) => {
  const name = argv.slice(2).find((arg) => Object.hasOwn(usages, arg))
  const usage = name === undefined ? undefined : usages[name]
  if (usage === undefined) {
    return `usage: podsync <command> [options], a command of: ${Object.keys(usages).join(", ")}\n(podsync --help for more)`
  }
  return `usage: podsync ${HelpDoc.toAnsiText(Usage.getHelp(usage)).trim()}\n(podsync ${name} --help for more)`
}

/** Says a usage mistake (`said`: the mistake, unless @effect/cli has printed it already) with the usage; exit 2. */
const usageFailure = (said: string | undefined, argv: ReadonlyArray<string>) =>
  Effect.sync(() => {
    usageMistake = said ?? "usage"
  }).pipe(Effect.zipRight(Console.error(`${said === undefined ? "" : `podsync: ${said}\n`}${usageOf(argv)}`)))

// Errors a user can act on carry a message: print it alone, exit 1, no stack trace.
const userFacing = new Set(["CliFailure", "ConfigError", "DataDirLockedError", "DbError", "NoDatabaseYetError", "NotVerifiedError"])

/** A user-facing failure that says its own exit code (`check`: 3, not verified); else 1. */
let failureExitCode = 1

const argv = takeLogLevel(process.argv)

/**
 * `--help`/`-h`: podsync's own rendering (Help.ts) of the named command's help, else of podsync's.
 * (`mappings load --help` shows `mappings`' help, which lists both of its commands.)
 */
const helpAsked = argv.slice(2).some((arg) => arg === "--help" || arg === "-h")
const helpText = () => {
  const name = argv.slice(2).find((arg) => Object.hasOwn(helps, arg))
  const doc = name === undefined ? undefined : helps[name]
  const usage = name === undefined ? undefined : usages[name]
  if (doc === undefined || usage === undefined) {
    return renderOverview(VERSION, Object.entries(helps).map(([command, help]) => [command, descriptionOf(help)] as const))
  }
  return renderHelp(HelpDoc.toAnsiText(Usage.getHelp(usage)).trim(), doc)
}

const run: Effect.Effect<void, unknown, Effect.Effect.Context<ReturnType<typeof cli>>> = usageMistake !== undefined
  ? Effect.fail(usageMistake)
  : helpAsked
  ? Effect.sync(() => process.stdout.write(helpText()))
  : cli(argv)

const program = run.pipe(
  Effect.tapErrorCause((cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.void
    const failure = Cause.failureOption(cause)
    if (failure._tag === "Some") {
      const error: unknown = failure.value
      if (typeof error === "string") return usageFailure(error, argv)
      // A usage mistake (unknown command or option, missing argument): @effect/cli said what is wrong; then the usage.
      if (ValidationError.isValidationError(error)) return usageFailure(undefined, argv)
      const { _tag, message, exitCode } = error as { readonly _tag?: string; readonly message?: string; readonly exitCode?: number }
      if (_tag !== undefined && userFacing.has(_tag)) {
        if (typeof exitCode === "number") failureExitCode = exitCode
        return Console.error(`podsync: ${message}`)
      }
    }
    return Console.error(`podsync: unexpected failure\n${Cause.pretty(cause)}`)
  }),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit, onExit) =>
    onExit(usageMistake !== undefined ? 2 : Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? failureExitCode : 0)
})
