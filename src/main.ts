import { Command } from "@effect/cli"
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

const cli = Command.run(podsync, { name: "podsync", version: "0.1.0" })

// Errors a user can act on carry a message: print it alone, exit 1, no stack trace.
const userFacing = new Set(["CliFailure", "ConfigError", "DataDirLockedError", "DbError"])

const program = cli(process.argv).pipe(
  Effect.tapErrorCause((cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.void
    const failure = Cause.failureOption(cause)
    if (failure._tag === "Some") {
      const error = failure.value as { readonly _tag?: string; readonly message?: string }
      if (error._tag === "ValidationError") return Effect.void // @effect/cli already printed it
      if (error._tag !== undefined && userFacing.has(error._tag)) return Console.error(`podsync: ${error.message}`)
    }
    return Console.error(`podsync: unexpected failure\n${Cause.pretty(cause)}`)
  }),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit, onExit) => onExit(Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? 1 : 0)
})
