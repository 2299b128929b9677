import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import { daemonLayer } from "../app/DaemonLive.js"
import { CliFailure, configOption, withConfig } from "./AppRuntime.js"

/** `podsync start`: the daemon. Runs until SIGINT/SIGTERM; a second signal forces exit. */
export const startCommand = Command.make(
  "start",
  { config: configOption },
  ({ config }) =>
    withConfig(config, (app) =>
      Layer.launch(daemonLayer(app)).pipe(
        Effect.catchTag("ServeError", (error) =>
          Effect.fail(
            new CliFailure({
              message: `cannot listen on ${app.server.host}:${app.server.port}: ${
                error.cause instanceof Error ? error.cause.message : String(error.cause)
              } (is another podsync running? change server.port)`
            })
          ))
      ))
).pipe(Command.withDescription("Run the daemon"))
