import { Effect, Ref } from "effect"
import type { Refusal, Trouble } from "../observability/DependencyHealth.js"

export interface ReadinessOptions {
  /** A store failing (unreachable, or refusing its credentials) this long makes the daemon unready; absent: never. */
  readonly unreadyAfterStoreFailsMinutes?: number | undefined
}

/**
 * Whether this process should receive traffic: false until start-up (migrations,
 * workers) is done, and false again as soon as shutdown begins, so a load
 * balancer stops sending webhooks before the server closes.
 */
export class Readiness extends Effect.Service<Readiness>()("podsync/Readiness", {
  effect: (options: ReadinessOptions = {}) =>
    Effect.gen(function*() {
      const ready = yield* Ref.make(false)
      return {
        isReady: Ref.get(ready),
        markReady: Ref.set(ready, true),
        markNotReady: Ref.set(ready, false),
        storeFailureLimitMs: options.unreadyAfterStoreFailsMinutes === undefined
          ? undefined
          : options.unreadyAfterStoreFailsMinutes * 60_000
      }
    })
}) {}

/** What /readyz answers, from what the daemon knows now. Pure. */
export const judgeReadiness = (input: {
  readonly ready: boolean
  readonly database: boolean
  readonly troubles: ReadonlyArray<Trouble>
  readonly refusals: ReadonlyArray<Refusal>
  readonly now: number
  readonly storeFailureLimitMs: number | undefined
}) => {
  const troubles = input.troubles.filter((t) => t.dependency === "database")
  const stores = [
    ...input.troubles.filter((t) => t.dependency.startsWith("store:")).map((t) => ({ ...t, why: "unreachable" })),
    ...input.refusals.filter((r) => r.dependency.startsWith("store:")).map((r) => ({ ...r, why: "credentials refused" }))
  ].map((t) => ({
    store: t.dependency.slice("store:".length),
    why: t.why,
    since: t.since.toISOString(),
    failingSeconds: Math.floor((input.now - t.since.getTime()) / 1000),
    message: t.message
  }))
  const limit = input.storeFailureLimitMs
  const storesTooLong = limit === undefined ? [] : stores.filter((s) => s.failingSeconds * 1000 >= limit)
  const ok = input.ready && input.database && troubles.length === 0 && storesTooLong.length === 0
  return {
    ok,
    body: {
      status: ok ? "ready" : "not ready",
      ready: input.ready,
      database: input.database,
      ...(troubles.length > 0
        ? {
          failing: troubles.map((t) => ({
            dependency: t.dependency,
            operation: t.operation,
            since: t.since.toISOString(),
            failures: t.failures,
            message: t.message
          }))
        }
        : {}),
      ...(stores.length > 0 ? { stores } : {}),
      ...(storesTooLong.length > 0
        ? { unreadyBecause: storesTooLong.map((s) => `store ${s.store}: ${s.why} for ${s.failingSeconds} s`) }
        : {})
    }
  }
}
