import { describe, expect, it } from "@effect/vitest"
import { afterPage, EPOCH, pageQuery, readPage, startWalk, type WalkPosition } from "../../../src/stores/etsy/EtsyCursor.js"

const at = (receiptId: number, updatedSeconds: number) => ({ receiptId, updatedSeconds })
const T = 1772361000

describe("Etsy walk bookkeeping (pure)", () => {
  it("starts the first walk at `since`, later walks an overlap before the watermark", () => {
    expect(pageQuery(startWalk(null, undefined, 300), 100)).toEqual({ offset: "0", limit: "100" })
    expect(pageQuery(startWalk(null, "2026-03-01T10:30:00Z", 300), 100)).toEqual({
      min_last_modified: String(T),
      offset: "0",
      limit: "100"
    })
    const next = startWalk({ watermark: "2026-03-01T10:30:00Z", seen: ["1@2026-03-01T10:30:00Z"] }, undefined, 300)
    expect(pageQuery(next, 50)).toEqual({ min_last_modified: String(T - 300), offset: "0", limit: "50" })
    expect(next.seen.has("1@2026-03-01T10:30:00Z")).toBe(true)
    // Etsy refuses bounds before 2000: an early watermark walks without one.
    expect(pageQuery(startWalk({ watermark: EPOCH }, undefined, 300), 10)).toEqual({ offset: "0", limit: "10" })
  })

  it("pages by timestamp, using the offset only to step over a tie, and re-reads a tie that shifted", () => {
    const start = startWalk(null, undefined, 300)
    const first = readPage(start, [at(1, T), at(2, T), at(3, T + 1), at(4, T + 1)], 4)
    expect(first._tag).toBe("Read")
    const p1 = (first as Extract<typeof first, { _tag: "Read" }>).position
    expect([p1.h, p1.tie, p1.anchor]).toEqual([T + 1, 2, 4])
    // Next page: from T+1, one position before the end of the tie, so the anchor comes first.
    expect(pageQuery(p1, 4)).toEqual({ min_last_modified: String(T + 1), offset: "1", limit: "4" })
    const second = readPage(p1, [at(4, T + 1), at(5, T + 1), at(6, T + 2)], 4)
    expect(second).toMatchObject({ _tag: "Read", fresh: [at(5, T + 1), at(6, T + 2)], done: true })

    // Receipt 3 was edited meanwhile: everything after it moved back one place and 4 is not first.
    const shifted = readPage(p1, [at(5, T + 1), at(6, T + 2), at(3, T + 5)], 4)
    expect(shifted._tag).toBe("Shifted")
    const again = (shifted as Extract<typeof shifted, { _tag: "Shifted" }>).position
    expect(pageQuery(again, 4)).toEqual({ min_last_modified: String(T + 1), offset: "0", limit: "4" })
  })

  it("persists a mid-walk position that resumes exactly, and moves the watermark only at the end", () => {
    const start = startWalk({ watermark: "2026-03-01T10:00:00Z" }, undefined, 300)
    const read = readPage(start, [at(7, T), at(8, T)], 2) as Extract<ReturnType<typeof readPage>, { _tag: "Read" }>
    const mid = afterPage(read.position, ["7@2026-03-01T10:30:00Z", "8@2026-03-01T10:30:00Z"], read.done, 300)
    expect(mid.cursor.watermark).toBe("2026-03-01T10:00:00Z")
    const resumed: WalkPosition = startWalk(mid.cursor, undefined, 300)
    expect(pageQuery(resumed, 2)).toEqual(pageQuery(read.position, 2))
    const end = afterPage(mid.position, [], true, 300)
    expect(end.cursor).toEqual({ watermark: "2026-03-01T10:30:00Z", seen: ["7@2026-03-01T10:30:00Z", "8@2026-03-01T10:30:00Z"] })
    // A continuation that cannot be read restarts the walk (a repeat, never a gap).
    expect(pageQuery(startWalk({ watermark: "2026-03-01T10:30:00Z", continuation: "{garbage" }, undefined, 300), 2)).toEqual({
      min_last_modified: String(T - 300),
      offset: "0",
      limit: "2"
    })
  })
})
