import { describe, expect, it } from "@effect/vitest"
import {
  afterPage,
  EPOCH,
  pageQuery,
  type PageFacts,
  pruneSeen,
  startWalk,
  type WalkPosition
} from "../../../src/stores/woocommerce/WooCursor.js"

const NOW = Date.UTC(2026, 2, 2, 16, 0, 0, 750)

const facts = (modified: ReadonlyArray<string>, extra: Partial<PageFacts> = {}): PageFacts => ({
  modified,
  handedOut: modified.map((m, i) => `${100 + i}@${m}`),
  rowCount: modified.length,
  pageSize: 3,
  total: null,
  totalPages: null,
  ...extra
})

describe("WooCommerce walk bookkeeping (pure)", () => {
  it("starts a first walk at `since` minus a second (the bound is exclusive) and freezes the upper bound at a whole second", () => {
    const walk = startWalk(null, "2026-03-01T09:30:00Z", 300, NOW)
    expect(walk).toMatchObject({ base: "2026-03-01T09:30:00Z", after: "2026-03-01T09:29:59Z", upper: "2026-03-02T16:00:00Z", burst: null })
    // Bounds go out as GMT wall time, without a designator.
    expect(pageQuery(walk)).toEqual({ modifiedAfter: "2026-03-01T09:29:59", modifiedBefore: "2026-03-02T16:00:00", offset: 0 })
    expect(pageQuery(startWalk(null, undefined, 300, NOW)).modifiedAfter).toBeNull()
  })

  it("starts a later walk `overlap` before the watermark, remembering the versions already handed out", () => {
    const walk = startWalk({ watermark: "2026-03-02T12:00:00Z", seen: ["7@2026-03-02T12:00:00Z"] }, undefined, 300, NOW)
    expect(walk.after).toBe("2026-03-02T11:55:00Z")
    expect([...walk.seen]).toEqual(["7@2026-03-02T12:00:00Z"])
  })

  it("moves the lower bound to one second before the page's last row, and keeps the watermark until the walk ends", () => {
    const walk = startWalk({ watermark: EPOCH }, undefined, 300, NOW)
    const page = afterPage(walk, facts(["2026-03-02T10:00:00Z", "2026-03-02T10:00:04Z", "2026-03-02T10:00:09Z"]), 300)
    expect(page.done).toBe(false)
    expect(page.position).toMatchObject({ after: "2026-03-02T10:00:08Z", burst: null, high: "2026-03-02T10:00:09Z" })
    expect(page.cursor.watermark).toBe(EPOCH)
    // The cursor carries the frozen bound, so a resumed walk keeps the same window.
    const resumed = startWalk(page.cursor, undefined, 300, NOW + 3_600_000)
    expect(resumed).toMatchObject({ upper: "2026-03-02T16:00:00Z", after: "2026-03-02T10:00:08Z" })
    const end = afterPage(resumed, facts(["2026-03-02T10:00:09Z"]), 300)
    expect(end).toMatchObject({ done: true, cursor: { watermark: "2026-03-02T10:00:09Z" } })
    expect(end.cursor.continuation).toBeUndefined()
  })

  it("reads a full page of one second alone, by offset, stepping back when rows leave it", () => {
    const second = "2026-03-02T10:00:05Z"
    const walk = startWalk(null, "2026-03-02T10:00:00Z", 300, NOW)
    const entered = afterPage(walk, facts([second, second, second]), 300).position
    expect(entered.burst).toEqual({ second, offset: 0, total: null })
    expect(pageQuery(entered)).toEqual({ modifiedAfter: "2026-03-02T10:00:04", modifiedBefore: "2026-03-02T10:00:06", offset: 0 })
    const p1 = afterPage(entered, facts([second, second, second], { total: 8 }), 300).position
    expect(p1.burst).toEqual({ second, offset: 3, total: 8 })
    // Two rows left before the next page: whatever was at offsets 3 and 4 may now sit at 1 and 2.
    const p2 = afterPage(p1, facts([second, second, second], { total: 6 }), 300).position
    expect(p2.burst).toEqual({ second, offset: 1, total: 6 })
    const p3 = afterPage(p2, facts([second, second, second], { total: 6 }), 300).position
    expect(p3.burst).toEqual({ second, offset: 4, total: 6 })
    const p4 = afterPage(p3, facts([second, second], { total: 6 }), 300)
    // Past the second: back to keyset paging from it, not the end of the walk.
    expect(p4.done).toBe(false)
    expect(p4.position).toMatchObject({ after: second, burst: null })
  })

  it("ends on a short page or when X-WP-TotalPages says this was the last", () => {
    const walk = startWalk(null, undefined, 300, NOW)
    expect(afterPage(walk, facts(["2026-03-02T10:00:00Z"]), 300).done).toBe(true)
    expect(afterPage(walk, facts(["2026-03-02T10:00:00Z", "2026-03-02T10:00:01Z", "2026-03-02T10:00:02Z"], { totalPages: 1 }), 300).done)
      .toBe(true)
    expect(afterPage(walk, facts([]), 300)).toMatchObject({ done: true, cursor: { watermark: EPOCH } })
  })

  it("skips by offset when a full page had no readable dates, instead of looping on it", () => {
    const walk: WalkPosition = startWalk(null, undefined, 300, NOW)
    const next = afterPage(walk, { ...facts([]), rowCount: 3 }, 300).position
    expect(next).toMatchObject({ after: null, offset: 3 })
  })

  it("forgets versions older than the overlap before the highest seen", () => {
    expect(pruneSeen(["1@2026-03-02T10:00:00Z", "2@2026-03-02T10:04:00Z", "3@2026-03-02T10:06:00Z"], "2026-03-02T10:06:00Z", 300)).toEqual([
      "3@2026-03-02T10:06:00Z",
      "2@2026-03-02T10:04:00Z"
    ])
  })
})
