/**
 * The daemon, composed once: every loop, the HTTP surface and the services they share, from the
 * database up. `podsync start`, the demo and the benchmarks launch this one layer.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Cause, Effect, Exit, Layer } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { DRY_RUN_BANNER, DryRun } from "../config/DryRun.js"
import { migrateToLatest } from "../db/Migrator.js"
import { BudgetMetricsLive, ObservabilityLive } from "../observability/ObservabilityLive.js"
import { orderLinksOf } from "../console/OrderLinks.js"
import { HttpServerLive } from "../http/HttpServerLive.js"
import { Readiness } from "../http/Readiness.js"
import { PodWebhookSettings, WebhookIntakeSettings } from "../http/WebhookReceiver.js"
import { PodWebhookSubscriptions } from "../pipeline/PodWebhookSubscriptions.js"
import { type PipelineOptions, PipelineLive, ReplicaSessionLive } from "../pipeline/PipelineLive.js"
import { PipelineTriggersLive } from "../pipeline/PipelineSignals.js"
import { ReleaseStaleClaimsLive } from "../pipeline/StageLoops.js"
import { ReportScheduleLive } from "../reporting/ReportSchedule.js"
import { ReportService, reportServiceConfigOf } from "../reporting/ReportService.js"
import { ExternalApisLive, PlanningLive, ReposLive } from "./CommandLive.js"
import { dbLayer } from "./DatabaseLive.js"
import { RehearsalRuns } from "../console/RehearsalRuns.js"
import { rehearsalSettingsOf } from "./RehearsalSettings.js"
import { DependencyHealth } from "../observability/DependencyHealth.js"
import { AlertConditions } from "../alerts/AlertConditions.js"
import { AlertsLive } from "./AlertsLive.js"
import { DaemonCheckLive } from "./ServiceCheck.js"
import { TracingLive } from "./TracingLive.js"

// Marked ready last and unready first: a finalizer of the outermost layer runs
// before the server closes, so probes fail while in-flight work finishes.
const Lifecycle = (config: AppConfig) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const readiness = yield* Readiness
    yield* Effect.addFinalizer(() => Effect.zipRight(readiness.markNotReady, Effect.logInfo("podsync stopping: finishing in-flight work")))
    yield* readiness.markReady
    if (config.pipeline.dryRun) {
      yield* Effect.logWarning(
        `${DRY_RUN_BANNER}: orders are pulled, planned and looked up, but no draft is created and nothing is written to the POD service or a store` +
          (config.pod.webhooks === undefined ? "" : "; POD webhooks are not registered, orders are followed by polling")
      )
    }
    yield* Effect.logInfo("podsync started").pipe(Effect.annotateLogs({
      ...(config.pipeline.dryRun ? { dryRun: true } : {}),
      stores: config.stores.map((s) => s.key),
      database: config.database.url ? "postgres" : "embedded",
      address: `http://${config.server.host}:${config.server.port}`
    }))
  }))

/**
 * Everything `podsync start` runs above the database, up to the HTTP server: given the `Db`, so a
 * test can run it on the database it also reads (PGlite in memory, or a schema of its own).
 */
export const DaemonLive = (config: AppConfig, options: PipelineOptions = {}, configFile?: string) => {
  const dryRun = config.pipeline.dryRun
  // Registering a webhook is a write at the POD service: a dry run registers none and follows orders by polling.
  const webhooks = dryRun ? undefined : config.pod.webhooks
  return Lifecycle(config).pipe(
    Layer.provideMerge(HttpServerLive({ ...config.server, configFile }, {
      config: config.console,
      attention: {
        notCheckedOutAfterHours: config.reports.notCheckedOutAfterHours,
        noDraftAfterMinutes: config.reports.noDraftAfterMinutes,
        timezone: config.reports.timezone,
        storeNames: config.reports.storeNames
      },
      links: orderLinksOf(config.stores, config.console.podOrderUrl, config.reports.storeNames)
    })),
    Layer.provideMerge(Layer.mergeAll(
      // One replica name and one session tie for the pipeline's claims and the alert channels' leases.
      Layer.mergeAll(PipelineLive(config, options), AlertsLive(config)).pipe(Layer.provide(ReplicaSessionLive(options.owner))),
      ReportScheduleLive({ expression: config.schedules.report, timezone: config.reports.timezone })
    )),
    Layer.provideMerge(Layer.mergeAll(
      BudgetMetricsLive,
      DaemonCheckLive(config),
      ReportService.Default(reportServiceConfigOf(config, {
        noDraftAfterMinutes: config.reports.noDraftAfterMinutes,
        notCheckedOutAfterHours: config.reports.notCheckedOutAfterHours
      })),
      RehearsalRuns.Default({ report: rehearsalSettingsOf(config), budget: config.pod.rateLimit }),
      PodWebhookSubscriptions.Default(webhooks && { publicUrl: webhooks.publicUrl, topics: webhooks.topics, version: webhooks.version })
    )),
    Layer.provideMerge(PlanningLive(config)),
    Layer.provideMerge(Layer.mergeAll(
      ExternalApisLive(config),
      PipelineTriggersLive,
      Readiness.Default({ unreadyAfterStoreFailsMinutes: config.server.unreadyAfterStoreFailsMinutes }),
      PodWebhookSettings.fromConfig(config.pod),
      WebhookIntakeSettings.fromConfig(config.webhooks)
    )),
    // Before anything claims work: on the embedded database every claim left is a dead predecessor's.
    Layer.provideMerge(ReleaseStaleClaimsLive(config.pod.timeoutMs)),
    Layer.provideMerge(Layer.mergeAll(DependencyHealth.Default, AlertConditions.Default)),
    Layer.provideMerge(ObservabilityLive(config.stores.map((s) => s.key))),
    Layer.provideMerge(ReposLive),
    Layer.provideMerge(NodeHttpClient.layerUndici),
    Layer.provideMerge(DryRun.layer(dryRun)),
    Layer.provideMerge(Layer.effectDiscard(migrateToLatest)),
    // Built first: every span of the layers above and of their loops goes to the collector.
    Layer.provideMerge(TracingLive(config))
  )
}

/** Everything `podsync start` runs, from the configured database up to the HTTP server. */
export const daemonLayer = (config: AppConfig, options: PipelineOptions = {}, configFile?: string) =>
  DaemonLive(config, options, configFile).pipe(
    Layer.provideMerge(dbLayer(config)),
    // Built first, so released last: after the server and the database have closed. Not said when
    // the daemon never started (the database locked, the port taken): its error is what is said.
    Layer.provideMerge(
      Layer.scopedDiscard(
        Effect.addFinalizer((exit) =>
          Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? Effect.void : Effect.logInfo("podsync stopped")
        )
      )
    )
  )
