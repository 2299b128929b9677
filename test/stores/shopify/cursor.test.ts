import { describe, expect, it } from "@effect/vitest"
import {
  afterPage,
  EPOCH,
  MAX_SEEN,
  minusSeconds,
  ordersQuery,
  pruneSeen,
  QUICK_OVERLAP_SECONDS,
  startWalk
} from "../../../src/stores/shopify/ShopifyCursor.js"

describe("Shopify pull cursor", () => {
  it("starts a walk overlap seconds before the watermark, with >= so same-second changes are met", () => {
    const position = startWalk({ watermark: "2026-03-02T11:00:05Z", seen: ["7@2026-03-02T11:00:05Z"] }, undefined, 300)
    expect(position).toEqual({
      base: "2026-03-02T11:00:05Z",
      lower: "2026-03-02T10:55:05Z",
      after: null,
      high: "2026-03-02T11:00:05Z",
      seen: new Set(["7@2026-03-02T11:00:05Z"]),
      sweptAt: null
    })
    expect(ordersQuery(position.lower)).toBe("updated_at:>='2026-03-02T10:55:05Z'")
  })

  it("re-reads a short overlap most of the time and the whole overlap once per overlap, remembering when in the cursor", () => {
    const now = "2026-03-02T11:10:00Z"
    const watermark = "2026-03-02T11:09:50Z"
    // Swept 2 minutes ago: a quick walk, 15 s back.
    const quick = startWalk({ watermark, sweptAt: "2026-03-02T11:08:00Z" }, undefined, 300, now)
    expect(quick.lower).toBe(minusSeconds(watermark, QUICK_OVERLAP_SECONDS))
    expect(quick.sweptAt).toBe("2026-03-02T11:08:00Z")
    // Swept more than the overlap ago, or never (a cursor from before sweeps were kept): the whole overlap.
    for (const sweptAt of ["2026-03-02T11:04:59Z", undefined, "not a date"]) {
      const sweep = startWalk({ watermark, ...(sweptAt === undefined ? {} : { sweptAt }) }, undefined, 300, now)
      expect(sweep.lower).toBe("2026-03-02T11:04:50Z")
      expect(sweep.sweptAt).toBe(now)
    }
    // A short configured overlap is never lengthened.
    expect(startWalk({ watermark, sweptAt: "2026-03-02T11:09:59Z" }, undefined, 5, now).lower).toBe("2026-03-02T11:09:45Z")
    // The sweep's start is persisted with every page's cursor, so a walk resumed after a crash keeps it.
    const sweep = startWalk({ watermark }, undefined, 300, now)
    const mid = afterPage(sweep, { updatedAts: [watermark], handedOut: [], hasNextPage: true, endCursor: "c1" }, 300)
    expect(mid.cursor.sweptAt).toBe(now)
    expect(startWalk(mid.cursor, undefined, 300, "2026-03-02T11:10:30Z")).toMatchObject({ after: "c1", sweptAt: now })
    const end = afterPage(mid.position, { updatedAts: [], handedOut: [], hasNextPage: false, endCursor: null }, 300)
    expect(end.cursor).toMatchObject({ watermark, sweptAt: now })
  })

  it("walks the whole history on a first pull without `since`", () => {
    expect(startWalk(null, undefined, 300)).toMatchObject({ base: EPOCH, lower: null, after: null })
    expect(ordersQuery(null)).toBeNull()
    expect(startWalk(null, "2026-01-01T00:00:00+01:00", 300)).toMatchObject({ lower: "2025-12-31T23:00:00Z" })
  })

  it("keeps the watermark until the walk ends, then moves it to the highest updatedAt seen", () => {
    const start = startWalk({ watermark: "2026-03-01T00:00:00Z" }, undefined, 60)
    const mid = afterPage(
      start,
      {
        updatedAts: ["2026-03-01T00:00:10Z", "2026-03-01T00:00:20Z"],
        handedOut: ["1@2026-03-01T00:00:10Z", "2@2026-03-01T00:00:20Z"],
        hasNextPage: true,
        endCursor: "c1"
      },
      60
    )
    expect(mid.done).toBe(false)
    expect(mid.cursor.watermark).toBe("2026-03-01T00:00:00Z")
    expect(mid.cursor.continuation).toBeDefined()

    // Resuming from the persisted mid-walk cursor continues the same walk (same query, after c1).
    const resumed = startWalk(mid.cursor, undefined, 60)
    expect(resumed).toMatchObject({ lower: "2026-02-28T23:59:00Z", after: "c1", high: "2026-03-01T00:00:20Z" })

    const end = afterPage(resumed, {
      updatedAts: ["2026-03-01T00:00:30Z"],
      handedOut: ["3@2026-03-01T00:00:30Z"],
      hasNextPage: false,
      endCursor: "c2"
    }, 60)
    expect(end.done).toBe(true)
    expect(end.cursor).toEqual({
      watermark: "2026-03-01T00:00:30Z",
      seen: ["3@2026-03-01T00:00:30Z", "2@2026-03-01T00:00:20Z", "1@2026-03-01T00:00:10Z"]
    })
  })

  it("restarts from the watermark when a continuation cannot be read (a repeat, never a gap)", () => {
    expect(startWalk({ watermark: "2026-03-01T00:00:00Z", continuation: "garbage" }, undefined, 0)).toMatchObject({
      lower: "2026-03-01T00:00:00Z",
      after: null
    })
  })

  it("forgets handed-out versions once they fall out of the overlap window, and bounds the list", () => {
    expect(pruneSeen(["1@2026-03-01T00:00:00Z", "2@2026-03-01T00:04:00Z"], "2026-03-01T00:05:00Z", 120)).toEqual([
      "2@2026-03-01T00:04:00Z"
    ])
    const many = Array.from({ length: MAX_SEEN + 10 }, (_, i) => `${i}@${new Date(Date.UTC(2026, 2, 1, 0, 0, i)).toISOString()}`)
    const kept = pruneSeen(many, "2026-03-01T12:00:00Z", 86_400)
    expect(kept).toHaveLength(MAX_SEEN)
    expect(kept[0]).toBe(many[many.length - 1])
  })

  it("subtracts the overlap in UTC", () => {
    expect(minusSeconds("2026-03-01T00:00:30Z", 60)).toBe("2026-02-28T23:59:30Z")
    expect(minusSeconds("2026-03-01T00:00:30.250Z", 0)).toBe("2026-03-01T00:00:30.250Z")
  })
})
