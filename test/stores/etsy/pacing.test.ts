/**
 * Quota pacing and 429 handling. The connector's time is TestClock; the
 * simulator's clock (timestamps, token lifetimes, quota windows) is a
 * variable the test moves in lockstep, so no test waits for real seconds.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, Stream, TestClock } from "effect"
import { dayRefusal, millisUntilSlot, readQuotaHeaders } from "../../../src/stores/etsy/EtsyQuota.js"
import { admin, connectTo, type SimReceipt, startSimulator, stats } from "./harness.js"
import { realPause, requestTimeout, simulatorWithClock as pacedSimulator, pullPaced, untilPacingOrDone } from "../contract/PacedClocks.js"

/** A simulator whose clock the test owns. */
const simulatorWithClock = (options: Parameters<typeof startSimulator>[0] = {}) =>
  pacedSimulator((now) => startSimulator({ now, ...options }))

describe("Etsy quota pacing (pure parts)", () => {
  it("holds each slot until a second after its answer, and reads the limits from the headers", () => {
    const slots = [
      { id: 1, sentAt: 0, doneAt: 100 },
      { id: 2, sentAt: 50, doneAt: 300 },
      { id: 3, sentAt: 60, doneAt: null }
    ]
    expect(millisUntilSlot(slots, 4, 200)).toBe(0)
    expect(millisUntilSlot(slots, 3, 200)).toBe(900)
    expect(millisUntilSlot(slots, 2, 200)).toBe(1100)
    expect(millisUntilSlot(slots, 3, 1100)).toBe(0)
    expect(millisUntilSlot(slots, 1, 1400)).toBe("in_flight")
    expect(
      readQuotaHeaders({
        "x-limit-per-second": "150",
        "x-remaining-this-second": "149",
        "x-limit-per-day": "100000",
        "x-remaining-today": "99881"
      })
    )
      .toEqual({ perSecond: 150, remainingThisSecond: 149, perDay: 100000, remainingToday: 99881 })
    expect(readQuotaHeaders({ "x-remaining-today": "soon" })).toEqual({})
  })

  it("keeps the end of the daily quota for pushes, and trusts a reading for a minute only", () => {
    const low = { limit: 10_000, remaining: 80, atMillis: 0 }
    expect(dayRefusal(low, "pull", 100, 1_000)).toContain("kept for tracking pushes")
    expect(dayRefusal(low, "other", 100, 1_000)).toBeUndefined()
    expect(dayRefusal({ ...low, remaining: 0 }, "other", 100, 1_000)).toContain("daily quota is spent")
    expect(dayRefusal(low, "pull", 100, 60_000)).toBeUndefined()
    expect(dayRefusal(null, "pull", 100, 0)).toBeUndefined()
  })
})

