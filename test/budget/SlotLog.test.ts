import { describe, expect, it } from "vitest"
import { admit, defaultRateLimit, effectiveLimit } from "../../src/budget/SlotLog.js"

const answered = (at: number, windowMs = 1000) => ({ answeredAt: at, holdsUntil: at + windowMs })
const inFlight = (staleAt: number) => ({ answeredAt: null, holdsUntil: staleAt })
const base = { limit: 3, windowMs: 1000, pausedUntil: null }

describe("admission to the slot log", () => {
  it("takes the configured headroom off the limit, never below one request", () => {
    expect(effectiveLimit(defaultRateLimit)).toBe(95)
    expect(effectiveLimit({ ...defaultRateLimit, headroom: 0 })).toBe(100)
    expect(effectiveLimit({ ...defaultRateLimit, requests: 1, headroom: 0.5 })).toBe(1)
  })

  it("grants free slots up to the limit and says when the next one frees", () => {
    const result = admit({ ...base, now: 5000, wanted: 5, slots: [answered(4200), inFlight(99_000)] })
    expect(result).toEqual({ granted: 1, inUse: 2, retryAt: 5201, paused: false })
  })

  it("counts an answered slot until exactly window after the answer, and not a millisecond more", () => {
    const slots = [answered(4000), answered(4000), answered(4000)]
    expect(admit({ ...base, now: 5000, wanted: 1, slots }).granted).toBe(0)
    expect(admit({ ...base, now: 5001, wanted: 1, slots }).granted).toBe(1)
  })

  it("expects an in-flight slot to free no sooner than a window after now", () => {
    const result = admit({ ...base, now: 5000, wanted: 1, slots: [inFlight(99_000), inFlight(99_000), inFlight(99_000)] })
    expect(result).toEqual({ granted: 0, inUse: 3, retryAt: 6001, paused: false })
  })

  it("stops counting an in-flight slot whose holder vanished once its stale time passed", () => {
    const slots = [inFlight(4999), inFlight(99_000), inFlight(99_000)]
    expect(admit({ ...base, now: 5000, wanted: 1, slots }).granted).toBe(1)
  })

  it("grants nothing while paused, and asks again when the pause ends", () => {
    const result = admit({ ...base, now: 5000, wanted: 2, pausedUntil: 65_000, slots: [] })
    expect(result).toEqual({ granted: 0, inUse: 0, retryAt: 65_000, paused: true })
    expect(admit({ ...base, now: 65_000, wanted: 2, pausedUntil: 65_000, slots: [] }).granted).toBe(2)
  })
})
