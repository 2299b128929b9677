import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Usage from "@effect/cli/Usage"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import { descriptionOf, renderHelp, renderOverview } from "./cli/Help.js"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit } from "effect"
import { alertsCommand } from "./cli/alerts.js"
import { checkCommand } from "./cli/check.js"
import { consoleCommand } from "./cli/console.js"
import { dbCommand } from "./cli/db.js"
import { demoCommand } from "./cli/demo.js"
import { explainCommand } from "./cli/explain.js"
import { pullCommand, reconcileCommand } from "./cli/pull.js"
import { reportCommand } from "./cli/report.js"
import { mappingsCommand } from "./cli/mappings.js"
import { migrateCommand } from "./cli/migrate.js"
import { simulateCommand } from "./cli/simulate.js"
import { startCommand } from "./cli/start.js"
import { statusCommand } from "./cli/status.js"
import { rewordMistake } from "./cli/UsageMistake.js"

/** podsync's commands, in the order its help and usage list them. */
const subcommands = [
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
  alertsCommand,
  dbCommand,
  consoleCommand,
  demoCommand
] as const

const podsync = Command.make("podsync").pipe(
  Command.withDescription("Connects print-on-demand stores to the POD service's API v3"),
  Command.withSubcommands(subcommands)
)

type CommandDoc = { readonly help: HelpDoc.HelpDoc; readonly usage: Usage.Usage }
const docOf = (descriptor: Descriptor.Command<unknown>): CommandDoc => ({
  help: Descriptor.getHelp(descriptor, CliConfig.defaultConfig),
  usage: Descriptor.getUsage(descriptor)
})

/** Each command's help (`podsync <command> --help`) and usage line, read off the command itself. */
const commandDocs: ReadonlyMap<string, CommandDoc> = new Map(
  subcommands.map(({ descriptor }: { readonly descriptor: Descriptor.Command<unknown> }) => [
    [...Descriptor.getNames(descriptor)][0] ?? "",
    docOf(descriptor)
  ])
)

/** The same for the commands under a command (`mappings load`), by their two words. */
const subcommandDocs: ReadonlyMap<string, CommandDoc> = new Map(
  subcommands.flatMap(({ descriptor }: { readonly descriptor: Descriptor.Command<unknown> }) => {
    const name = [...Descriptor.getNames(descriptor)][0] ?? ""
    // A plain command lists itself as its one subcommand: only real subcommands are kept.
    return [...Descriptor.getSubcommands(descriptor)].filter(([sub]) => sub !== name).map(([sub, command]) =>
      [`${name} ${sub}`, docOf(command)] as const
    )
  })
)

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

/** The command named on the line: its subcommand (`db move`) when one is named, else the command (`db`), else none. */
const commandNamed = (argv: ReadonlyArray<string>) => {
  const words = argv.slice(2).filter((arg) => !arg.startsWith("-"))
  const at = words.findIndex((arg) => commandDocs.has(arg))
  const command = words[at]
  const sub = `${command} ${words[at + 1] ?? ""}`
  return { command, name: subcommandDocs.has(sub) ? sub : command }
}

const usageLine = (name: string, usage: Usage.Usage) => {
  // A subcommand's usage names it alone: put its command before it.
  const line = HelpDoc.toAnsiText(Usage.getHelp(usage)).trim()
  return `podsync ${name.includes(" ") ? `${name.split(" ")[0]} ${line}` : line}`
}

/** The subcommands of a command (`mappings`: `mappings load`, `mappings suggest`). */
const subcommandsOf = (command: string) => [...subcommandDocs.keys()].filter((name) => name.startsWith(`${command} `))

/** The usage of the command named on the line (of its subcommand, `db move`, when one is named), else the list of commands. */
const usageOf = (argv: ReadonlyArray<string>) => {
  const { command, name } = commandNamed(argv)
  const usage = name === undefined ? undefined : (subcommandDocs.get(name) ?? commandDocs.get(name))?.usage
  if (name === undefined || usage === undefined) {
    return `usage: podsync <command> [options], a command of: ${[...commandDocs.keys()].join(", ")}\n(podsync --help for more)`
  }
  // A command of commands named alone: the usage of each.
  const subs = name === command ? subcommandsOf(name) : []
  if (subs.length > 0) {
    return `usage: ${
      subs.flatMap((sub) => {
        const docs = subcommandDocs.get(sub)
        return docs === undefined ? [] : [usageLine(sub, docs.usage)]
      }).join("\n       ")
    }\n(podsync ${name} --help for more)`
  }
  return `usage: ${usageLine(name, usage)}\n(podsync ${name} --help for more)`
}

