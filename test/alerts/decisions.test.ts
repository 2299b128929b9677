import { describe, expect, it } from "vitest"
import { routeAlert } from "../../src/alerts/AlertRules.js"
import { decideSend, quietUntil, retryAt } from "../../src/alerts/Digest.js"
import { eventPatternProblem, sentSummary } from "../../src/domain/Alert.js"

const T0 = Date.parse("2026-11-26T09:00:00Z")
const MIN = 60_000
const item = (at: number, kind = "order.held", resolved = false) => ({ nextAttemptAt: new Date(at), alert: { kind, resolved } })

describe("the digest", () => {
  const settings = { groupMs: 15 * MIN }

  it("sends the first alert at once, then holds what follows until 15 minutes after that send", () => {
    expect(decideSend([item(T0)], null, T0, settings)).toMatchObject({ _tag: "Send" })
    expect(decideSend([item(T0 + MIN)], T0, T0 + MIN, settings)).toEqual({ _tag: "Wait", until: T0 + 15 * MIN })
    const both = decideSend([item(T0 + MIN), item(T0 + 2 * MIN)], T0, T0 + 15 * MIN, settings)
    expect(both._tag === "Send" ? both.deliveries.length : 0).toBe(2)
    expect(decideSend([], T0, T0, settings)).toEqual({ _tag: "Idle" })
    // 0 minutes: every alert at once.
    expect(decideSend([item(T0 + MIN)], T0, T0 + MIN, { groupMs: 0 })).toMatchObject({ _tag: "Send" })
  })

  it("never sends a retry before its time, and lets a refused credential through the wait", () => {
    expect(decideSend([item(T0 + 30_000)], null, T0, settings)).toEqual({ _tag: "Wait", until: T0 + 30_000 })
    const urgent = decideSend([item(T0, "order.held"), item(T0, "credentials.refused")], T0 - MIN, T0, settings)
    expect(urgent._tag === "Send" ? urgent.deliveries.map((d) => d.alert.kind) : []).toEqual(["credentials.refused"])
  })

  it("keeps alerts through quiet hours (across midnight, in the configured zone), except a refused credential", () => {
    const quiet = { from: "22:00", to: "07:00", timezone: "Europe/Paris" }
    // 09:00 UTC is 10:00 in Paris: not quiet.
    expect(quietUntil(T0, quiet)).toBeNull()
    // 23:30 in Paris (22:30 UTC) is quiet until 07:00 Paris, 06:00 UTC.
    const late = Date.parse("2026-11-26T22:30:00Z")
    expect(quietUntil(late, quiet)).toBe(Date.parse("2026-11-27T06:00:00Z"))
    expect(decideSend([item(late)], null, late, { groupMs: 0, quietHours: quiet })).toEqual({
      _tag: "Wait",
      until: Date.parse("2026-11-27T06:00:00Z")
    })
    expect(decideSend([item(late, "credentials.refused")], null, late, { groupMs: 0, quietHours: quiet })).toMatchObject({ _tag: "Send" })
  })

  it("backs off doubling, then gives up after the last attempt", () => {
    const retry = { attempts: 4, firstDelayMs: 30_000 }
    expect([1, 2, 3, 4].map((n) => retryAt(n, 0, retry))).toEqual([30_000, 60_000, 120_000, null])
  })
})

describe("routing and words", () => {
  const alert = (kind: string, reason: string | null = null, storeKey: string | null = "acme") => ({ kind, reason, storeKey })

  it("sends everything everywhere without rules; with rules, each matching rule adds its channels", () => {
    expect(routeAlert(undefined, ["ops", "owner"], alert("order.held", "unmatched"))).toEqual(["ops", "owner"])
    const rules = [
      { events: ["order.*"], stores: ["acme"], channels: ["owner"] },
      { events: ["credentials.refused", "pod.*", "order.held:address"], channels: ["ops"] }
    ]
    expect(routeAlert(rules, ["ops", "owner"], alert("order.held", "unmatched"))).toEqual(["owner"])
    expect(routeAlert(rules, ["ops", "owner"], alert("order.held", "address"))).toEqual(["ops", "owner"])
    expect(routeAlert(rules, ["ops", "owner"], alert("order.held", "unmatched", "other"))).toEqual([])
    expect(routeAlert(rules, ["ops", "owner"], alert("pod.rate_limited", "rate_limited:pod", null))).toEqual(["ops"])
  })

  it("says what was sent in a seller's words", () => {
    expect(sentSummary([
      { kind: "order.held", reason: "unmatched", count: 2 },
      { kind: "order.cancel_pending", reason: null, count: 1 }
    ])).toBe("3 alerts sent: 2 unmatched SKUs, 1 cancelled after draft")
    expect(sentSummary([])).toBe("0 alerts sent")
  })

  it("names what is wrong with a rule's event", () => {
    expect(eventPatternProblem("order.held:unmatched")).toBeUndefined()
    expect(eventPatternProblem("order.*")).toBeUndefined()
    expect(eventPatternProblem("order.hled")).toMatch(/unknown alert kind "order.hled"/)
  })
})
