import { Clock, Duration, Effect, Fiber, TestClock } from "effect"
import { makeCredentialBudget } from "../../src/budget/CredentialBudget.js"
import type { Lane } from "../../src/budget/Lane.js"
import { makeInMemorySlotLedger } from "../../src/budget/InMemorySlotLedger.js"
import { effectiveLimit, type RateLimitSettings } from "../../src/budget/SlotLog.js"

/** One caller: asks for a slot at `at`, and the service answers after `latencyMs`. */
export interface Demand {
  readonly at: number
  readonly lane: Lane
  readonly store: string
  readonly latencyMs: number
  /** The service answers 429 with this Retry-After (seconds). */
  readonly rateLimitedFor?: number | undefined
}

export interface Served {
  readonly index: number
  readonly lane: Lane
  readonly store: string
  readonly requestedAt: number
  readonly sentAt: number
  readonly answeredAt: number
  /** Order in which slots were handed out. */
  readonly order: number
  readonly rateLimitedFor: number | undefined
}

/**
 * Runs the demand against an in-process budget under the TestClock, moving time forward until
 * every caller has been answered.
 */
export const serveDemand = (
  rateLimit: RateLimitSettings,
  demand: ReadonlyArray<Demand>,
  options: { readonly pauseJitterMs?: number; readonly startFull?: boolean } = {}
) =>
  Effect.scoped(
    Effect.gen(function*() {
      const ledger = yield* makeInMemorySlotLedger({
        limit: effectiveLimit(rateLimit),
        windowMs: rateLimit.windowSeconds * 1000,
        startFull: options.startFull ?? false
      })
      const budget = yield* makeCredentialBudget(ledger, {
        credential: "test",
        rateLimit,
        pauseJitterMs: options.pauseJitterMs ?? 0
      })
      const served: Array<Served> = []
      let nextOrder = 0
      const fibers = yield* Effect.forEach(demand, (d, index) =>
        Effect.fork(
          Effect.gen(function*() {
            yield* Effect.sleep(Duration.millis(d.at))
            const requestedAt = yield* Clock.currentTimeMillis
            yield* budget.withPermit({ lane: d.lane, storeKey: d.store }, (permit) =>
              Effect.gen(function*() {
                const order = nextOrder++
                yield* Effect.sleep(Duration.millis(d.latencyMs))
                if (d.rateLimitedFor !== undefined) {
                  yield* permit.answered(429)
                  yield* permit.rateLimited(Duration.seconds(d.rateLimitedFor))
                }
                const answeredAt = yield* Clock.currentTimeMillis
                served.push({
                  index,
                  lane: d.lane,
                  store: d.store,
                  requestedAt,
                  sentAt: permit.sentAt,
                  answeredAt,
                  order,
                  rateLimitedFor: d.rateLimitedFor
                })
              }))
          })
        ))
      const all = Fiber.joinAll(fibers)
      // Enough time for the slowest case; TestClock stops at each sleep on the way.
      let rounds = 0
      while (served.length < demand.length && rounds++ < 200) yield* TestClock.adjust(Duration.seconds(30))
      yield* all
      return { served: served.sort((a, b) => a.order - b.order), snapshot: yield* budget.snapshot }
    })
  )
