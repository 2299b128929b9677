// The report a seller opens (issue 18): money over several currencies, step counts and times that
// read right, what shipped, a title in words, an empty day, and a CSV a spreadsheet takes as is.
import { parse } from "csv-parse/sync"
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { OrderState } from "../../src/domain/OrderState.js"
import { plainAmount } from "../../src/reports/MoneyText.js"
import { buildReport } from "../../src/reports/ReportBuilder.js"
import { CSV_COLUMNS, reportCsv } from "../../src/reports/ReportCsv.js"
import { reportHtml } from "../../src/reports/ReportHtml.js"
import type { ReportInput, ReportOrder } from "../../src/reports/ReportInput.js"
import { periodFromFlags } from "../../src/reports/ReportPeriod.js"
import { summarize, summaryLine } from "../../src/reports/ReportSummary.js"
import { periodInWords } from "../../src/reports/ReportTitle.js"
import { money, multiCurrencyInput, quietDayInput, scenarioInput, scenarioOrders } from "./scenario.js"

type CsvRow = Record<(typeof CSV_COLUMNS)[number], string>
const csvRows = (input: ReportInput) => parse(reportCsv(buildReport(input)), { columns: true }) as Array<CsvRow>
/** The page's text without tags, as a reader at a desktop width would scan it (the column names in cells show on phones only). */
const textOf = (html: string) =>
  html.replace(/<style>[\s\S]*?<\/style>/, "").replace(/<span class="cell-label">[^<]*<\/span>/g, "").replace(/<[^>]+>/g, " ").replace(
    /\s+/g,
    " "
  ).trim()

const USD_EUR = { base: "USD", rates: { EUR: "1.10" } }

describe("money in several currencies", () => {
  it("brings every order with a rate to the base currency, and says how many orders the margin covers and why not the others", () => {
    const report = buildReport(multiCurrencyInput(USD_EUR))
    const inBase = report.money.inBase!
    // acme: 83 USD revenue, 42.50 cost; beta: 52 EUR and 24.25 EUR at 1.10 → 57.20 and 26.675.
    expect([String(inBase.revenue), String(inBase.podCost), String(inBase.margin), inBase.marginPercent]).toEqual([
      "140.2 USD",
      "69.175 USD",
      "71.025 USD",
      "50.7"
    ])
    expect(inBase.withoutRate).toEqual([{ currency: "JPY", orders: 2 }])
    expect(report.money.coverage).toEqual({ orders: 5, ofOrders: 7, text: "margin covers 5 of 7 orders; 2 in JPY have no rate" })
    // The orders without a rate are still counted in their own currency.
    expect(report.money.overall.map((m) => [m.currency, m.orders, String(m.margin)])).toContainEqual(["JPY", 2, "4200 JPY"])

    const html = reportHtml(report)
    const card = /<div class="card margin-card">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? ""
    expect(textOf(card)).toBe("Margin (all in USD) $71.03 50.7% of $140.20 margin covers 5 of 7 orders; 2 in JPY have no rate")
    expect(summaryLine(summarize(report, []))).toContain(
      "margin 71.025 USD in all currencies (50.7%); margin covers 5 of 7 orders; 2 in JPY have no rate"
    )
  })

  it("covers every order once every currency has a rate, an order paid in one currency and billed in another included", () => {
    const input = multiCurrencyInput({ base: "USD", rates: { EUR: "1.10", JPY: "0.0067" } })
    const billedInUsd = input.pod.orders.map((o) => (o.order_id === "O-22" ? { ...o, order_total: money("USD", "11") } : o))
    const report = buildReport({ ...input, pod: { ...input.pod, orders: billedInUsd } })
    expect(report.money.coverage.text).toBe("margin covers 7 of 7 orders")
    // Left out of beta's EUR figures (no margin between EUR and USD as they stand), in the USD margin.
    expect(report.money.excluded.map((x) => x.referenceId)).toEqual(["beta:2002"])
    const beta2002 = report.money.orders.find((o) => o.referenceId === "beta:2002")!
    expect([String(beta2002.inBase?.revenue), String(beta2002.inBase?.podCost)]).toEqual(["24.2 USD", "11 USD"])
    // 7800 JPY and 3600 JPY at 0.0067.
    expect(report.money.inBase?.perStore.find((s) => s.storeKey === "gamma")).toMatchObject({ orders: 2 })
    expect(String(report.money.inBase?.perStore.find((s) => s.storeKey === "gamma")?.margin)).toBe("28.14 USD")
  })

  it("without a rate table, keeps each currency apart and says so on each card", () => {
    const report = buildReport(multiCurrencyInput(null))
    expect(report.money.inBase).toBeNull()
    expect(report.money.coverage.text).toBe(
      "margins cover 7 of 7 orders; in EUR and JPY and USD, not added up (reports.exchangeRates adds them up)"
    )
    const cards = [...reportHtml(report).matchAll(/<div class="card margin-card">([\s\S]*?)<\/div>/g)].map((m) => textOf(m[1]!))
    expect(cards).toEqual([
      "Margin (EUR) €27.75 53.4% of €52.00 covers 2 of 7 orders",
      "Margin (JPY) ¥4,200 53.8% of ¥7,800 covers 2 of 7 orders",
      "Margin (USD) $40.50 48.8% of $83.00 covers 3 of 7 orders"
    ])
  })
})

