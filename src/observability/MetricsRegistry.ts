import { Cause, Effect, Ref } from "effect"
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client"

/**
 * The daemon's own prom-client registry (never the global default, so that a
 * test can run several daemons in one process). Figures that live in the
 * database are refreshed at scrape time by the effects given to `onScrape`;
 * everything else (counters, histograms) is recorded as it happens.
 */
export class MetricsRegistry extends Effect.Service<MetricsRegistry>()("podsync/MetricsRegistry", {
  effect: Effect.gen(function*() {
    const registry = new Registry()
    // Process figures (CPU, memory, event loop lag, GC) under their usual names.
    collectDefaultMetrics({ register: registry })
    const refreshers = yield* Ref.make<ReadonlyArray<Effect.Effect<void>>>([])

    /** Runs `refresh` before every scrape (all of them side by side); a failure is logged, never fails the scrape. */
    const onScrape = (name: string, refresh: Effect.Effect<void, unknown>) =>
      Ref.update(refreshers, (all) => [
        ...all,
        refresh.pipe(
          Effect.catchAllCause((cause) => Effect.logWarning(`metrics: ${name} could not be read for this scrape`, Cause.pretty(cause)))
        )
      ])

    /** The Prometheus text exposition of every metric, figures from the database read just now. */
    const scrape = Effect.gen(function*() {
      yield* Effect.all(yield* Ref.get(refreshers), { concurrency: "unbounded", discard: true })
      return yield* Effect.promise(() => registry.metrics())
    })

    // Metrics registered in this registry: a name, its help text and its labels (a histogram also its buckets).
    const counter = <L extends string>(name: string, help: string, labelNames: ReadonlyArray<L>) =>
      new Counter({ name, help, labelNames, registers: [registry] })
    const gauge = <L extends string>(name: string, help: string, labelNames: ReadonlyArray<L>) =>
      new Gauge({ name, help, labelNames, registers: [registry] })
    const histogram = <L extends string>(name: string, help: string, labelNames: ReadonlyArray<L>, buckets: Array<number>) =>
      new Histogram({ name, help, labelNames, buckets, registers: [registry] })

    return { registry, contentType: registry.contentType as string, onScrape, scrape, counter, gauge, histogram }
  })
}) {}

/** Sums counter values over every label but `keys`; rows sorted by those keys. */
export const sumBy = (
  values: ReadonlyArray<{ readonly labels: Partial<Record<string, string | number>>; readonly value: number }>,
  keys: readonly [string, string]
): ReadonlyArray<readonly [string, string, number]> => {
  const sums = new Map<string, readonly [string, string, number]>()
  for (const { labels, value } of values) {
    const a = String(labels[keys[0]] ?? "")
    const b = String(labels[keys[1]] ?? "")
    const id = JSON.stringify([a, b])
    sums.set(id, [a, b, (sums.get(id)?.[2] ?? 0) + value])
  }
  return [...sums.values()].sort((x, y) => x[0].localeCompare(y[0]) || x[1].localeCompare(y[1]))
}
