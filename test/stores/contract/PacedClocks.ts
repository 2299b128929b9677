/**
 * What every pacing test shares: the connector's time is the TestClock, the
 * simulator's clock is a variable the test moves in lockstep (the simulator's
 * first, so a woken request finds its window moved or its bucket refilled),
 * and a real-time watch notices when the connector sleeps to pace itself.
 * No test waits for real seconds.
 */
import { Chunk, Effect, Fiber, Option, type Scope, Stream, TestClock } from "effect"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"

export const realPause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Requests time out after an hour of TestClock in pacing tests, so a sleep that far away is a request in flight, not pacing. */
export const requestTimeout = "1 hour"
const PACING_HORIZON_MS = 10 * 60 * 1000

/** A simulator whose clock the test owns, started at 2026-03-01T09:00:00Z. */
export const simulatorWithClock = <Sim>(start: (now: () => number) => Effect.Effect<Sim, never, Scope.Scope>) =>
  Effect.gen(function*() {
    let simTime = Date.UTC(2026, 2, 1, 9, 0, 0)
    const sim = yield* start(() => simTime)
    /** Moves both clocks forward by `ms`, the simulator's first. */
    const advance = (ms: number) =>
      Effect.suspend(() => {
        simTime += ms
        return TestClock.adjust(ms)
      })
    return { sim, advance }
  })

/**
 * Real-time wait until the connector fiber sleeps for pacing (or ends); returns the pacing wake-ups,
 * as TestClock times, or as waits from now when `relative`.
 */
export const untilPacingOrDone = (fiber: Fiber.RuntimeFiber<unknown, unknown>, relative = false) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1_000; i++) {
      const now = yield* TestClock.currentTimeMillis
      const pacing = Chunk.toReadonlyArray(yield* TestClock.sleeps()).filter((at) => at - now < PACING_HORIZON_MS)
      if (pacing.length > 0) return relative ? pacing.map((at) => at - now) : pacing
      if (Option.isSome(yield* Fiber.poll(fiber))) return []
      yield* realPause(5)
    }
    throw new Error("the connector neither slept nor finished")
  })

/**
 * Runs `connector`'s pull to its end, moving both clocks (`advance`) to each pacing wake-up as the
 * connector sleeps for it. Answers the pages, how many times it waited, and the TestClock time it began.
 */
export const pullPaced = (
  connector: StoreConnector,
  advance: (ms: number) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    const startedAt = yield* TestClock.currentTimeMillis
    const fiber = yield* Effect.fork(Stream.runCollect(connector.pull(null)))
    let waits = 0
    for (;;) {
      const sleeps = yield* untilPacingOrDone(fiber)
      if (sleeps.length === 0) break
      waits += 1
      yield* advance(Math.max(1, Math.min(...sleeps) - (yield* TestClock.currentTimeMillis)))
    }
    return { pages: Chunk.toReadonlyArray(yield* Fiber.join(fiber)), waits, startedAt }
  })
