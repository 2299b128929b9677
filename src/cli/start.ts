import * as Command from "@effect/cli/Command"
import * as net from "node:net"
import { Effect, Layer } from "effect"
import { daemonLayer } from "../app/DaemonLive.js"
import type { AppConfig } from "../config/AppConfig.js"
import { dataDirHolder } from "../db/DataDirLock.js"
import { CliFailure, configCommand } from "./AppRuntime.js"

const cannotListen = (app: AppConfig, reason: string) =>
  new CliFailure({
    message: `cannot listen on ${app.server.host}:${app.server.port}: ${reason} (is another podsync running? change server.port)`
  })

const alreadyRunning = (app: AppConfig) => {
  const holder = app.database.url === undefined ? dataDirHolder(app.dataDir) : undefined
  return holder === undefined ? Effect.void : Effect.fail(holder)
}

/**
 * Whether the server's address can be bound, tried before anything starts (the database, the
 * pipeline): a taken port is said at once, alone, instead of after a pipeline that starts and stops.
 */
const portFree = (app: AppConfig) =>
  Effect.async<void, CliFailure>((resume) => {
    const probe = net.createServer()
    probe.once("error", (error) => resume(Effect.fail(cannotListen(app, error.message))))
    probe.listen({ host: app.server.host, port: app.server.port, exclusive: true }, () => probe.close(() => resume(Effect.void)))
  })

/** `podsync start`: the daemon. Runs until SIGINT/SIGTERM; a second signal forces exit. */
export const startCommand = configCommand("start", (app) =>
  Effect.zipRight(
    // Another podsync on this embedded database is said as that (its pid), before its port.
    Effect.zipRight(alreadyRunning(app), portFree(app)),
    Layer.launch(daemonLayer(app)).pipe(
      Effect.catchTag(
        "ServeError",
        (error) => Effect.fail(cannotListen(app, error.cause instanceof Error ? error.cause.message : String(error.cause)))
      )
    )
  )).pipe(Command.withDescription("Run the daemon"))
