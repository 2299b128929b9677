import { parse } from "csv-parse/sync"
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Money from "../../src/domain/Money.js"
import { percentile } from "../../src/reports/FlowFigures.js"
import { allocate, marginPercent } from "../../src/reports/MoneyFigures.js"
import { buildReport } from "../../src/reports/ReportBuilder.js"
import { CSV_COLUMNS, reportCsv } from "../../src/reports/ReportCsv.js"
import { formatDuration, reportHtml } from "../../src/reports/ReportHtml.js"
import { periodFromFlags, previousDay, reportFileStem } from "../../src/reports/ReportPeriod.js"
import { money, scenarioInput, scenarioOrders } from "./scenario.js"

describe("exact money", () => {
  it("splits an amount by quantities into whole cents that add up to it exactly", () => {
    fc.assert(fc.property(
      fc.bigInt({ min: -10_000_000n, max: 10_000_000n }),
      fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 8 }),
      (cents, weights) => {
        const amount = Money.fromNanos("USD", cents * 10_000_000n)
        const parts = allocate(amount, weights)
        expect(parts.reduce((sum, p) => sum + p.totalNanos, 0n)).toBe(amount.totalNanos)
        const total = weights.reduce((a, b) => a + b, 0)
        parts.forEach((part, i) => {
          expect(part.totalNanos % 10_000_000n).toBe(0n)
          // Each part is within one cent of its exact share.
          const exact = (Number(cents) * weights[i]!) / total
          expect(Math.abs(Number(part.totalNanos / 10_000_000n) - exact)).toBeLessThan(1)
        })
      }
    ))
  })

  it("splits sub-cent amounts in nanos, still exactly", () => {
    const parts = allocate(Money.fromNanos("USD", 1_000_000_001n), [1, 1, 1])
    expect(parts.map((p) => p.totalNanos)).toEqual([333_333_334n, 333_333_334n, 333_333_333n])
  })

  it("rounds the margin percentage half away from zero", () => {
    expect(marginPercent(money("USD", "1"), money("USD", "3"))).toBe("33.3")
    expect(marginPercent(money("USD", "2"), money("USD", "3"))).toBe("66.7")
    expect(marginPercent(money("USD", "-2"), money("USD", "3"))).toBe("-66.7")
    expect(marginPercent(money("USD", "0.0005"), money("USD", "1"))).toBe("0.1")
    expect(marginPercent(money("USD", "1"), money("USD", "0"))).toBeNull()
  })

  it("shows step times in the largest units that matter, and sub-second ones in milliseconds rather than 0s", () => {
    expect([null, 42, 900, 905, 13_800, 3 * 86_400 + 7_200].map(formatDuration)).toEqual(["–", "42s", "15m", "15m 5s", "3h 50m", "3d 2h"])
    expect([0, 0.004, 0.35, 0.9996, 1.25, 9.97, 59.6].map(formatDuration)).toEqual(["0ms", "4ms", "350ms", "1s", "1.3s", "10s", "1m"])
  })

  it("takes nearest-rank percentiles", () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5)).toBe(5)
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)).toBe(10)
    expect(percentile([7], 0.95)).toBe(7)
    expect(percentile([], 0.5)).toBeNull()
  })
})

