import { type Duration, Effect, Layer } from "effect"
import { type AppConfig, laterPackageLooks } from "../config/AppConfig.js"
import { SessionTieLive } from "../db/SessionTie.js"
import { Replica } from "../schedule/ReplicaIdentity.js"
import { DependencyProbesLive } from "./DependencyProbes.js"
import { FollowUpLoopLive } from "./FollowUpLoop.js"
import { InboxPruningLive } from "./InboxPruning.js"
import { PullLoopLive } from "./PullLoop.js"
import { CatalogLoopLive, ReconcileLoopLive } from "./ReconcileLoop.js"
import { LeaseLength } from "./Lease.js"
import { PipelineSettingsLive, StageWakeups } from "./StageLoop.js"
import { DraftLoopLive, FulfillLoopLive, LookUpLoopLive, MatchLoopLive, ReplanLoopLive } from "./StageLoops.js"

export interface PipelineOptions {
  readonly owner?: string
  /** How long an idle worker waits before looking for due work again (a trigger wakes it sooner). */
  readonly idle?: Duration.DurationInput
  /** Orders worked on at once by the draft stage (the rate budget paces what reaches the service). */
  readonly draftConcurrency?: number
  /** How long an order due a look-up at the POD service waits to share the call (default 3 s). */
  readonly lookUpGather?: Duration.DurationInput
}

/** Each loop of the daemon's pipeline, one layer apiece (they share only the wake-ups and the signals). */
export const PipelineLoopsLive = Layer.mergeAll(
  MatchLoopLive,
  LookUpLoopLive,
  DraftLoopLive,
  FulfillLoopLive,
  ReplanLoopLive,
  PullLoopLive,
  FollowUpLoopLive,
  ReconcileLoopLive,
  CatalogLoopLive,
  DependencyProbesLive
)

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
      takeOverAfterMs: config.pod.timeoutMs,
      laterPackages: laterPackageLooks(config.pod),
      ...(options.lookUpGather === undefined ? {} : { lookUpGather: options.lookUpGather })
    })),
    Layer.provide(Layer.succeed(LeaseLength, config.pipeline.leaseSeconds))
  )

/**
 * The replica's name (`owner`, else a new one) and its claims' tie to its database session
 * (PostgreSQL: see SessionTie), built once for the pipeline and the alert sender together: a second
 * tie under the same name would find the lock its own process holds.
 */
export const ReplicaSessionLive = (owner?: string) => SessionTieLive(Replica).pipe(Layer.provideMerge(Replica.layer(owner)))