describe("Etsy quota pacing against the simulator", () => {
  it.scoped("paces a long pull so that Etsy never sees more than its per-second limit", () =>
    Effect.gen(function*() {
      const { sim, advance } = yield* simulatorWithClock({ quota: { perSecond: 5, perDay: 10_000 } })
      yield* admin(sim, "POST", "receipts/bulk", { count: 60 })
      const connector = yield* connectTo(sim, { pageSize: 5, requestTimeout })
      const { pages, startedAt, waits } = yield* pullPaced(connector, advance)
      expect(pages.flatMap((p) => p.orders)).toHaveLength(60)
      const after = yield* stats(sim)
      expect(after.throttled).toBe(0)
      expect(after.quota.maxInOneSecond).toBe(5)
      // 60 receipts in one second, 5 a page, each page after the first re-reading its anchor: 15 list
      // requests at 5 per second, so at least two full seconds of waiting.
      expect(after.requestsByOperation["getShopReceipts"]).toBe(15)
      expect(waits).toBeGreaterThanOrEqual(2)
      expect((yield* TestClock.currentTimeMillis) - startedAt).toBeGreaterThanOrEqual(2000)
    }))

  it.scoped("after a 429 without retry-after waits one second, then succeeds; a write is retried too", () =>
    Effect.gen(function*() {
      const { sim, advance } = yield* simulatorWithClock()
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", {})
      const connector = yield* connectTo(sim, { requestTimeout })
      yield* admin(sim, "POST", "faults", { operation: "getShopReceipt", kind: "429", count: 1 })

      const fiber = yield* Effect.fork(connector.getOrder(String(receipt.receipt_id)))
      const sleeps = yield* untilPacingOrDone(fiber)
      expect(sleeps).toEqual([(yield* TestClock.currentTimeMillis) + 1000])
      const during = yield* stats(sim)
      expect(during.throttled).toBe(1)
      yield* advance(999)
      yield* realPause(50)
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      expect((yield* stats(sim)).requests).toBe(during.requests)
      yield* advance(1)
      const order = yield* Fiber.join(fiber)
      expect(Option.map(order, (o) => o.storeOrderId)).toEqual(Option.some(String(receipt.receipt_id)))

      // A throttled shipment did not happen: it is sent again, once, after the pause.
      yield* admin(sim, "POST", "faults", { operation: "createReceiptShipment", kind: "429", count: 1 })
      const push = yield* Effect.fork(
        connector.pushFulfillment({
          storeOrderId: String(receipt.receipt_id),
          lines: [{ lineId: String(receipt.transactions[0]!.transaction_id), quantity: 1 }],
          tracking: { company: "USPS", number: "9400111899562537683412" }
        })
      )
      // Its reads and the write leave a tenth of a second apart (the default 10 per second, evenly spaced).
      const waits: Array<number> = []
      for (;;) {
        const now = yield* TestClock.currentTimeMillis
        const sleeps = yield* untilPacingOrDone(push)
        if (sleeps.length === 0) break
        waits.push(Math.min(...sleeps) - now)
        yield* advance(Math.min(...sleeps) - now)
      }
      expect(waits).toContain(1000)
      expect((yield* Fiber.join(push))._tag).toBe("Created")
      expect((yield* stats(sim)).buyerEmailsByReceipt).toEqual({ [receipt.receipt_id]: 1 })
    }))

  it.scoped("honours retry-after when Etsy sends it, backing off 1, 2, 4 s otherwise", () =>
    Effect.gen(function*() {
      const { sim, advance } = yield* simulatorWithClock({ retryAfterOn429: true })
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", {})
      const connector = yield* connectTo(sim, { requestTimeout })
      yield* admin(sim, "POST", "faults", { operation: "getShopReceipt", kind: "429", count: 3 })
      const fiber = yield* Effect.fork(connector.getOrder(String(receipt.receipt_id)))
      // retry-after: 1 each time (a per-second limit), so three one-second pauses.
      for (let i = 0; i < 3; i++) {
        const sleeps = yield* untilPacingOrDone(fiber)
        expect(sleeps).toEqual([(yield* TestClock.currentTimeMillis) + 1000])
        yield* advance(1000)
      }
      expect(Option.isSome(yield* Fiber.join(fiber))).toBe(true)

      // A moment later, so that what is measured is the backoff, not the spacing after the last request.
      yield* advance(1000)
      yield* admin(sim, "POST", "quota", { retryAfterOn429: false })
      yield* admin(sim, "POST", "faults", { operation: "getShopReceipt", kind: "429", count: 3 })
      const backoff = yield* Effect.fork(connector.getOrder(String(receipt.receipt_id)))
      const waited: Array<number> = []
      for (let i = 0; i < 3; i++) {
        const now = yield* TestClock.currentTimeMillis
        const sleeps = yield* untilPacingOrDone(backoff)
        waited.push(Math.min(...sleeps) - now)
        yield* advance(Math.min(...sleeps) - now)
      }
      expect(waited).toEqual([1000, 2000, 4000])
      expect(Option.isSome(yield* Fiber.join(backoff))).toBe(true)
    }))
})

describe("Etsy daily quota", () => {
  it.scopedLive("stops pulling near the end of the day's quota but still pushes tracking, and stops all at zero", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ quota: { perSecond: 1000, perDay: 1000 }, limitHeadersOn429: true })
      yield* admin(sim, "POST", "receipts/bulk", { count: 30 })
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", {})
      yield* admin(sim, "POST", "quota", { usedToday: 895 })
      const connector = yield* connectTo(sim, { pageSize: 5 })

      const failure = yield* Effect.flip(Stream.runCollect(connector.pull(null)))
      expect(failure).toMatchObject({ _tag: "StoreUnavailableError", operation: "getShopReceipts", ambiguous: false })
      expect(failure.message).toContain("kept for tracking pushes")
      const used = (yield* stats(sim)).quota.usedToday
      // The reading said 104 left after the first page: pages went out until 100 remained, then pulling stopped.
      expect(used).toBe(900)

      const pushed = yield* connector.pushFulfillment({
        storeOrderId: String(receipt.receipt_id),
        lines: [{ lineId: String(receipt.transactions[0]!.transaction_id), quantity: 1 }],
        tracking: { company: "UPS", number: "1Z999AA10123456784" }
      })
      expect(pushed._tag).toBe("Created")

      yield* admin(sim, "POST", "quota", { usedToday: 1000 })
      const spent = yield* Effect.flip(connector.getOrder(String(receipt.receipt_id)))
      expect(spent).toMatchObject({ _tag: "StoreUnavailableError", ambiguous: false })
      expect(spent.message).toContain("daily quota is spent")
      const throttled = (yield* stats(sim)).throttled
      // Known to be spent: the next call does not even reach Etsy.
      yield* Effect.flip(connector.getOrder(String(receipt.receipt_id)))
      expect((yield* stats(sim)).throttled).toBe(throttled)
    }))
})
