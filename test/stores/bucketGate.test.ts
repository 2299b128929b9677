/**
 * The gate every connector waits in (stores/BucketGate.ts), on the TestClock. Issue #21: with
 * three replicas on one Shopify store, one replica's fulfilment read (770 points) waited for
 * minutes, asking again and again, while another replica's pull took its pages of 622 points
 * each time the bucket held them: a take that only ever asks is starved by smaller ones. A
 * caller that lost its turn reserves, and goes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, TestClock } from "effect"
import { makeBucketGate } from "../../src/stores/BucketGate.js"
import { makeInMemoryStoreBucket } from "../../src/stores/InMemoryStoreBucket.js"

// Shopify's Standard bucket.
const shape = { capacity: 2_000, restorePerSecond: 100 }

describe("the store bucket gate", () => {
  it.effect("serves a large request that lost its turn before the smaller ones asked after it", () =>
    Effect.gen(function*() {
      // One bucket shared by two replicas' gates (in production the database's).
      const bucket = makeInMemoryStoreBucket(shape)
      const puller = yield* makeBucketGate(bucket)
      const fulfiller = yield* makeBucketGate(bucket)
      yield* puller.acquire(1_900)
      const pages: Array<number> = []
      // The pull takes page after page, as a pull on a short schedule does.
      const pull = yield* Effect.fork(Effect.forever(Effect.flatMap(puller.acquire(622), () =>
        Effect.flatMap(TestClock.currentTimeMillis, (now) => Effect.sync(() => pages.push(now))))))
      const read = yield* Effect.fork(Effect.zipRight(fulfiller.acquire(770), TestClock.currentTimeMillis))
      // The read wants 6.7 s of refill; the page before it took the bucket at 5.2 s, so the read asks
      // again at 6.7 s, finds 148 points, and reserves: it goes at 12.9 s, the next page after it.
      for (let second = 0; second < 30; second++) {
        yield* TestClock.adjust(1_000)
      }
      const done = yield* Fiber.poll(read)
      // Starved, it would still be asking.
      expect(Option.isSome(done)).toBe(true)
      const readAt = yield* Fiber.join(read)
      expect(readAt).toBeGreaterThanOrEqual(12_900)
      expect(readAt).toBeLessThanOrEqual(13_000)
      expect(pages[0]).toBe(5_220)
      expect(pages[1]).toBeGreaterThan(readAt)
      // Meanwhile the bucket was never overspent: 1,900 + 770 + 622 × pages within what 30 s refill.
      expect(1_900 + 770 + 622 * pages.length).toBeLessThanOrEqual(2_000 + 100 * 30)
      yield* Fiber.interrupt(pull)
    }))

  it.effect("holds a reserved request for a pause that came while it waited", () =>
    Effect.gen(function*() {
      const bucket = makeInMemoryStoreBucket({ capacity: 10, restorePerSecond: 1 })
      const gate = yield* makeBucketGate(bucket)
      yield* gate.acquire(10)
      // Asks at 0 s (5 s to wait); another replica takes 2 at 2 s; asked again at 5 s, it reserves, to go at 7 s.
      const request = yield* Effect.fork(Effect.zipRight(gate.acquire(5), TestClock.currentTimeMillis))
      yield* TestClock.adjust(2_000)
      expect((yield* bucket.take(2)).taken).toBe(true)
      yield* TestClock.adjust(4_000)
      // At 6 s a 429 at another replica holds everyone for 10 s.
      yield* bucket.pause(10_000)
      for (let second = 0; second < 20; second++) yield* TestClock.adjust(1_000)
      expect(yield* Fiber.join(request)).toBe(16_000)
    }))
})
