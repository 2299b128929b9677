import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Fiber, TestClock } from "effect"
import { makeCredentialBudget } from "../../src/budget/CredentialBudget.js"
import { makeInMemorySlotLedger } from "../../src/budget/InMemorySlotLedger.js"
import type { RateLimitSettings } from "../../src/budget/SlotLog.js"
import { type Demand, serveDemand } from "./demand.js"
import { mostArrivalsPossibleInWindow } from "./windowCheck.js"

const tenPerSecond: RateLimitSettings = { requests: 10, windowSeconds: 1, blockSeconds: 5, headroom: 0 }

const saturated = (count: number, latencyMs: number): Array<Demand> =>
  Array.from({ length: count }, (_, i) => ({
    at: 0,
    lane: i % 3 === 0 ? "urgent" : i % 3 === 1 ? "normal" : "background",
    store: `store-${i % 5}`,
    latencyMs
  }))

describe("the in-process rate budget, by example (TestClock)", () => {
  it.effect("under saturation costs only the round trip: L requests per (window + latency)", () =>
    Effect.gen(function*() {
      const { served } = yield* serveDemand(tenPerSecond, saturated(200, 100))
      // Slots cycle every 1000 ms window + 100 ms answer + 1 ms: 10 requests per 1.101 s.
      const firstSecond = served.filter((s) => s.sentAt < 1000)
      expect(firstSecond).toHaveLength(10)
      const last = served.at(-1)!
      expect(last.sentAt).toBe(19 * 1101)
      expect(mostArrivalsPossibleInWindow(served, 1000)).toBe(10)
    }))

  it.effect("keeps headroom: with headroom 0.2 only 8 of 10 requests go out per window", () =>
    Effect.gen(function*() {
      const { served } = yield* serveDemand({ ...tenPerSecond, headroom: 0.2 }, saturated(40, 50))
      expect(served.filter((s) => s.sentAt === 0)).toHaveLength(8)
      expect(mostArrivalsPossibleInWindow(served, 1000)).toBe(8)
    }))

  it.effect("after a restart treats the first window as full, since a predecessor may have spent it", () =>
    Effect.gen(function*() {
      const { served } = yield* serveDemand(tenPerSecond, saturated(3, 10), { startFull: true })
      expect(served.map((s) => s.sentAt)).toEqual([1001, 1001, 1001])
    }))

  it.effect("shows use, waiting callers per lane and the pause in its snapshot", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const rateLimit: RateLimitSettings = { requests: 2, windowSeconds: 1, blockSeconds: 30, headroom: 0 }
        const ledger = yield* makeInMemorySlotLedger({ limit: 2, windowMs: 1000, startFull: false })
        const budget = yield* makeCredentialBudget(ledger, { credential: "team-a", rateLimit, pauseJitterMs: 0 })
        const refused = yield* Effect.fork(
          budget.withPermit({ lane: "normal", storeKey: "a" }, (permit) =>
            Effect.sleep(Duration.millis(100)).pipe(Effect.zipRight(permit.rateLimited(undefined))))
        )
        yield* TestClock.adjust(Duration.millis(1))
        const waiting = yield* Effect.forEach(
          [{ lane: "background", storeKey: "a" }, { lane: "urgent", storeKey: "b" }, { lane: "urgent", storeKey: "c" }] as const,
          (ticket) =>
            Effect.fork(budget.withPermit(ticket, () => Effect.sleep(Duration.millis(10)))),
          { concurrency: "unbounded" }
        )
        yield* TestClock.adjust(Duration.millis(199))
        yield* Fiber.join(refused)
        const during = yield* budget.snapshot
        expect(during).toMatchObject({
          credential: "team-a",
          limit: 2,
          inUse: 2,
          inFlight: 0,
          waiting: { urgent: 1, normal: 0, background: 1 },
          sent: 2,
          rateLimited: 1,
          pauses: 1
        })
        // Paused for blockSeconds (no Retry-After) from the answer at 100 ms.
        expect(during.pausedUntil).toBe("1970-01-01T00:00:30.100Z")
        yield* TestClock.adjust(Duration.seconds(30))
        yield* Fiber.joinAll(waiting)
        const after = yield* budget.snapshot
        expect(after.pausedUntil).toBeNull()
        expect(after.waiting).toEqual({ urgent: 0, normal: 0, background: 0 })
        expect(after.sent).toBe(4)
      })
    ))

  it.effect("a caller that gives up while waiting leaves its turn to the next one", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const rateLimit: RateLimitSettings = { requests: 1, windowSeconds: 1, blockSeconds: 30, headroom: 0 }
        const ledger = yield* makeInMemorySlotLedger({ limit: 1, windowMs: 1000, startFull: false })
        const budget = yield* makeCredentialBudget(ledger, { credential: "t", rateLimit })
        const sentAt = (lane: "urgent" | "normal") => budget.withPermit({ lane }, () => Clock.currentTimeMillis)
        const first = yield* Effect.fork(sentAt("normal"))
        yield* TestClock.adjust(Duration.millis(1))
        const impatient = yield* Effect.fork(sentAt("urgent"))
        const patient = yield* Effect.fork(sentAt("normal"))
        yield* TestClock.adjust(Duration.millis(500))
        yield* Fiber.interrupt(impatient)
        yield* TestClock.adjust(Duration.seconds(2))
        expect(yield* Fiber.join(first)).toBe(0)
        expect(yield* Fiber.join(patient)).toBe(1001)
        expect((yield* budget.snapshot).sent).toBe(2)
      })
    ))
})
