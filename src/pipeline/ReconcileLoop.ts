import { Effect, Layer, Queue } from "effect"
import { logFailure, unlessDown } from "../observability/DependencyHealth.js"
import { makeScheduler } from "../schedule/Scheduler.js"
import { Replica } from "../schedule/ReplicaIdentity.js"
import { refreshCatalog } from "./CatalogRefresh.js"
import { PipelineSignals } from "./PipelineSignals.js"
import { PodWebhookSubscriptions } from "./PodWebhookSubscriptions.js"
import { reconcileAll } from "./ReconcileStage.js"
import { logFailures, PipelineSettings, StageWakeups } from "./StageLoop.js"

/**
 * Reconciles every followed order with the POD service, on its schedule (one replica per tick)
 * and on demand. Reconciliation spends the rate budget: never in a tight loop.
 */
export const ReconcileLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const signals = yield* PipelineSignals
  const settings = yield* PipelineSettings
  const { fulfill } = yield* StageWakeups
  const owner = yield* Replica
  const reconcileNow = logFailures("reconcile", unlessDown("pod", "reconcile", reconcileAll(owner, settings.laterPackages))).pipe(
    Effect.zipRight(fulfill.kick),
    Effect.provide(yield* Effect.context<Effect.Effect.Context<ReturnType<typeof reconcileAll>>>())
  )
  const scheduler = yield* makeScheduler({ owner, timezone: settings.timezone, logFailure })
  yield* Queue.take(signals.reconciles).pipe(
    Effect.zipRight(logFailures("reconcile", scheduler.runNow("reconcile", reconcileNow))),
    Effect.forever,
    Effect.forkScoped
  )
  yield* scheduler.schedule("reconcile", settings.schedules.reconcile, reconcileNow)
}))

/**
 * The catalog cache and the POD webhook subscriptions: at start and on the catalog schedule.
 * Subscriptions first: an event the service sends before they are in place is lost (the
 * reconcile catches up). The inbox's housekeeping is InboxPruning.ts.
 */
export const CatalogLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const settings = yield* PipelineSettings
  const owner = yield* Replica
  const subscriptions = yield* PodWebhookSubscriptions
  const catalogAndSubscriptions = Effect.all([
    logFailures("webhook subscriptions", subscriptions.ensure),
    logFailures("catalog refresh", unlessDown("pod", "catalog refresh", refreshCatalog))
  ], { discard: true }).pipe(Effect.provide(yield* Effect.context<Effect.Effect.Context<typeof refreshCatalog>>()))
  const scheduler = yield* makeScheduler({ owner, timezone: settings.timezone, logFailure })
  yield* scheduler.schedule("catalog", settings.schedules.catalog, catalogAndSubscriptions)
  yield* Effect.forkScoped(logFailures("catalog refresh", scheduler.runNow("catalog", catalogAndSubscriptions)))
}))
