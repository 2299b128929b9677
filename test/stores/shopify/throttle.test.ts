/**
 * Cost-bucket pacing. The connector's time is TestClock; the simulator's
 * clock (timestamps and bucket refill) is a variable the test moves in
 * lockstep, so no test waits for real seconds.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, TestClock } from "effect"
import { levelAt, millisUntilAffordable, newBucket, observeReading } from "../../../src/domain/StoreBucket.js"
import { millisAfterThrottled, readingOf } from "../../../src/stores/shopify/ShopifyThrottle.js"
import { admin, connectTo, startSimulator, stats } from "./harness.js"
import { realPause, requestTimeout, simulatorWithClock as pacedSimulator, pullPaced, untilPacingOrDone } from "../contract/PacedClocks.js"

/** A simulator whose clock the test owns. */
const simulatorWithClock = (bucket: { maximumAvailable: number; restoreRate: number }) =>
  pacedSimulator((now) => startSimulator({ bucket, now }))

describe("Shopify cost-bucket pacing", () => {
  it("computes waits from throttleStatus, never from hard-coded limits", () => {
    // The documented example: requested 752, 666 available, restoring 50/s → 1.72 s.
    expect(millisAfterThrottled(752, { maximumAvailable: 1000, currentlyAvailable: 666, restoreRate: 50 })).toBe(1720)
    const unknown = newBucket(undefined, 10_000)
    const reading = observeReading(unknown, readingOf({ maximumAvailable: 2000, currentlyAvailable: 100, restoreRate: 100 }), 10_000)
    expect(levelAt(reading, 12_000)).toBe(300)
    expect(levelAt(reading, 60_000)).toBe(2000)
    expect(millisUntilAffordable(reading, 300, 12_000)).toBe(0)
    expect(millisUntilAffordable(reading, 622, 12_000)).toBe(3220)
    // A query larger than the bucket waits for a full bucket, not forever.
    expect(millisUntilAffordable(reading, 5000, 10_000)).toBe(19_000)
    // Before Shopify has said anything, nothing is assumed.
    expect(millisUntilAffordable(unknown, 5000, 10_000)).toBe(0)
  })

  it.scoped("after THROTTLED waits exactly (requested − available) / restoreRate, then succeeds", () =>
    Effect.gen(function*() {
      const { sim, advance } = yield* simulatorWithClock({ maximumAvailable: 1000, restoreRate: 50 })
      const created = yield* admin(sim, "POST", "orders", {})
      const connector = yield* connectTo(sim, { requestTimeout })
      yield* admin(sim, "POST", "bucket/drain")
      const before = yield* stats(sim)

      const fiber = yield* Effect.fork(connector.getOrder(created.legacyResourceId))
      const sleeps = yield* untilPacingOrDone(fiber)
      const afterThrottle = yield* stats(sim)
      expect(afterThrottle.throttled - before.throttled).toBe(1)
      // The order query asks for 62 points; the bucket holds 0 and restores 50/s: 1240 ms.
      expect(sleeps).toEqual([(yield* TestClock.currentTimeMillis) + 1240])

      yield* advance(1239)
      yield* realPause(50)
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      expect((yield* stats(sim)).requests).toBe(afterThrottle.requests)

      yield* advance(1)
      const order = yield* Fiber.join(fiber)
      expect(Option.map(order, (o) => o.storeOrderId)).toEqual(Option.some(created.legacyResourceId))
      const after = yield* stats(sim)
      expect(after.throttled - before.throttled).toBe(1)
      expect(after.requests - afterThrottle.requests).toBe(1)
    }))

  it.scoped("paces a long pull so that no request arrives while the bucket is short", () =>
    Effect.gen(function*() {
      const { sim, advance } = yield* simulatorWithClock({ maximumAvailable: 1000, restoreRate: 50 })
      yield* admin(sim, "POST", "orders/bulk", { count: 80 })
      const connector = yield* connectTo(sim, { pageSize: 10, requestTimeout })
      const { pages, startedAt, waits } = yield* pullPaced(connector, advance)
      expect(pages.flatMap((p) => p.orders)).toHaveLength(80)

      const after = yield* stats(sim)
      expect(after.requestsWhileShort).toBe(0)
      expect(after.throttled).toBe(0)
      // Each page asks 622 points of a 1000-point bucket: the connector had to wait, more than once.
      expect(waits).toBeGreaterThan(1)
      expect((yield* TestClock.currentTimeMillis) - startedAt).toBeGreaterThan(0)
    }))
})
