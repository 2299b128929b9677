import { Effect, Layer } from "effect"
import { registerRateBudgetMetrics } from "../budget/RateBudgetMetrics.js"
import { MetricsRegistry } from "./MetricsRegistry.js"
import { PipelineGaugesLive } from "./PipelineGauges.js"
import { PodRequestMetrics } from "./PodRequestMetrics.js"
import { StoreApiMetrics } from "./StoreApiMetrics.js"
import { WebhookMetricsLive } from "./WebhookMetrics.js"

/**
 * The metrics of one daemon on one registry of its own: POD requests (through
 * `withPodRequestMetrics`), store API calls (through `countStoreApiCalls`), webhook
 * deliveries (counted by the receiver, `WebhookMetrics.count`), and the gauges read from the database at each scrape.
 * Needs `StatusRepo`.
 */
export const ObservabilityLive = (storeKeys: ReadonlyArray<string>) =>
  Layer.mergeAll(PodRequestMetrics.Default, StoreApiMetrics.Default, WebhookMetricsLive(storeKeys), PipelineGaugesLive).pipe(
    Layer.provideMerge(MetricsRegistry.Default)
  )

/** The rate budget's gauges (use, waiters per lane, pause, counters) on the daemon's registry. */
export const BudgetMetricsLive = Layer.effectDiscard(
  Effect.flatMap(MetricsRegistry, (metrics) => registerRateBudgetMetrics(metrics.registry))
)
