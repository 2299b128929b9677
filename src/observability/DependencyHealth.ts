import { Cause, Clock, Effect, Option, Ref, Stream, SubscriptionRef } from "effect"
import { MetricsRegistry } from "./MetricsRegistry.js"

/**
 * What the daemon depends on: `database`, `pod` (the POD service), `store:<key>` (a store's API).
 * Each is up until a round trip to it fails, and down until one succeeds again.
 */
export type Dependency = "database" | "pod" | `store:${string}`

/** The store API dependency of a store. */
export const storeDependency = (storeKey: string): Dependency => `store:${storeKey}`

/** The entry of `key` taken out of `all`: [what it was, the rest]; `all` itself when it has none. */
const without = <V>(all: ReadonlyMap<Dependency, V>, key: Dependency): [V | undefined, ReadonlyMap<Dependency, V>] => {
  const entry = all.get(key)
  if (entry === undefined) return [undefined, all]
  const rest = new Map(all)
  rest.delete(key)
  return [entry, rest]
}

const orders = (n: number) => `${n} order${n === 1 ? "" : "s"}`

/** How a dependency is named to a person. */
export const dependencyLabel = (dependency: string): string =>
  dependency === "pod" ? "POD service" : dependency.startsWith("store:") ? `store ${dependency.slice("store:".length)}` : dependency

/** A dependency failing right now: since when, how often, what it last said, and how many orders wait for it. */
export interface Trouble {
  readonly dependency: Dependency
  readonly operation: string
  readonly since: Date
  readonly failures: number
  readonly message: string
  /** Orders waiting for it when it went down (null when nothing counts them). */
  readonly waiting: number | null
}

/**
 * A service that answers but refuses podsync's credentials (401 or 403): nothing it is asked
 * will work until a person fixes the key or token, so it is said apart from an outage.
 */
export interface Refusal {
  readonly dependency: Dependency
  readonly operation: string
  readonly since: Date
  /** What it answered: `HTTP 401`. */
  readonly message: string
}

/**
 * Failures of what the daemon depends on, seen instead of swallowed (STYLE.md, 13). One log
 * line when a dependency goes away ("… unreachable since …; N orders waiting") and one when it
 * is back ("… back after …; draining N orders"), not one per failure (those are at debug
 * level); each failure counted in /metrics, `podsync_dependency_up` 0 while it lasts, /readyz
 * and /status say which and since when. The loops report every round trip (`watchDatabase`; the
 * POD request gate and the store API clients report theirs); the first success after a failure
 * clears the trouble. Loops that can do nothing while a dependency is down wait for it
 * (`awaitUp`) while a probe asks it cheaply (the pipeline's DependencyProbes).
 */
