import { Effect, Layer } from "effect"
import { Gauge } from "prom-client"
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
    const registers = [metrics.registry]
    const orders = new Gauge({
      name: "podsync_orders",
      help: "Store orders by store and state",
      labelNames: ["store", "state"] as const,
      registers
    })
    const needingAPerson = new Gauge({
      name: "podsync_orders_needing_a_person",
      help: "Orders a person must look at (held, failed, cancel_pending, pod_on_hold), by store, state and held reason",
      labelNames: ["store", "state", "reason"] as const,
      registers
    })
    const needingAPersonAge = new Gauge({
      name: "podsync_orders_needing_a_person_oldest_age_seconds",
      help: "How long the oldest such order has been in its state, by store, state and held reason",
      labelNames: ["store", "state", "reason"] as const,
      registers
    })
    const refusedTracking = new Gauge({
      name: "podsync_tracking_refused",
      help: "Shipments whose tracking the store refused (add them in the store by hand), by store",
      labelNames: ["store"] as const,
      registers
    })
    const queueDepth = new Gauge({
      name: "podsync_queue_depth",
      help: "Orders due for a pipeline stage (match, draft, fulfill) now",
      labelNames: ["stage"] as const,
      registers
    })
    const lag = new Gauge({
      name: "podsync_pipeline_lag_seconds",
      help: "How long the oldest due order of a stage has been waiting (0 when none is due)",
      labelNames: ["stage"] as const,
      registers
    })
    const pullAge = new Gauge({
      name: "podsync_store_last_pull_age_seconds",
      help: "Time since the last successful pull of a store (stores never pulled are absent)",
      labelNames: ["store"] as const,
      registers
    })

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
