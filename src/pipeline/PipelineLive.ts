import { type Duration, Effect, Layer } from "effect"
import { type AppConfig, laterPackageLooks } from "../config/AppConfig.js"
import { Replica } from "../schedule/ReplicaIdentity.js"
import { DependencyProbesLive } from "./DependencyProbes.js"
import { FollowUpLoopLive } from "./FollowUpLoop.js"
import { InboxPruningLive } from "./InboxPruning.js"
import { PullLoopLive } from "./PullLoop.js"
import { CatalogLoopLive, ReconcileLoopLive } from "./ReconcileLoop.js"
import { PipelineSettingsLive, StageWakeups } from "./StageLoop.js"
import { DraftLoopLive, FulfillLoopLive, MatchLoopLive, ReleaseStaleClaimsLive, ReplanLoopLive } from "./StageLoops.js"

export interface PipelineOptions {
  readonly owner?: string
  /** How long an idle worker waits before looking for due work again (a trigger wakes it sooner). */
  readonly idle?: Duration.DurationInput
  /** Orders worked on at once by the draft stage (the rate budget paces what reaches the service). */
  readonly draftConcurrency?: number
}

/** Each loop of the daemon's pipeline, one layer apiece (they share only the wake-ups and the signals). */
export const PipelineLoopsLive = Layer.mergeAll(
  MatchLoopLive,
  DraftLoopLive,
  FulfillLoopLive,
  ReplanLoopLive,
  PullLoopLive,
  FollowUpLoopLive,
  ReconcileLoopLive,
  CatalogLoopLive,
  DependencyProbesLive
).pipe(Layer.provide(ReleaseStaleClaimsLive))

/**
 * The daemon's pipeline: one loop per stage claiming due work (leases, so replicas share it),
 * cron schedules for pull, reconcile and the catalog (one replica per tick), and the loops the
 * triggers feed. Everything stops with the scope; claimed orders are released or their leases expire.
 */
export const PipelineLive = (config: AppConfig, options: PipelineOptions = {}) =>
  Layer.mergeAll(
    PipelineLoopsLive,
    InboxPruningLive(config.webhooks.retentionDays),
    Layer.effectDiscard(Effect.flatMap(Replica, (owner) => Effect.logInfo("pipeline started").pipe(Effect.annotateLogs({ owner }))))
  ).pipe(
    Layer.provide(StageWakeups.Default),
    Layer.provide(PipelineSettingsLive({
      storeKeys: config.stores.map((s) => s.key),
      schedules: config.schedules,
      timezone: config.reports.timezone,
      idle: options.idle ?? "2 seconds",
      draftConcurrency: options.draftConcurrency ?? 25,
      laterPackages: laterPackageLooks(config.pod)
    })),
    Layer.provide(Replica.layer(options.owner))
  )