describe("report periods", () => {
  const right = <A, E>(e: Either.Either<A, E>) => Either.getOrThrow(e)

  it("defaults to the previous local day, DST included", () => {
    expect(right(previousDay(Date.parse("2026-11-21T06:00:00Z"), "UTC"))).toEqual({
      from: Date.parse("2026-11-20T00:00:00Z"),
      to: Date.parse("2026-11-21T00:00:00Z"),
      timezone: "UTC",
      label: "2026-11-20"
    })
    // Berlin moved its clocks on 2026-03-29: that day has 23 hours.
    const spring = right(previousDay(Date.parse("2026-03-30T05:00:00Z"), "Europe/Berlin"))
    expect(spring).toMatchObject({ from: Date.parse("2026-03-28T23:00:00Z"), to: Date.parse("2026-03-29T22:00:00Z"), label: "2026-03-29" })
    // Just after local midnight in New York it is still the previous UTC evening.
    expect(right(previousDay(Date.parse("2026-11-21T05:30:00Z"), "America/New_York")).label).toBe("2026-11-20")
  })

  it("reads --from/--to as local dates (--to included) or instants (--to excluded)", () => {
    const now = Date.parse("2026-11-21T06:00:00Z")
    expect(right(periodFromFlags({ from: "2026-11-01", to: "2026-11-30" }, now, "UTC"))).toMatchObject({
      from: Date.parse("2026-11-01T00:00:00Z"),
      to: Date.parse("2026-12-01T00:00:00Z"),
      label: "2026-11-01_2026-11-30"
    })
    expect(right(periodFromFlags({ from: "2026-11-20", to: "2026-11-20" }, now, "Europe/Berlin"))).toMatchObject({
      from: Date.parse("2026-11-19T23:00:00Z"),
      to: Date.parse("2026-11-20T23:00:00Z"),
      label: "2026-11-20"
    })
    expect(right(periodFromFlags({ from: "2026-11-20T06:00:00Z", to: "2026-11-20T18:30:00Z" }, now, "UTC")).label).toBe(
      "20261120T0600Z_20261120T1830Z"
    )
    expect(right(periodFromFlags({ from: "2026-11-20T06:00:00Z" }, now, "UTC")).to).toBe(now)
  })

  it("refuses what it cannot read, saying what to write instead", () => {
    const now = Date.parse("2026-11-21T06:00:00Z")
    const error = (e: Either.Either<unknown, { readonly message: string }>) => Either.isLeft(e) ? e.left.message : "accepted"
    expect(error(periodFromFlags({ to: "2026-11-20" }, now, "UTC"))).toContain("--to needs --from")
    expect(error(periodFromFlags({ from: "yesterday" }, now, "UTC"))).toContain("expected a date (2026-11-20)")
    expect(error(periodFromFlags({ from: "2026-11-21", to: "2026-11-20" }, now, "UTC"))).toContain("the period is empty")
    expect(error(previousDay(now, "Mars/Olympus"))).toContain("is not an IANA time zone")
    expect(reportFileStem(right(previousDay(now, "UTC")), "acme")).toBe("report-2026-11-20-acme")
  })
})

describe("report files", () => {
  const report = buildReport(scenarioInput())

  it("writes one CSV row per held order and per finding (and per other order needing a person)", () => {
    const rows = parse(reportCsv(report), { columns: true }) as Array<Record<(typeof CSV_COLUMNS)[number], string>>
    expect(Object.keys(rows[0]!)).toEqual([...CSV_COLUMNS])
    expect(rows.filter((r) => r.kind === "held").map((r) => [r.reference_id, r.reason, r.age_hours])).toEqual([
      ["acme:1004", "unmatched", "26"],
      ["acme:1005", "unmatched", "20"],
      ["acme:1006", "unpaid", "19"]
    ])
    expect(rows.filter((r) => r.section === "needs_a_person")).toHaveLength(7)
    const drift = rows.filter((r) => r.section === "drift")
    expect(drift.map((r) => r.kind)).toEqual(report.drift.findings.map((f) => f.kind))
    expect(JSON.parse(drift.find((r) => r.kind === "duplicate_at_pod")!.evidence)).toMatchObject({ followedDraft: "D-3a" })
  })

  it("renders a self-contained page: charts inline, no script, nothing fetched, store text escaped", () => {
    const hostile = scenarioOrders.map((o) =>
      o.referenceId === "acme:1004" ? { ...o, order: { ...o.order, name: `<img src=x onerror=alert(1)>` } } : o
    )
    const html = reportHtml(buildReport(scenarioInput({ orders: hostile })))
    expect(html).not.toMatch(/<script|<link |@import|url\(|<[a-z]+[^>]*\ssrc=/i)
    // The only addresses are the carriers' tracking pages, as links the reader opens: nothing the page loads.
    const addresses = [...html.matchAll(/https?:\/\/[^"<\s]+/g)].map((m) => m[0])
    expect(addresses).toEqual(["https://www.ups.com/track?tracknum=1Z001", "https://www.dhl.com/track?id=DHL21"])
    expect(html.match(/<a href="https:[^"]+" rel="noopener noreferrer"/g)).toHaveLength(2)
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;")
    expect(html.match(/<svg class="chart"/g)?.length).toBe(5) // flow, margins per store in USD and in EUR, per SKU of acme and of beta
    expect(html).toContain("$83.00")
    expect(html).toContain("€27.75")
    expect(html).toContain("podsync follows draft D-3a")
  })
})
