import { Cause, Clock, Effect, Option, Ref } from "effect"
import { MetricsRegistry } from "./MetricsRegistry.js"

/** A dependency failing right now: since when, how often, and what it last said. */
export interface Trouble {
  readonly dependency: string
  readonly operation: string
  readonly since: Date
  readonly failures: number
  readonly message: string
}

/**
 * Failures of what the daemon depends on (the database first), seen instead of swallowed
 * (STYLE.md, 13): each is logged with its cause and counted in /metrics, and while one persists
 * /readyz says so. The loops report every failed and every successful round trip; the first
 * success after a failure clears the trouble and says how long it lasted.
 */
export class DependencyHealth extends Effect.Service<DependencyHealth>()("podsync/DependencyHealth", {
  effect: Effect.gen(function*() {
    const troubles = yield* Ref.make<ReadonlyMap<string, Trouble>>(new Map())
    const registry = yield* Effect.serviceOption(MetricsRegistry)
    const errors = Option.map(
      registry,
      (metrics) =>
        metrics.counter("podsync_dependency_errors_total", "Failed round trips to a dependency (database), by dependency and operation", [
          "dependency",
          "operation"
        ])
    )
    const up = Option.map(
      registry,
      (metrics) =>
        metrics.gauge("podsync_dependency_up", "1 while the dependency answers the daemon's loops, 0 while its failures persist", [
          "dependency"
        ])
    )
    Option.map(up, (gauge) => gauge.set({ dependency: "database" }, 1))

    /** One failed round trip: logged with its cause, counted, and remembered until a success clears it. */
    const failed = (dependency: string, operation: string, cause: Cause.Cause<unknown>) =>
      Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        const message = Cause.pretty(cause).split("\n")[0] ?? "failed"
        const next = yield* Ref.modify(troubles, (all) => {
          const previous = all.get(dependency)
          const trouble: Trouble = {
            dependency,
            operation,
            since: previous?.since ?? now,
            failures: (previous?.failures ?? 0) + 1,
            message
          }
          return [trouble, new Map(all).set(dependency, trouble)]
        })
        Option.map(errors, (counter) => counter.inc({ dependency, operation }))
        Option.map(up, (gauge) => gauge.set({ dependency }, 0))
        yield* Effect.logError(`${dependency} failed during ${operation}; retrying with backoff`, cause).pipe(
          Effect.annotateLogs({ dependency, operation, failures: next.failures, since: next.since.toISOString() })
        )
      })

    /** A successful round trip: clears the dependency's trouble, if it had one, and says so. */
    const succeeded = (dependency: string) =>
      Effect.gen(function*() {
        const cleared = yield* Ref.modify(troubles, (all) => {
          const trouble = all.get(dependency)
          if (trouble === undefined) return [undefined, all]
          const rest = new Map(all)
          rest.delete(dependency)
          return [trouble, rest]
        })
        if (cleared === undefined) return
        Option.map(up, (gauge) => gauge.set({ dependency }, 1))
        const seconds = Math.round(((yield* Clock.currentTimeMillis) - cleared.since.getTime()) / 1000)
        yield* Effect.logInfo(`${dependency} is back after ${cleared.failures} failed attempt(s) over ${seconds} s`).pipe(
          Effect.annotateLogs({ dependency })
        )
      })

    return { failed, succeeded, troubles: Effect.map(Ref.get(troubles), (all) => [...all.values()]) }
  })
}) {}

/** Runs a database round trip of a loop, reporting its outcome to the daemon's health (when there is one). */
export const watchDatabase = <A, E, R>(operation: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.serviceOption(DependencyHealth), (health) =>
    Option.isNone(health) ? effect : effect.pipe(
      Effect.tapErrorCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : health.value.failed("database", operation, cause))),
      Effect.tap(() => health.value.succeeded("database"))
    ))
