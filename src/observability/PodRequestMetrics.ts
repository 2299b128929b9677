import { Clock, Effect, Layer, Option } from "effect"
import { PodRequestGate, type PodRequestGateShape, type PodRequestInfo, type PodRequestOutcome } from "../pod/PodRequestGate.js"
import { MetricsRegistry, sumBy } from "./MetricsRegistry.js"

/** The status label of a POD request: the HTTP status, or why there was no answer (`timeout`, `connect`, `reset`, `other`). */
export const outcomeStatus = (outcome: PodRequestOutcome): string => outcome._tag === "Answered" ? String(outcome.status) : outcome.reason

export interface PodRequestCount {
  readonly operation: string
  readonly status: string
  readonly count: number
}

const storeLabel = (info: PodRequestInfo) => info.storeKey ?? "none"

/**
 * Counters and timings of every POD request, recorded by `withPodRequestMetrics` around the
 * request gate: requests by operation, lane, store and status; 429s; how long each request
 * waited for the budget, per lane; how long the service took to answer.
 */
export class PodRequestMetrics extends Effect.Service<PodRequestMetrics>()("podsync/PodRequestMetrics", {
  effect: Effect.gen(function*() {
    const metrics = yield* MetricsRegistry
    const requests = metrics.counter(
      "podsync_pod_requests_total",
      "POD API requests sent, by operation, lane, store and status (HTTP status, or timeout/connect/reset/other)",
      ["operation", "lane", "store", "status"]
    )
    const rateLimited = metrics.counter("podsync_pod_rate_limited_total", "POD API requests answered 429, by operation and lane", [
      "operation",
      "lane"
    ])
    const waited = metrics.histogram(
      "podsync_pod_budget_wait_seconds",
      "Time a POD request waited for the rate budget before it was sent, per lane",
      ["lane"],
      [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]
    )
    const answered = metrics.histogram(
      "podsync_pod_request_duration_seconds",
      "Time from sending a POD request to its answer (or failure), by operation",
      ["operation"],
      [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
    )

    return {
      /** Counts one request's outcome; a 429 also counts as rate limited. */
      outcome: (info: PodRequestInfo, outcome: PodRequestOutcome) =>
        Effect.sync(() => {
          requests.inc({ operation: info.operation, lane: info.lane, store: storeLabel(info), status: outcomeStatus(outcome) })
          if (outcome._tag === "Answered" && outcome.status === 429) rateLimited.inc({ operation: info.operation, lane: info.lane })
        }),
      waited: (info: PodRequestInfo, ms: number) => Effect.sync(() => waited.observe({ lane: info.lane }, ms / 1000)),
      answered: (info: PodRequestInfo, ms: number) => Effect.sync(() => answered.observe({ operation: info.operation }, ms / 1000)),
      /** Requests so far by operation and status (all lanes and stores), for /status. */
      counts: Effect.promise(() => requests.get()).pipe(
        Effect.map((metric) =>
          sumBy(metric.values, ["operation", "status"]).map(([operation, status, count]) => ({ operation, status, count }))
        )
      )
    }
  })
}) {}

/** `gate` with every request's wait, duration and outcome recorded; it decides as before. */
export const instrumentPodRequestGate = (gate: PodRequestGateShape, metrics: PodRequestMetrics): PodRequestGateShape => ({
  around: (info, send) =>
    Effect.flatMap(Clock.currentTimeMillis, (asked) =>
      gate.around(
        info,
        Effect.gen(function*() {
          const sentAt = yield* Clock.currentTimeMillis
          yield* metrics.waited(info, sentAt - asked)
          return yield* send.pipe(
            Effect.ensuring(Effect.flatMap(Clock.currentTimeMillis, (now) => metrics.answered(info, now - sentAt)))
          )
        })
      )),
  report: (info, outcome) => Effect.zipRight(gate.report(info, outcome), metrics.outcome(info, outcome))
})

/**
 * Wraps a request gate layer (the rate budget's, usually) so that every POD request is
 * counted: `withPodRequestMetrics(RateBudgetGateLive)` in place of `RateBudgetGateLive`.
 * Counted when `PodRequestMetrics` is provided below it; without it (one-off CLI commands)
 * the gate is unchanged.
 */
export const withPodRequestMetrics = <E, R>(gate: Layer.Layer<PodRequestGate, E, R>): Layer.Layer<PodRequestGate, E, R> =>
  Layer.effect(
    PodRequestGate,
    Effect.gen(function*() {
      const inner = yield* PodRequestGate
      const metrics = yield* Effect.serviceOption(PodRequestMetrics)
      return Option.isSome(metrics) ? instrumentPodRequestGate(inner, metrics.value) : inner
    })
  ).pipe(Layer.provide(gate))
