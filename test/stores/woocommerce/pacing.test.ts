/**
 * Politeness and 429/503 backoff. The connector's time is TestClock; the simulator's clock (order
 * timestamps and its host rate limit) is moved in lockstep, so no test waits for real seconds.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Stream, TestClock } from "effect"
import { newBucket, pauseBucket, takeTokens } from "../../../src/domain/StoreBucket.js"
import { backoffMillis, politeShape, retryAfterMillis } from "../../../src/stores/woocommerce/WooPacing.js"
import { admin, connectTo, type Sim, startSimulator, stats, T0 } from "./harness.js"
import { realPause, requestTimeout, untilPacingOrDone as untilPacing } from "../contract/PacedClocks.js"

/** Real-time wait until the connector fiber sleeps for pacing (or ends); returns the waits from now. */
const untilPacingOrDone = (fiber: Fiber.RuntimeFiber<unknown, unknown>) => untilPacing(fiber, true)

/** Both clocks forward by `ms`; the simulator's first, so a woken request finds the window moved. */
const advance = (sim: Sim, ms: number) =>
  Effect.suspend(() => {
    sim.clock.now += ms
    return TestClock.adjust(ms)
  })

/** Lets the fiber run to its end, advancing both clocks to each wake-up; returns every wait it made. */
const driveToEnd = <A, E>(sim: Sim, fiber: Fiber.RuntimeFiber<A, E>) =>
  Effect.gen(function*() {
    const waits: Array<number> = []
    for (;;) {
      const sleeps = yield* untilPacingOrDone(fiber)
      if (sleeps.length === 0) break
      const wait = Math.min(...sleeps)
      waits.push(wait)
      yield* advance(sim, Math.max(1, wait))
    }
    return { value: yield* Fiber.join(fiber), waits }
  })

/** Both clocks at T0, a simulator with one order, and a connector whose requests time out after an hour. */
const anOrderAtT0 = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  const sim = yield* startSimulator()
  const order = yield* admin(sim, "POST", "orders", {})
  return { sim, order, connector: yield* connectTo(sim, { requestTimeout }) }
})

describe("WooCommerce pacing (pure)", () => {
  it("spaces requests, holds them during a pause, and reads Retry-After in seconds or as a date", () => {
    const spacing = politeShape(1_000)
    const [first, afterFirst] = takeTokens(newBucket(spacing, 5_000), 1, 5_000, spacing)
    expect(first.waitMs).toBe(0)
    expect(takeTokens(afterFirst, 1, 5_200, spacing)[0].waitMs).toBe(800)
    expect(takeTokens(pauseBucket(afterFirst, 6_800, 5_200), 1, 5_200, spacing)[0].waitMs).toBe(6_800)
    // At an interval of 0 nothing is spaced.
    const unspaced = politeShape(0)
    const [, once] = takeTokens(newBucket(unspaced, 5_000), 1, 5_000, unspaced)
    expect(takeTokens(once, 1, 5_000, unspaced)[0].waitMs).toBe(0)
    expect([1, 2, 3, 7, 12].map(backoffMillis)).toEqual([1_000, 2_000, 4_000, 60_000, 60_000])
    expect(retryAfterMillis("7", 0)).toBe(7_000)
    expect(retryAfterMillis("Mon, 02 Mar 2026 15:00:30 GMT", T0)).toBe(30_000)
    expect(retryAfterMillis("Mon, 02 Mar 2026 14:00:00 GMT", T0)).toBe(0)
    expect(retryAfterMillis("soon", 0)).toBeUndefined()
    expect(retryAfterMillis(undefined, 0)).toBeUndefined()
  })
})

describe("WooCommerce pacing against a host that allows one request a second", () => {
  it.scoped("spaces every request a second apart, so the host never refuses one", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0 + 600_000)
      const sim = yield* startSimulator({ rateLimit: { requests: 1, windowSeconds: 1, retryAfterSeconds: 1 } })
      yield* admin(sim, "POST", "orders/bulk", { count: 25, spacingSeconds: 1 })
      const connector = yield* connectTo(sim, { pageSize: 10, minRequestIntervalMs: 1000, requestTimeout })
      const fiber = yield* Effect.fork(
        Effect.zip(Stream.runCollect(connector.pull(null)), connector.getOrder(String((yield* admin(sim, "GET", "orders")).orders[0].id)))
      )
      const { value, waits } = yield* driveToEnd(sim, fiber)
      expect(Chunk.toReadonlyArray(value[0]).flatMap((p) => p.orders)).toHaveLength(25)
      expect(Option.isSome(value[1])).toBe(true)
      const s = yield* stats(sim)
      expect(s.rateLimited).toBe(0)
      expect(s.requests).toBe(4)
      expect(s.minGapMs).toBe(1000)
      expect(waits).toEqual([1000, 1000, 1000])
    }))

  it.scoped("after a 429 waits exactly Retry-After before sending anything, then succeeds", () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* anOrderAtT0
      yield* admin(sim, "POST", "faults", { operation: "orders.get", kind: "429", retryAfterSeconds: 7, count: 1 })
      const fiber = yield* Effect.fork(connector.getOrder(String(order.id)))
      expect(yield* untilPacingOrDone(fiber)).toEqual([7000])
      const refused = yield* stats(sim)
      expect(refused.rateLimited).toBe(1)
      yield* advance(sim, 6999)
      yield* realPause(50)
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      expect((yield* stats(sim)).requests).toBe(refused.requests)
      yield* advance(sim, 1)
      expect(Option.map(yield* Fiber.join(fiber), (o) => o.storeOrderId)).toEqual(Option.some(String(order.id)))
      expect((yield* stats(sim)).requests).toBe(refused.requests + 1)
    }))

  it.scoped("without Retry-After backs off 1 s, then 2 s; a write refused with 429 is sent again too", () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* anOrderAtT0
      yield* admin(sim, "POST", "faults", { operation: "notes.create", kind: "429", count: 2 })
      const fiber = yield* Effect.fork(connector.annotate(String(order.id), { note: "podsync was here" }))
      const { waits } = yield* driveToEnd(sim, fiber)
      expect(waits).toEqual([1000, 2000])
      const stored = yield* admin(sim, "GET", `orders/${order.id}`)
      expect(stored.notes.filter((n: { note: string }) => n.note === "podsync was here")).toHaveLength(1)
    }))

  it.scoped("retries a read after a 503, but reports a write refused with 503 as ambiguous and holds the next request", () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* anOrderAtT0
      yield* admin(sim, "POST", "faults", { operation: "orders.get", kind: "error5xx", status: 503, retryAfterSeconds: 3, count: 1 })
      const read = yield* driveToEnd(sim, yield* Effect.fork(connector.getOrder(String(order.id))))
      expect(read.waits).toEqual([3000])
      expect(Option.isSome(read.value)).toBe(true)

      yield* admin(sim, "POST", "faults", { operation: "orders.update", kind: "error5xx", status: 503, retryAfterSeconds: 5, count: 1 })
      const write = yield* Effect.flip(connector.annotate(String(order.id), { field: { key: "draft", value: "dft_1" } }))
      expect(write).toMatchObject({ _tag: "StoreUnavailableError", status: 503, ambiguous: true })
      // The store asked for five seconds: the next request waits for them.
      const next = yield* Effect.fork(connector.getOrder(String(order.id)))
      expect(yield* untilPacingOrDone(next)).toEqual([5000])
      yield* driveToEnd(sim, next)
    }))
})
