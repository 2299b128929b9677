import { describe, expect, it } from "@effect/vitest"
import { afterPage, EPOCH, MAX_SEEN, pruneSeen, restartWalk, startWalk } from "../../../src/stores/jsonfeed/JsonFeedCursor.js"
import { idempotencyKeyFor } from "../../../src/stores/jsonfeed/JsonFeedFulfillmentPlan.js"

const now = Date.parse("2026-03-01T10:00:00Z")
const facts = (overrides: Partial<Parameters<typeof afterPage>[1]> = {}) => ({
  updatedAts: ["2026-03-01T09:58:00Z", "2026-03-01T09:59:00Z"],
  handedOut: ["a@2026-03-01T09:58:00Z", "b@2026-03-01T09:59:00Z"],
  nextCursor: null,
  upperBound: "2026-03-01T09:59:30Z",
  nowMillis: now,
  ...overrides
})

describe("JSON feed walk bookkeeping (pure)", () => {
  it("starts a walk overlap before the watermark, or at `since`, or at the beginning", () => {
    expect(startWalk({ watermark: "2026-03-01T09:00:00Z" }, undefined, 120)).toMatchObject({ since: "2026-03-01T08:58:00Z", cursor: null })
    expect(startWalk(null, "2026-03-01T09:00:00+01:00", 120)).toMatchObject({ since: "2026-03-01T08:00:00Z", base: "2026-03-01T08:00:00Z" })
    expect(startWalk(null, undefined, 120)).toMatchObject({ since: null, base: EPOCH })
    expect(startWalk({ watermark: EPOCH }, undefined, 120)).toMatchObject({ since: null })
  })

  it("keeps the watermark while a walk is open and moves it to the upper bound when it ends", () => {
    const start = startWalk({ watermark: "2026-03-01T09:00:00Z" }, undefined, 120)
    const open = afterPage(start, facts({ nextCursor: "c2" }), 120)
    expect(open.done).toBe(false)
    expect(open.cursor.watermark).toBe("2026-03-01T09:00:00Z")
    // A crash here resumes from the persisted continuation, with the walk's bounds.
    expect(startWalk(open.cursor, undefined, 120)).toMatchObject({
      since: "2026-03-01T08:58:00Z",
      cursor: "c2",
      upper: "2026-03-01T09:59:30Z"
    })
    const closed = afterPage(open.position, facts({ updatedAts: [], handedOut: [], upperBound: "2026-03-01T09:59:30Z" }), 120)
    expect(closed).toMatchObject({ done: true, cursor: { watermark: "2026-03-01T09:59:30Z" } })
    expect(closed.cursor.continuation).toBeUndefined()
    expect(closed.cursor.seen).toEqual(["b@2026-03-01T09:59:00Z", "a@2026-03-01T09:58:00Z"])
  })

  it("falls back to the newest updated_at when there is no believable upper bound", () => {
    const start = startWalk({ watermark: "2026-03-01T09:00:00Z" }, undefined, 120)
    expect(afterPage(start, facts({ upperBound: null }), 120).cursor.watermark).toBe("2026-03-01T09:59:00Z")
    expect(afterPage(start, facts({ upperBound: "2026-03-01T11:30:00Z" }), 120).cursor.watermark).toBe("2026-03-01T09:59:00Z")
  })

  it("restarts a walk whose continuation cannot be read or whose cursor was refused, never skipping ahead", () => {
    const garbled = startWalk({ watermark: "2026-03-01T09:00:00Z", continuation: "{not json" }, undefined, 120)
    expect(garbled).toMatchObject({ since: "2026-03-01T08:58:00Z", cursor: null })
    const resumed = startWalk(
      {
        watermark: "2026-03-01T09:00:00Z",
        continuation: JSON.stringify({
          since: "2026-03-01T08:58:00Z",
          cursor: "x",
          high: "2026-03-01T09:10:00Z",
          upper: "2026-03-01T09:20:00Z"
        })
      },
      undefined,
      120
    )
    expect(restartWalk(resumed)).toMatchObject({ since: "2026-03-01T08:58:00Z", cursor: null, upper: null, high: "2026-03-01T09:10:00Z" })
  })

  it("remembers only versions the next overlap can meet, and a bounded number of them", () => {
    const many = Array.from({ length: MAX_SEEN + 10 }, (_, i) => `o${i}@2026-03-01T09:59:00Z`)
    expect(pruneSeen(["old@2026-03-01T09:00:00Z", ...many], "2026-03-01T10:00:00Z", 120)).toHaveLength(MAX_SEEN)
    expect(pruneSeen(["old@2026-03-01T09:57:59Z", "new@2026-03-01T09:58:00Z"], "2026-03-01T10:00:00Z", 120)).toEqual([
      "new@2026-03-01T09:58:00Z"
    ])
  })

  it("derives one Idempotency-Key per package, whatever the spacing or case of its tracking number", () => {
    const key = idempotencyKeyFor("acme-feed", { storeOrderId: "ord_1", tracking: { company: "UPS", number: "1Z 999 aa1" } })
    expect(key).toMatch(/^podsync-[0-9a-f]{40}$/)
    expect(idempotencyKeyFor("acme-feed", { storeOrderId: "ord_1", tracking: { company: "UPS", number: "1Z999AA1" } })).toBe(key)
    expect(idempotencyKeyFor("acme-feed", { storeOrderId: "ord_2", tracking: { company: "UPS", number: "1Z999AA1" } })).not.toBe(key)
    expect(idempotencyKeyFor("other", { storeOrderId: "ord_1", tracking: { company: "UPS", number: "1Z999AA1" } })).not.toBe(key)
  })
})