describe("step counts and times that read right", () => {
  const LADDER: ReadonlyArray<OrderState> = ["drafted", "checked_out", "in_production", "shipped", "fulfilled"]
  const template = scenarioOrders[0]!
  const start = Date.parse("2026-11-20T01:00:00Z")
  const withSteps = (id: number, steps: ReadonlyArray<OrderState>, gapMs = 60_000): ReportOrder => {
    const states: ReadonlyArray<OrderState> = ["pulled", "ready", ...steps]
    return {
      ...template,
      id,
      referenceId: `acme:9${id}`,
      storeOrderId: `9${id}`,
      state: states[states.length - 1]!,
      shipments: [],
      events: states.map((to, i) => ({ at: start + i * gapMs, from: i === 0 ? null : states[i - 1]!, to, reason: null }))
    }
  }

  it("counts an order seen first as shipped as drafted, checked out and in production too", () => {
    const report = buildReport(scenarioInput({ orders: [withSteps(1, ["drafted", "shipped"]), withSteps(2, ["shipped"])] }))
    expect(report.overall.flow).toMatchObject({ drafted: 2, checkedOut: 2, inProduction: 2, shipped: 2, fulfilled: 0 })
    // The step from draft to shipment is measured from when it was drafted, or seen beyond a draft.
    expect(report.overall.flow.timings.draftToShipped.count).toBe(2)
  })

  it("never shows more orders at a later step than at an earlier one, however the polls fell", () => {
    fc.assert(fc.property(
      fc.array(fc.subarray([...LADDER], { minLength: 1 }), { minLength: 1, maxLength: 12 }),
      (paths) => {
        const flow = buildReport(scenarioInput({ orders: paths.map((steps, i) => withSteps(i + 1, steps)) })).overall.flow
        const counts = [flow.drafted, flow.checkedOut, flow.inProduction, flow.shipped, flow.fulfilled]
        counts.slice(1).forEach((later, i) => expect(later).toBeLessThanOrEqual(counts[i]!))
        // Each order counted up to the furthest step it was seen at.
        LADDER.forEach((step, rung) =>
          expect(counts[rung]).toBe(paths.filter((steps) => Math.max(...steps.map((s) => LADDER.indexOf(s))) >= rung).length)
        )
      }
    ))
  })

  it("shows a step podsync takes in a fraction of a second as such, not as 0s", () => {
    const fast = [withSteps(1, ["drafted"], 175), withSteps(2, ["drafted"], 200)]
    const report = buildReport(scenarioInput({ orders: fast }))
    // pulled → ready → drafted: two gaps of 175 and of 200 ms.
    expect(report.overall.flow.timings.pullToDraft).toEqual({ count: 2, p50Seconds: 0.35, p95Seconds: 0.4 })
    expect(textOf(reportHtml(report))).toContain("all stores pull → draft 2 350ms 400ms")
  })
})