/** The options the command named on the line takes, with those every command takes: what a mistyped one is compared with. */
const optionsOf = (argv: ReadonlyArray<string>) => {
  const { name } = commandNamed(argv)
  const docs = name === undefined ? undefined : subcommandDocs.get(name) ?? commandDocs.get(name)
  const own = docs === undefined ? [] : HelpDoc.toAnsiText(Usage.getHelp(docs.usage)).match(/--[a-z][a-z-]*/g) ?? []
  return [...new Set([...own, "--config", "--log-level", "--help", "--version"])]
}

// The colour codes @effect/cli's messages carry (ESC [ … m).
const ANSI_STYLE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")

/**
 * The line parsed before anything runs, so that a usage mistake is said once, in podsync's words
 * (`rewordMistake`), with the command's usage: @effect/cli's own run would print its message first.
 * A command of commands named alone (`podsync mappings`) is a mistake too.
 */
const parsedLine = (argv: ReadonlyArray<string>) =>
  Descriptor.parse(podsync.descriptor, ["podsync", ...argv.slice(2)], CliConfig.defaultConfig).pipe(
    Effect.matchEffect({
      onFailure: (error) => Effect.fail(HelpDoc.toAnsiText(error.error).replace(ANSI_STYLE, "")),
      onSuccess: (directive) =>
        directive._tag === "UserDefined" && directive.leftover.length > 0
          ? Effect.fail(`Received unknown argument: '${directive.leftover[0]}'`)
          : Effect.void
    }),
    Effect.zipRight(Effect.suspend(() => {
      const { command, name } = commandNamed(argv)
      const subs = command !== undefined && name === command ? subcommandsOf(command) : []
      return subs.length === 0 || argv.includes("--version")
        ? Effect.void
        : Effect.fail(`podsync ${command} needs a command: ${subs.map((sub) => sub.split(" ")[1]).join(" or ")}`)
    })),
    Effect.mapError((said) =>
      rewordMistake(said, {
        words: argv.slice(2),
        options: optionsOf(argv),
        commands: [...commandDocs.keys(), ...subcommandDocs.keys()]
      })
    )
  )

/** Says a usage mistake (`said`: the mistake, unless @effect/cli has printed it already) with the usage; exit 2. */
const usageFailure = (said: string | undefined, argv: ReadonlyArray<string>) =>
  Effect.sync(() => {
    usageMistake = said ?? "usage"
  }).pipe(Effect.zipRight(Console.error(`${said === undefined ? "" : `podsync: ${said}\n`}${usageOf(argv)}`)))

// Errors a user can act on carry a message: print it alone, exit 1, no stack trace (a UsageError: with the usage, exit 2).
const userFacing = new Set(["CliFailure", "ConfigError", "DataDirLockedError", "DbError", "NoDatabaseYetError", "NotVerifiedError"])

/** A user-facing failure that says its own exit code (`check`: 3, not verified); else 1. */
let failureExitCode = 1

const argv = takeLogLevel(process.argv)

/** `--help`/`-h`: podsync's own rendering (Help.ts) of the named command's help (or subcommand's), else of podsync's. */
const helpAsked = argv.slice(2).some((arg) => arg === "--help" || arg === "-h")
const helpText = () => {
  const words = argv.slice(2).filter((arg) => !arg.startsWith("-"))
  const at = words.findIndex((arg) => commandDocs.has(arg))
  const sub = at === -1 ? undefined : `${words[at]} ${words[at + 1] ?? ""}`
  const name = sub !== undefined && subcommandDocs.has(sub) ? sub : words[at]
  const docs = name === undefined ? undefined : subcommandDocs.get(name) ?? commandDocs.get(name)
  if (docs === undefined) {
    return renderOverview(VERSION, [...commandDocs].map(([command, { help }]) => [command, descriptionOf(help)] as const))
  }
  const usage = HelpDoc.toAnsiText(Usage.getHelp(docs.usage)).trim()
  // A subcommand's usage names it alone: put its command before it.
  return renderHelp(name !== undefined && name.includes(" ") ? `${name.split(" ")[0]} ${usage}` : usage, docs.help)
}

const run: Effect.Effect<void, unknown, Effect.Effect.Context<ReturnType<typeof cli>>> = usageMistake !== undefined
  ? Effect.fail(usageMistake)
  : helpAsked
  ? Effect.sync(() => process.stdout.write(helpText()))
  : Effect.zipRight(parsedLine(argv), cli(argv))

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
      // A mistake a command found in what it was given (an option's value): said as the parser's are.
      if (_tag === "UsageError") return usageFailure(message ?? "usage", argv)
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