export class DependencyHealth extends Effect.Service<DependencyHealth>()("podsync/DependencyHealth", {
  effect: Effect.gen(function*() {
    const troubles = yield* SubscriptionRef.make<ReadonlyMap<Dependency, Trouble>>(new Map())
    const refusals = yield* Ref.make<ReadonlyMap<Dependency, Refusal>>(new Map())
    const counters = yield* Ref.make<ReadonlyMap<Dependency, Effect.Effect<number, unknown>>>(new Map())
    const registry = yield* Effect.serviceOption(MetricsRegistry)
    const metrics = Option.map(registry, (m) => ({
      errors: m.counter(
        "podsync_dependency_errors_total",
        "Failed round trips to a dependency (database, pod, store:<key>), by dependency and operation",
        [
          "dependency",
          "operation"
        ]
      ),
      up: m.gauge("podsync_dependency_up", "1 while the dependency answers, 0 from its first failure until it answers again", [
        "dependency"
      ]),
      since: m.gauge(
        "podsync_dependency_down_since_seconds",
        "Unix time at which the dependency stopped answering; 0 while it answers",
        ["dependency"]
      ),
      refused: m.gauge(
        "podsync_dependency_credentials_refused",
        "1 while the dependency refuses podsync's credentials (its last answer to them was 401 or 403), else 0",
        ["dependency"]
      ),
      waiting: m.gauge(
        "podsync_dependency_waiting_orders",
        "Orders waiting for the dependency, counted when it went down and when it came back",
        [
          "dependency"
        ]
      )
    }))
    const metric = (f: (m: Option.Option.Value<typeof metrics>) => void) => Option.map(metrics, f)
    metric((m) => {
      m.up.set({ dependency: "database" }, 1)
      m.since.set({ dependency: "database" }, 0)
    })

    /** The orders waiting for `dependency`, when something counts them; a failing count says nothing. */
    const waitingFor = (dependency: Dependency) =>
      Effect.flatMap(Ref.get(counters), (all) => {
        const count = all.get(dependency)
        return count === undefined ? Effect.succeed(null) : count.pipe(Effect.orElseSucceed(() => null))
      })

    /** One failed round trip: counted; the first of an episode is logged with its cause and how many orders wait. */
    const failed = (dependency: Dependency, operation: string, cause: Cause.Cause<unknown> | string) =>
      // Uninterruptible: whoever waits for the change may interrupt the caller before its line is written.
      Effect.uninterruptible(Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        const message = typeof cause === "string" ? cause : Cause.pretty(cause).split("\n")[0] ?? "failed"
        const previous = (yield* SubscriptionRef.get(troubles)).get(dependency)
        // Counting the waiting orders needs the database: not when the database is the one failing.
        const waiting = previous !== undefined ? previous.waiting : dependency === "database" ? null : yield* waitingFor(dependency)
        const trouble = yield* SubscriptionRef.modify(troubles, (all) => {
          const before = all.get(dependency)
          const next: Trouble = {
            dependency,
            operation,
            since: before?.since ?? now,
            failures: (before?.failures ?? 0) + 1,
            message,
            waiting: before?.waiting ?? waiting
          }
          return [next, new Map(all).set(dependency, next)]
        })
        metric((m) => {
          m.errors.inc({ dependency, operation })
          m.up.set({ dependency }, 0)
          m.since.set({ dependency }, Math.floor(trouble.since.getTime() / 1000))
          if (trouble.waiting !== null) m.waiting.set({ dependency }, trouble.waiting)
        })
        const annotations = { dependency, operation, failures: trouble.failures, since: trouble.since.toISOString() }
        if (trouble.failures > 1) {
          return yield* Effect.logDebug(`${dependency} failed again during ${operation}: ${message}`).pipe(Effect.annotateLogs(annotations))
        }
        const waitingText = trouble.waiting === null ? "" : `; ${orders(trouble.waiting)} waiting`
        yield* Effect.logError(
          `${
            dependencyLabel(dependency)
          } unreachable since ${trouble.since.toISOString()}${waitingText} (${operation} failed: ${message}); retrying with backoff`,
          ...(typeof cause === "string" ? [] : [cause])
        ).pipe(Effect.annotateLogs(annotations))
      }))

    /** A successful round trip: clears the dependency's trouble, if it had one, and says so once. */
    const succeeded = (dependency: Dependency) =>
      Effect.uninterruptible(Effect.gen(function*() {
        // The common case (nothing was wrong) reads one reference and writes nothing.
        if (!(yield* SubscriptionRef.get(troubles)).has(dependency)) {
          metric((m) => m.up.set({ dependency }, 1))
          return
        }
        const cleared = yield* SubscriptionRef.modify(troubles, (all) => without(all, dependency))
        if (cleared === undefined) return
        const seconds = Math.round(((yield* Clock.currentTimeMillis) - cleared.since.getTime()) / 1000)
        const waiting = yield* waitingFor(dependency)
        metric((m) => {
          m.up.set({ dependency }, 1)
          m.since.set({ dependency }, 0)
          if (waiting !== null) m.waiting.set({ dependency }, waiting)
        })
        yield* Effect.logInfo(
          `${dependencyLabel(dependency)} back after ${seconds} s (${cleared.failures} failed attempt(s))${
            waiting === null ? "" : `; draining ${orders(waiting)}`
          }`
        ).pipe(Effect.annotateLogs({ dependency, failures: cleared.failures, downSeconds: seconds }))
      }))

    /** An answer refusing the credentials (401, 403): said once per episode, with what to fix. */
    const refused = (dependency: Dependency, operation: string, message: string) =>
      Effect.uninterruptible(Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        const first = yield* Ref.modify(refusals, (all) => {
          const before = all.get(dependency)
          return [before === undefined, new Map(all).set(dependency, { dependency, operation, since: before?.since ?? now, message })]
        })
        metric((m) => m.refused.set({ dependency }, 1))
        if (!first) return
        yield* Effect.logError(
          `${dependencyLabel(dependency)} refuses podsync's credentials (${message} on ${operation}): ${
            dependency === "pod"
              ? "check pod.clientKey, pod.clientSecret and pod.authHeaders"
              : "check the store's access token or API keys"
          }; nothing that needs it can be done until they are fixed`
        ).pipe(Effect.annotateLogs({ dependency, operation }))
      }))

    /** An answer that took the credentials (anything but 401 or 403): clears a refusal, saying so once. */
    const accepted = (dependency: Dependency) =>
      Effect.uninterruptible(Effect.gen(function*() {
        if (!(yield* Ref.get(refusals)).has(dependency)) return
        const cleared = yield* Ref.modify(refusals, (all) => without(all, dependency))
        if (cleared === undefined) return
        metric((m) => m.refused.set({ dependency }, 0))
        yield* Effect.logInfo(`${dependencyLabel(dependency)} accepts podsync's credentials again`).pipe(
          Effect.annotateLogs({ dependency })
        )
      }))

    /** Counts the orders waiting for a dependency that is down again (the probe does, each time it asks). */
    const refreshWaiting = (dependency: Dependency) =>
      Effect.gen(function*() {
        const waiting = yield* waitingFor(dependency)
        if (waiting === null) return
        yield* SubscriptionRef.update(troubles, (all) => {
          const trouble = all.get(dependency)
          return trouble === undefined ? all : new Map(all).set(dependency, { ...trouble, waiting })
        })
        metric((m) => m.waiting.set({ dependency }, waiting))
      })

    /** What counts the orders waiting for a dependency (for the log lines, /status and /metrics). */
    const countWaiting = (dependency: Dependency, count: Effect.Effect<number, unknown>) =>
      Ref.update(counters, (all) => new Map(all).set(dependency, count)).pipe(
        Effect.zipRight(Effect.sync(() => metric((m) => m.up.set({ dependency }, 1))))
      )

    const isDown = (dependency: Dependency) => Effect.map(SubscriptionRef.get(troubles), (all) => all.has(dependency))

    /** Completes at once while the dependency is up, else as soon as a round trip to it succeeds. */
    const awaitUp = (dependency: Dependency): Effect.Effect<void> =>
      troubles.changes.pipe(Stream.filter((all) => !all.has(dependency)), Stream.take(1), Stream.runDrain)

    /** Completes when the dependency goes down (at once if it is). */
    const awaitDown = (dependency: Dependency): Effect.Effect<void> =>
      troubles.changes.pipe(Stream.filter((all) => all.has(dependency)), Stream.take(1), Stream.runDrain)

    return {
      failed,
      succeeded,
      refused,
      accepted,
      /** The dependencies refusing the credentials now. */
      refusals: Effect.map(Ref.get(refusals), (all) => [...all.values()]),
      countWaiting,
      refreshWaiting,
      isDown,
      awaitUp,
      awaitDown,
      troubles: Effect.map(SubscriptionRef.get(troubles), (all) => [...all.values()])
    }
  })
}) {}