describe("what shipped", () => {
  it("lists each package shipped in the period: store order, POD order, carrier and tracking link", () => {
    const report = buildReport(scenarioInput())
    expect(report.shipped).toEqual([
      {
        storeKey: "acme",
        referenceId: "acme:1001",
        name: "#1001",
        podOrderId: "O-1",
        shippedAt: "2026-11-20T05:00:00.000Z",
        carrier: "UPS",
        trackingNo: "1Z001",
        trackingUrl: "https://www.ups.com/track?tracknum=1Z001"
      },
      // No shipment row in podsync: what the POD service's order says.
      {
        storeKey: "beta",
        referenceId: "beta:2001",
        name: "#2001",
        podOrderId: "O-21",
        shippedAt: "2026-11-20T10:00:00.000Z",
        carrier: "DHL",
        trackingNo: "DHL21",
        trackingUrl: "https://www.dhl.com/track?id=DHL21"
      }
    ])
    const section = /<section id="shipped">([\s\S]*?)<\/section>/.exec(reportHtml(report))?.[1] ?? ""
    expect(textOf(section)).toContain("Shipped (2)")
    expect(section).toContain(`<a href="https://www.ups.com/track?tracknum=1Z001" rel="noopener noreferrer" target="_blank">1Z001</a>`)
  })

  it("never turns a tracking address that is not a web page into a link", () => {
    const hostile = scenarioOrders.map((o) =>
      o.referenceId === "acme:1001" ? { ...o, shipments: o.shipments.map((s) => ({ ...s, trackingUrl: "javascript:alert(1)" })) } : o
    )
    const report = buildReport(scenarioInput({ orders: hostile }))
    expect(report.shipped[0]).toMatchObject({ trackingNo: "1Z001", trackingUrl: null })
    expect(reportHtml(report)).not.toContain("javascript:")
  })
})

describe("the CSV a spreadsheet opens", () => {
  const rows = csvRows(multiCurrencyInput(USD_EUR))

  it("keeps the first columns as they were and adds the money and shipping ones after them", () => {
    expect(CSV_COLUMNS.slice(0, 12)).toEqual([
      "section",
      "kind",
      "reason",
      "store",
      "reference_id",
      "order",
      "state",
      "since",
      "age_hours",
      "summary",
      "evidence",
      "action"
    ])
    expect(Object.keys(rows[0]!)).toEqual([...CSV_COLUMNS])
  })

  it("gives a row per order with its amounts in its currency's decimals, and in the base currency when there is a rate", () => {
    const orders = rows.filter((r) => r.section === "money_order")
    const pick = (r: CsvRow) => [
      r.reference_id,
      r.order,
      r.currency,
      r.revenue,
      r.pod_cost,
      r.margin,
      r.margin_percent,
      r.pod_order_id,
      r.revenue_in_base,
      r.margin_in_base,
      r.reason
    ]
    expect(orders.map(pick)).toEqual([
      ["acme:1001", "#1001", "USD", "40.00", "21.50", "18.50", "46.3", "O-1", "40.00", "18.50", ""],
      ["acme:1002", "#1002", "USD", "25.00", "12.00", "13.00", "52.0", "O-2", "25.00", "13.00", ""],
      ["acme:1011", "#1011", "USD", "18.00", "9.00", "9.00", "50.0", "O-11", "18.00", "9.00", ""],
      ["beta:2001", "#2001", "EUR", "30.00", "14.25", "15.75", "52.5", "O-21", "33.00", "17.33", ""],
      ["beta:2002", "#2002", "EUR", "22.00", "10.00", "12.00", "54.5", "O-22", "24.20", "13.20", ""],
      ["gamma:3001", "#3001", "JPY", "4500", "2100", "2400", "53.3", "O-3001", "", "", "no exchange rate for JPY"],
      ["gamma:3002", "#3002", "JPY", "3300", "1500", "1800", "54.5", "O-3002", "", "", "no exchange rate for JPY"]
    ])
    expect(new Set(orders.map((r) => r.base_currency))).toEqual(new Set(["USD"]))
  })

  it("gives a row per store and SKU with units and money", () => {
    const skus = rows.filter((r) => r.section === "money_sku")
    expect(skus.map((r) => [r.store, r.sku, r.units, r.currency, r.revenue, r.pod_cost, r.margin])).toEqual([
      ["acme", "CAP-RED", "1", "USD", "18.00", "9.00", "9.00"],
      ["acme", "MUG-11OZ", "1", "USD", "13.33", "7.17", "6.16"],
      ["acme", "TEE-BLK-M", "3", "USD", "51.67", "26.33", "25.34"],
      ["beta", "CAP-BLU", "2", "EUR", "14.67", "6.67", "8.00"],
      ["beta", "HOODIE-GRY-L", "2", "EUR", "37.33", "17.58", "19.75"],
      ["gamma", "TEE-BLK-M", "2", "JPY", "7800", "3600", "4200"]
    ])
  })

  it("gives a row per package shipped, with its tracking link", () => {
    expect(
      rows.filter((r) => r.section === "shipped").map((r) => [r.reference_id, r.pod_order_id, r.carrier, r.tracking_no, r.tracking_url])
    )
      .toEqual([
        ["acme:1001", "O-1", "UPS", "1Z001", "https://www.ups.com/track?tracknum=1Z001"],
        ["beta:2001", "O-21", "DHL", "DHL21", "https://www.dhl.com/track?id=DHL21"],
        ["gamma:3001", "O-3001", "", "TRK3001", ""],
        ["gamma:3002", "O-3002", "", "TRK3002", ""]
      ])
  })

  it("rounds each amount exactly to its currency's minor unit, half away from zero", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["JPY", "1234.5"],
      ["USD", "0.005"],
      ["USD", "-0.005"],
      ["USD", "-0.004"],
      ["BHD", "1.2345"],
      ["EUR", "1234567.891"]
    ]
    expect(cases.map(([currency, amount]) => plainAmount(money(currency, amount)))).toEqual([
      "1235",
      "0.01",
      "-0.01",
      "0.00",
      "1.235",
      "1234567.89"
    ])
  })
})

