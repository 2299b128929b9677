import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { migrateToLatest } from "../db/Migrator.js"
import { HttpServerLive } from "../http/HttpServerLive.js"
import { Readiness } from "../http/Readiness.js"
import { StatusRepo } from "../repos/StatusRepo.js"
import { CliFailure, configOption, dbLayer, withConfig } from "./AppRuntime.js"

// Marked ready last and unready first: a finalizer of the outermost layer runs
// before the server closes, so probes fail while in-flight work finishes.
const Lifecycle = (config: AppConfig) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const readiness = yield* Readiness
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(readiness.markNotReady, Effect.logInfo("podsync stopping: finishing in-flight work"))
    )
    yield* readiness.markReady
    yield* Effect.logInfo("podsync started").pipe(Effect.annotateLogs({
      stores: config.stores.map((s) => s.key),
      database: config.database.url ? "postgres" : "embedded",
      address: `http://${config.server.host}:${config.server.port}`
    }))
  }))

export const daemonLayer = (config: AppConfig) =>
  Lifecycle(config).pipe(
    Layer.provideMerge(HttpServerLive(config.server)),
    Layer.provideMerge(Layer.mergeAll(Readiness.Default, StatusRepo.Default)),
    Layer.provideMerge(Layer.effectDiscard(migrateToLatest)),
    Layer.provideMerge(dbLayer(config)),
    // Built first, so released last: after the server and the database have closed.
    Layer.provideMerge(Layer.scopedDiscard(Effect.addFinalizer(() => Effect.logInfo("podsync stopped"))))
  )

/** `podsync start`: the daemon. Runs until SIGINT/SIGTERM; a second signal forces exit. */
export const startCommand = Command.make("start", { config: configOption }, ({ config }) =>
  withConfig(config, (app) =>
    Layer.launch(daemonLayer(app)).pipe(
      Effect.catchTag("ServeError", (error) =>
        Effect.fail(new CliFailure({
          message: `cannot listen on ${app.server.host}:${app.server.port}: ${
            error.cause instanceof Error ? error.cause.message : String(error.cause)
          } (is another podsync running? change server.port)`
        })))
    ))
).pipe(Command.withDescription("Run the daemon"))
