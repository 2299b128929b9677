/**
 * The look-up stage's gather (StageLoop.gatherFor), on the TestClock: orders coming one by one wait a
 * moment to share a POD call, a whole batch or nothing due goes at once, and the wait never passes
 * its bound (a new database's 50 orders take one call when the pull stores them within it).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Ref, TestClock } from "effect"
import { gatherFor } from "../../src/pipeline/StageLoop.js"

/** A `due` count that reads the next of `counts` at each look (the last repeats), and how many looks were made. */
const dueOf = (counts: ReadonlyArray<number>) =>
  Effect.map(Ref.make(0), (looks) => ({
    due: Ref.getAndUpdate(looks, (n) => n + 1).pipe(Effect.map((n) => counts[Math.min(n, counts.length - 1)]!)),
    looks: Ref.get(looks)
  }))

describe("gathering due orders to share a call", () => {
  it.effect("goes at once when nothing is due or a whole batch is", () =>
    Effect.gen(function*() {
      for (const n of [0, 100, 130]) {
        const { due, looks } = yield* dueOf([n])
        const fiber = yield* Effect.fork(gatherFor("3 seconds", due, 100))
        yield* TestClock.adjust(0)
        expect(fiber.unsafePoll()).not.toBeNull()
        expect(yield* looks).toBe(1)
      }
    }))

  it.effect("waits while some are due, and goes the moment a whole batch is", () =>
    Effect.gen(function*() {
      const { due, looks } = yield* dueOf([1, 20, 60, 100])
      const fiber = yield* Effect.fork(gatherFor("3 seconds", due, 100))
      yield* TestClock.adjust(500)
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust(250)
      yield* Fiber.join(fiber)
      // Looked at 0, 250, 500 and 750 ms: the fourth look saw a whole batch.
      expect(yield* looks).toBe(4)
    }))

  it.effect("never waits past its bound while fewer than a batch stay due", () =>
    Effect.gen(function*() {
      const { due, looks } = yield* dueOf([50])
      const fiber = yield* Effect.fork(gatherFor("3 seconds", due, 100))
      yield* TestClock.adjust(2_999)
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust(1)
      yield* Fiber.join(fiber)
      expect(yield* looks).toBe(12)
    }))

  it.effect("a failing count ends the wait: the claim that follows meets the failure", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(gatherFor("3 seconds", Effect.fail("database busy"), 100))
      yield* TestClock.adjust(0)
      expect(fiber.unsafePoll()).not.toBeNull()
    }))
})