describe("the title and an empty day", () => {
  const period = (from: string, to: string | undefined, timezone = "UTC") =>
    Either.getOrThrow(periodFromFlags({ from, to }, Date.parse("2027-02-01T00:00:00Z"), timezone))

  it("names the stores and says the period in words", () => {
    expect(buildReport(scenarioInput()).title).toBe("Acme Shirts and Beta Mugs — Friday 20 November 2026")
    expect(buildReport(multiCurrencyInput(null)).title).toBe("Acme Shirts, Beta Mugs and Gamma Prints — Friday 20 November 2026")
    const beta = buildReport(scenarioInput({ stores: [scenarioInput().stores[1]!], store: "beta" }))
    expect(beta.title).toBe("Beta Mugs — Friday 20 November 2026")
    expect(reportHtml(beta)).toContain("<title>Beta Mugs — Friday 20 November 2026</title>")
    expect([
      period("2026-11-24", "2026-11-24"),
      period("2026-11-01", "2026-11-30"),
      period("2026-11-28", "2026-12-03"),
      period("2026-12-28", "2027-01-03"),
      period("2026-11-20T06:00:00Z", "2026-11-20T18:30:00Z"),
      period("2026-03-29", "2026-03-29", "Europe/Berlin")
    ].map(periodInWords)).toEqual([
      "Tuesday 24 November 2026",
      "1–30 November 2026",
      "28 November – 3 December 2026",
      "28 December 2026 – 3 January 2027",
      "Friday 20 November 2026, 06:00–18:30 (UTC)",
      "Sunday 29 March 2026"
    ])
  })

  it("says there were no orders in a period without any, and still lists who needs a person", () => {
    const quiet = quietDayInput()
    const report = buildReport(quiet)
    expect(report.period.words).toBe("Sunday 22 November 2026")
    const text = textOf(reportHtml(report))
    expect(text).toContain("No orders in this period.")
    // Two days on, beta's draft is late too: 8 orders wait for a person, whatever the day brought.
    expect(text).toContain("Need a person 8")
    expect(textOf(reportHtml(buildReport(scenarioInput())))).not.toContain("No orders in this period")
  })
})
