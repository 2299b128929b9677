import { Effect, Layer } from "effect"
import { StatusRepo } from "../repos/StatusRepo.js"
import { MetricsRegistry } from "./MetricsRegistry.js"
import { ageSeconds, type PipelineFigures, readPipelineFigures } from "./PipelineFigures.js"

/**
 * Gauges read from the database at every scrape, so that every replica reports the same
 * truth: orders by store and state, what needs a person, queue depth and lag per stage, and
 * the time since each store's last pull.
 */
export const PipelineGaugesLive: Layer.Layer<never, never, MetricsRegistry | StatusRepo> = Layer.effectDiscard(
  Effect.gen(function*() {
    const metrics = yield* MetricsRegistry
    const orders = metrics.gauge("podsync_orders", "Store orders by store and state", ["store", "state"])
    const needingAPerson = metrics.gauge(
      "podsync_orders_needing_a_person",
      "Orders a person must look at (held, failed, cancel_pending, pod_on_hold), by store, state and held reason",
      ["store", "state", "reason"]
    )
    const needingAPersonAge = metrics.gauge(
      "podsync_orders_needing_a_person_oldest_age_seconds",
      "How long the oldest such order has been in its state, by store, state and held reason",
      ["store", "state", "reason"]
    )
    const refusedTracking = metrics.gauge(
      "podsync_tracking_refused",
      "Shipments whose tracking the store refused (add them in the store by hand), by store",
      ["store"]
    )
    const queueDepth = metrics.gauge("podsync_queue_depth", "Orders due for a pipeline stage (match, draft, fulfill) now", ["stage"])
    const lag = metrics.gauge(
      "podsync_pipeline_lag_seconds",
      "How long the oldest due order of a stage has been waiting (0 when none is due)",
      ["stage"]
    )
    const pullAge = metrics.gauge(
      "podsync_store_last_pull_age_seconds",
      "Time since the last successful pull of a store (stores never pulled are absent)",
      ["store"]
    )

    const show = (figures: PipelineFigures) =>
      Effect.sync(() => {
        // Reset first: a store or state that has no orders any more must not keep its last value.
        for (const gauge of [orders, needingAPerson, needingAPersonAge, refusedTracking, queueDepth, lag, pullAge]) gauge.reset()
        for (const o of figures.orders) orders.set({ store: o.storeKey, state: o.state }, o.count)
        for (const g of figures.needingAPerson) {
          const labels = { store: g.storeKey, state: g.state, reason: g.reason ?? "" }
          needingAPerson.set(labels, g.count)
          needingAPersonAge.set(labels, ageSeconds(figures.now, g.oldestSince))
        }
        for (const r of figures.refusedTracking) refusedTracking.set({ store: r.storeKey }, r.count)
        for (const q of figures.queues) {
          queueDepth.set({ stage: q.stage }, q.due)
          lag.set({ stage: q.stage }, q.oldestDueSince === null ? 0 : ageSeconds(figures.now, q.oldestDueSince))
        }
        for (const p of figures.pulls) pullAge.set({ store: p.storeKey }, ageSeconds(figures.now, p.lastPullAt))
      })

    const repo = yield* StatusRepo
    yield* metrics.onScrape("orders and queues", readPipelineFigures.pipe(Effect.provideService(StatusRepo, repo), Effect.flatMap(show)))
  })
)