/** Runs a database round trip of a loop, reporting its outcome to the daemon's health (when there is one). */
export const watchDatabase = <A, E, R>(operation: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.serviceOption(DependencyHealth), (health) =>
    Option.isNone(health) ? effect : effect.pipe(
      Effect.tapErrorCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : health.value.failed("database", operation, cause))),
      Effect.tap(() => health.value.succeeded("database"))
    ))

/** Runs an effect while `dependency` is up: waits first while it is down (when the daemon's health is there). */
export const whenUp = (dependency: Dependency): Effect.Effect<void> =>
  Effect.flatMap(
    Effect.serviceOption(DependencyHealth),
    (health) => (Option.isNone(health) ? Effect.void : health.value.awaitUp(dependency))
  )

/**
 * Runs `effect` unless `dependency` is down: then skips it with a debug line (its probe and the
 * log line of the outage already say what is wrong; the next turn runs it). For scheduled work
 * that only talks to that dependency, so an outage does not log one failure per tick.
 */
export const unlessDown = <E, R>(dependency: Dependency, what: string, effect: Effect.Effect<void, E, R>): Effect.Effect<void, E, R> =>
  Effect.flatMap(Effect.serviceOption(DependencyHealth), (health) =>
    Option.isNone(health)
      ? effect
      : Effect.flatMap(health.value.isDown(dependency), (down) =>
        down ? Effect.logDebug(`${what} skipped: ${dependencyLabel(dependency)} is unreachable`) : effect))

/** The dependency a failure says is unreachable: the database, the POD service (5xx, no answer), a store (unavailable). */
const unreachableIn = (failure: unknown): Dependency | undefined => {
  if (typeof failure !== "object" || failure === null || !("_tag" in failure)) return undefined
  switch (failure._tag) {
    case "DbError":
      return "database"
    case "PodServerError":
    case "PodTransportError":
      return "pod"
    case "StoreUnavailableError":
      return "storeKey" in failure && typeof failure.storeKey === "string" ? storeDependency(failure.storeKey) : undefined
    default:
      return undefined
  }
}

/**
 * Logs a failure at error level, unless it is a dependency failing that the daemon already
 * knows is down: that was said once when it went away, and is counted; the line is then at debug
 * level, so an outage does not log one failure per loop turn or per tick.
 */
export const logFailure = (message: string, cause: Cause.Cause<unknown>): Effect.Effect<void> =>
  Effect.gen(function*() {
    const health = yield* Effect.serviceOption(DependencyHealth)
    const dependencies = [...Cause.failures(cause)].map(unreachableIn)
    let known = Option.isSome(health) && dependencies.length > 0
    for (const dependency of dependencies) {
      if (!known || Option.isNone(health)) break
      known = dependency !== undefined && (yield* health.value.isDown(dependency))
    }
    yield* (known ? Effect.logDebug(message, cause) : Effect.logError(message, cause))
  })
