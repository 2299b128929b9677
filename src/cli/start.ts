import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as net from "node:net"
import { setFlagsFromString } from "node:v8"
import { Effect, FiberRef, Layer } from "effect"
import { daemonLayer } from "../app/DaemonLive.js"
import type { AppConfig } from "../config/AppConfig.js"
import { dataDirHolder } from "../db/DataDirLock.js"
import { canonicalConfigPath, CliFailure, configOption, currentConfigFile, withConfig } from "./AppRuntime.js"

const cannotListen = (app: AppConfig, reason: string) =>
  new CliFailure({
    message: `cannot listen on ${app.server.host}:${app.server.port}: ${reason} (is another podsync running? change server.port)`
  })

const alreadyRunning = (app: AppConfig) =>
  app.database.url === undefined
    ? Effect.flatMap(dataDirHolder(app.dataDir), (holder) => (holder === undefined ? Effect.void : Effect.fail(holder)))
    : Effect.void

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

/**
 * How far V8 lets the heap grow past what a full collection left live before the next one. Its
 * own choice under a steady allocation rate is about 4x: under a flow of webhooks a daemon with
 * some 70 MB live held 250-440 MB of heap, mostly garbage. At 1.5x a 200 deliveries/s soak on the
 * embedded database held 335 MB RSS instead of about 470, at the same throughput (issue #22,
 * bench/webhook-ingest). 25 % was no smaller and slower. Node's own flag, when given, wins.
 */
export const HEAP_GROWING_PERCENT = 50

const favourASmallerHeap = Effect.sync(() => {
  if (!process.execArgv.some((flag) => flag.startsWith("--heap-growing-percent"))) {
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
  }
})

const dryRunOption = Options.boolean("dry-run").pipe(
  Options.withDescription(
    "run the whole pipeline on live orders but create no draft and write nothing to the POD service or a store: " +
      "what would be sent is kept in each order's story (pipeline.dryRun in the config does the same)"
  )
)

/** `--dry-run` wins over the config: it turns dry run on, never off. */
export const withDryRun = (app: AppConfig, dryRun: boolean): AppConfig =>
  dryRun && !app.pipeline.dryRun ? { ...app, pipeline: { ...app.pipeline, dryRun: true } } : app

/** `podsync start [--dry-run]`: the daemon. Runs until SIGINT/SIGTERM; a second signal forces exit. */
export const startCommand = Command.make(
  "start",
  { config: configOption, dryRun: dryRunOption },
  ({ config, dryRun }) => withConfig(config, (app) => start(withDryRun(app, dryRun)))
).pipe(Command.withDescription("Run the daemon (--dry-run: send nothing, show what would be sent)"))

const start = (app: AppConfig) =>
  Effect.zipRight(
    // Another podsync on this embedded database is said as that (its pid), before its port.
    Effect.zipRight(alreadyRunning(app), portFree(app)).pipe(Effect.zipLeft(favourASmallerHeap)),
    // The daemon knows its file, so that a command run with another is told so (HttpServerLive).
    Effect.flatMap(FiberRef.get(currentConfigFile), (file) =>
      Layer.launch(daemonLayer(app, {}, file === undefined ? undefined : canonicalConfigPath(file)))).pipe(
        Effect.catchTag(
          "ServeError",
          (error) =>
            Effect.fail(cannotListen(app, error.cause instanceof Error ? error.cause.message : String(error.cause)))
        )
      )
  )
