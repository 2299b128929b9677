import { describe, expect, it } from "vitest"
import { renderFragment } from "../../src/console/Html.js"
import { overviewContent } from "../../src/console/OverviewView.js"
import { sellerWordsOf } from "../../src/console/SellerWords.js"
import * as Money from "../../src/domain/Money.js"
import { moneyByPeriod, weekOf } from "../../src/reports/MoneyByPeriod.js"
import { buildReport } from "../../src/reports/ReportBuilder.js"
import { summarize } from "../../src/reports/ReportSummary.js"
import { multiCurrencyInput } from "./scenario.js"

const text = (
  m: { readonly revenue: Money.Money; readonly podCost: Money.Money; readonly margin: Money.Money }
) => [Money.toDecimalString(m.revenue), Money.toDecimalString(m.podCost), Money.toDecimalString(m.margin)]

describe("the money of the daily reports per day and week", () => {
  const report = buildReport(multiCurrencyInput(null))
  const day = summarize(report, [])
  const listed = ["2026-11-24", "2026-11-23", "2026-11-20"].map((label) => ({ store: null, summary: { ...day, label } }))

  it("shows each day the report's own figures per store and currency, and adds a week's days one currency at a time", () => {
    const money = moneyByPeriod([...listed, { store: "acme", summary: { ...day, store: "acme", label: "2026-11-22" } }])
    expect(money.days.map((d) => d.start)).toEqual(["2026-11-24", "2026-11-23", "2026-11-20"])
    const [monday] = money.days
    expect(monday!.stores.map((s) => [s.storeKey, s.currency, ...text(s)])).toEqual(
      report.money.stores.map((s) => [s.storeKey, s.currency, ...text(s)])
    )
    // Two currencies at least, each its own total (the POD spend): never one sum of both.
    expect(new Set(monday!.total.map((t) => t.currency)).size).toBeGreaterThan(1)
    expect(monday!.total.map((t) => [t.currency, ...text(t)])).toEqual(report.overall.money.map((t) => [t.currency, ...text(t)]))

    expect(money.weeks.map((w) => [w.start, w.days])).toEqual([["2026-11-23", 2], ["2026-11-16", 1]])
    const [week] = money.weeks
    for (const total of week!.total) {
      const one = report.overall.money.find((t) => t.currency === total.currency)!
      expect(total.podCost.totalNanos).toBe(one.podCost.totalNanos * 2n)
      expect(total.margin.totalNanos).toBe(one.margin.totalNanos * 2n)
      expect(total.marginPercent).toBe(one.marginPercent)
    }
  })

  it("reads a summary written before the per-store figures as every store's, per currency", () => {
    const { marginsByStore: _, ...older } = day
    const money = moneyByPeriod([{ store: null, summary: older }])
    expect(money.days[0]!.stores.map((s) => [s.storeKey, s.currency])).toEqual(day.margins.map((m) => ["", m.currency]))
  })

  it("weeks begin on Monday", () => {
    expect(["2026-11-23", "2026-11-29", "2026-11-30"].map(weekOf)).toEqual(["2026-11-23", "2026-11-23", "2026-11-30"])
  })
})

describe("the overview's money table", () => {
  it("names each store as the seller does (reports.storeNames)", () => {
    const report = buildReport(multiCurrencyInput(null))
    const money = moneyByPeriod([{ store: null, summary: { ...summarize(report, []), label: "2026-11-24" } }])
    const storeKey = report.money.stores[0]!.storeKey
    const status = {
      generatedAt: "2026-11-25T06:00:00.000Z",
      orders: [],
      held: [],
      attention: [],
      queues: [],
      pulls: [],
      budget: null,
      traffic: null
    } as unknown as Parameters<typeof overviewContent>[0]
    const page = renderFragment(
      overviewContent(status, { drift: null, money, words: sellerWordsOf({ storeNames: { [storeKey]: "Acme Shirts & Co" } }) })
    )
    expect(page).toContain("<td>Acme Shirts &amp; Co</td>")
    expect(page).not.toContain(`<td>${storeKey}</td>`)
  })
})
