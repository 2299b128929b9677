/**
 * Pacing and 429 handling. The connector's time is TestClock; the simulator's
 * clock (its rate-limit window) is a variable the test moves in lockstep, so
 * no test waits for real seconds.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Stream, TestClock } from "effect"
import { makeRequestGate } from "../../../src/stores/jsonfeed/JsonFeedGate.js"
import { retryAfterMillis } from "../../../src/stores/jsonfeed/JsonFeedHttp.js"
import type { JsonFeedSimulatorOptions } from "../../../src/simulator/jsonfeed/index.js"
import { admin, connectTo, type SimOrder, startSimulator, stats } from "./harness.js"
import { realPause, requestTimeout, simulatorWithClock as pacedSimulator, pullPaced, untilPacingOrDone } from "../contract/PacedClocks.js"

/** A simulator whose clock the test owns. */
const simulatorWithClock = (options: JsonFeedSimulatorOptions = {}) => pacedSimulator((now) => startSimulator({ ...options, now }))

/** A simulator whose clock the test owns, one order on it, and a connector whose requests time out after an hour. */
const anOrderPaced = Effect.gen(function*() {
  const { sim, advance } = yield* simulatorWithClock()
  const order = yield* admin<SimOrder>(sim, "POST", "orders", {})
  return { sim, advance, order, connector: yield* connectTo(sim, { requestTimeout }) }
})

/**
 * A storefront that answers 5 requests per `windowSeconds`, with `count` orders, its clock moved on a
 * second (a walk covers orders updated strictly before it started, and the simulator's clock is frozen),
 * and a connector paging as `options` say.
 */
const ordersBehindALimit = (windowSeconds: number, count: number, options: { pageSize: number; requestsPerSecond: number }) =>
  Effect.gen(function*() {
    const { sim, advance } = yield* simulatorWithClock({ rateLimit: { requests: 5, windowSeconds } })
    yield* admin(sim, "POST", "orders/bulk", { count })
    yield* admin(sim, "POST", "clock/advance", { seconds: 1 })
    return { sim, advance, connector: yield* connectTo(sim, { ...options, requestTimeout }) }
  })

describe("JSON feed pacing", () => {
  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.UTC(2026, 2, 1, 9, 0, 0)
    expect(retryAfterMillis("7", now)).toBe(7000)
    expect(retryAfterMillis("1.5", now)).toBe(1500)
    expect(retryAfterMillis("Sun, 01 Mar 2026 09:00:30 GMT", now)).toBe(30_000)
    expect(retryAfterMillis("Sun, 01 Mar 2026 08:59:00 GMT", now)).toBe(0)
    expect(retryAfterMillis(undefined, now)).toBe(1000)
    expect(retryAfterMillis("soon", now)).toBe(1000)
  })

  it.effect("spaces requests evenly and lets a pause hold back a caller already waiting", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate(4)
      const sent: Array<number> = []
      const send = Effect.zipRight(gate.acquire, Effect.flatMap(TestClock.currentTimeMillis, (t) => Effect.sync(() => sent.push(t))))
      const fiber = yield* Effect.fork(Effect.all([send, send, send], { concurrency: "unbounded" }))
      yield* TestClock.adjust(100)
      // A 429 answered meanwhile: nobody sends for 2 s from now, the caller already queued included.
      yield* gate.pauseFor(2000)
      yield* TestClock.adjust(5000)
      yield* Fiber.join(fiber)
      expect(sent).toEqual([0, 2100, 2350])
    }))

  it.scoped("after a 429 waits exactly Retry-After, sends nothing meanwhile, then succeeds", () =>
    Effect.gen(function*() {
      const { sim, advance, order, connector } = yield* anOrderPaced
      yield* admin(sim, "POST", "faults", { operation: "getOrder", kind: "rateLimit", retryAfterSeconds: 7, count: 1 })

      const fiber = yield* Effect.fork(connector.getOrder(order.id))
      const sleeps = yield* untilPacingOrDone(fiber)
      expect(sleeps).toEqual([(yield* TestClock.currentTimeMillis) + 7000])
      const refused = yield* stats(sim)
      expect(refused.faultsInjected["rateLimit"]).toBe(1)

      // A second caller arriving during the pause waits for it too.
      const other = yield* Effect.fork(connector.getOrder(order.id))
      yield* advance(6999)
      yield* realPause(50)
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      expect((yield* stats(sim)).requests).toBe(refused.requests)

      yield* advance(1)
      expect(Option.map(yield* Fiber.join(fiber), (o) => o.storeOrderId)).toEqual(Option.some(order.id))
      expect(Option.isSome(yield* Fiber.join(other))).toBe(true)
      expect((yield* stats(sim)).requestsByOperation["getOrder"]).toBe(3)
    }))

  it.scoped("does not sit out a Retry-After over a minute: fails at once, and sends nothing until it has passed", () =>
    Effect.gen(function*() {
      const { sim, advance, order, connector } = yield* anOrderPaced
      yield* admin(sim, "POST", "faults", { operation: "getOrder", kind: "429", retryAfterSeconds: 120, count: 1 })

      const first = yield* Effect.flip(connector.getOrder(order.id))
      expect(first).toMatchObject({ _tag: "StoreUnavailableError", status: 429, ambiguous: false })
      const sent = (yield* stats(sim)).requests
      yield* advance(59_000)
      const second = yield* Effect.flip(connector.getOrder(order.id))
      expect(second).toMatchObject({ _tag: "StoreUnavailableError", status: 429, ambiguous: false })
      expect(second.message).toContain("nothing was sent")
      expect((yield* stats(sim)).requests).toBe(sent)

      yield* advance(61_000)
      expect(Option.isSome(yield* connector.getOrder(order.id))).toBe(true)
    }))

  it.scoped("paced at the storefront's rate, a long pull never hits its limit", () =>
    Effect.gen(function*() {
      const { sim, advance, connector } = yield* ordersBehindALimit(1, 48, { pageSize: 4, requestsPerSecond: 5 })
      const { pages, startedAt } = yield* pullPaced(connector, advance)
      expect(pages.flatMap((p) => p.orders)).toHaveLength(48)
      const after = yield* stats(sim)
      expect(after.rateLimited).toBe(0)
      expect(after.requestsByOperation["listOrders"]).toBe(12)
      // Twelve requests, 200 ms apart.
      expect((yield* TestClock.currentTimeMillis) - startedAt).toBe(11 * 200)
    }))

  it.scoped("unpaced, it is refused by the storefront's limit and recovers by obeying Retry-After", () =>
    Effect.gen(function*() {
      const { sim, advance, connector } = yield* ordersBehindALimit(2, 33, { pageSize: 3, requestsPerSecond: 0 })
      const fiber = yield* Effect.fork(Stream.runCollect(connector.pull(null)))
      const waits: Array<number> = []
      for (;;) {
        const sleeps = yield* untilPacingOrDone(fiber)
        if (sleeps.length === 0) break
        const wait = Math.min(...sleeps) - (yield* TestClock.currentTimeMillis)
        waits.push(wait)
        yield* advance(Math.max(1, wait))
      }
      expect(Chunk.toReadonlyArray(yield* Fiber.join(fiber)).flatMap((p) => p.orders)).toHaveLength(33)
      const after = yield* stats(sim)
      // Eleven pages at five per two seconds: refused twice, each time waiting the 2 s the storefront asked.
      expect(after.rateLimited).toBe(2)
      expect(waits).toEqual([2000, 2000])
      expect(after.requestsByOperation["listOrders"]).toBe(11)
    }))
})
