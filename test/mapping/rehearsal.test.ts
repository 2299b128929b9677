import { Either } from "effect"
import { describe, expect, it } from "vitest"
import type { CatalogLookup } from "../../src/domain/MappingTable.js"
import * as Money from "../../src/domain/Money.js"
import type { RehearsalRun, RehearsedOrder } from "../../src/domain/Rehearsal.js"
import { planDraft, type StoreSettings } from "../../src/mapping/DraftPlan.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import { expectedWarnings, linesToMap, quoteOfDraft, readPlan, secondsUnderBudget } from "../../src/mapping/Rehearsal.js"
import { rehearsalCsv, rehearsalHtml } from "../../src/reports/RehearsalFormats.js"
import { buildRehearsalReport } from "../../src/reports/RehearsalReport.js"
import { sampleLine, sampleOrder } from "../support/orders.js"

const HEADER =
  "store_variant_id,store_sku,pod_variant_id,pod_legacy_id,print_front,print_back,print_pocket,print_left_sleeve,print_right_sleeve,print_whole,barcode_url,ignore"
const table = parseMappingCsv([
  HEADER,
  ",TEE-BLK-M,GM0002010011,,{{attr design_front}},https://cdn.example.com/back.png,,,,,,",
  ",HOODIE-L,,12345,https://cdn.example.com/h.png,,,,,,,",
  ",GIFT-WRAP,,,,,,,,,,yes"
].join("\n")).table

const settings: StoreSettings = {
  storeKey: "acme-shopify",
  platform: "shopify",
  podStoreId: "store-acme",
  shipping: { default: "METHOD_STANDARD", byTitle: { Express: "METHOD_FAST_SHIP" } },
  eligibleFinancialStatuses: ["PAID"],
  billing: { iossNumber: "IM2760000742" }
}

const catalog: CatalogLookup = (key) =>
  "legacyId" in key && key.legacyId === "12345"
    ? {
      variantId: "GM0002030044",
      legacyId: 12345,
      name: "Hoodie, Heather Grey / L",
      stockLabel: "VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"
    }
    : "variantId" in key && key.variantId === "GM0002010011"
    ? { variantId: "GM0002010011", legacyId: 11, name: "Tee, Black / M", stockLabel: "VENDOR_STOCK_LABEL_AT_RISK" }
    : undefined

describe("a rehearsal's reading of a plan", () => {
  it("prices a planned draft as the service would price the draft itself: lines, locations, destination, shipping, billing", () => {
    const plan = planDraft(
      sampleOrder({
        lines: [sampleLine(), sampleLine({ lineId: "2", sku: "HOODIE-L", variantId: "7", quantity: 1, fulfillableQuantity: 1 })],
        attributes: [{ key: "gift_message", value: "Alles Gute zum Geburtstag, liebe Oma! ".repeat(12) }]
      }),
      table,
      catalog,
      settings
    )
    if (plan._tag !== "Ready") throw new Error(`expected Ready, got ${plan._tag}`)
    const quote = quoteOfDraft(plan.draft, catalog)
    expect(Either.getOrThrow(quote)).toEqual({
      order_platform: "shopify",
      billing: { ioss_number: "IM2760000742" },
      shipping: { address: { method: "METHOD_FAST_SHIP", state_code: "BY", country_code: "DE" } },
      line_items: [
        { variant_id: "GM0002010011", quantity: 2, print_locations: ["PRINT_LOCATION_CODE_FRONT", "PRINT_LOCATION_CODE_BACK"] },
        // Mapped by legacy id: quoted by the variant id the catalog gives it.
        { variant_id: "GM0002030044", quantity: 1, print_locations: ["PRINT_LOCATION_CODE_FRONT"] }
      ],
      gift_messages: [{ gift_message_id: "gift", content: expect.stringMatching(/^Alles Gute/) }]
    })
    expect(Either.getOrThrow(quote).gift_messages?.[0]?.content).toHaveLength(300)
    // Without the catalog the legacy id cannot be quoted, and the seller is told what to do.
    expect(Either.flip(quoteOfDraft(plan.draft, undefined))).toEqual(Either.right(expect.stringContaining("legacy variant 12345")))
    expect(expectedWarnings(plan.draft, catalog)).toEqual([expect.stringContaining("Tee, Black / M (GM0002010011) is at risk")])
  })

  it("says held, skipped and why in the pipeline's terms, with the SKUs to map", () => {
    const unmatched = sampleOrder({ lines: [sampleLine({ sku: "MUG-WHT-11OZ", variantId: "99", title: "Mug", variantTitle: "White" })] })
    const plan = planDraft(unmatched, table, catalog, settings)
    if (plan._tag === "Ready") throw new Error("expected a hold")
    expect(readPlan(unmatched, plan)).toMatchObject({ outcome: "held", reason: "unmatched", state: "held" })
    expect(linesToMap(unmatched, plan)).toEqual([{ sku: "MUG-WHT-11OZ", title: "Mug / White", variantId: "99" }])

    const unpaid = sampleOrder({ financialStatus: "pending" })
    const unpaidPlan = planDraft(unpaid, table, catalog, settings)
    if (unpaidPlan._tag === "Ready") throw new Error("expected a hold")
    expect(readPlan(unpaid, unpaidPlan)).toMatchObject({ outcome: "skipped", reason: "unpaid", state: "held" })

    const shipped = sampleOrder({ lines: [sampleLine({ fulfillableQuantity: 0 })] })
    const shippedPlan = planDraft(shipped, table, catalog, settings)
    if (shippedPlan._tag === "Ready") throw new Error("expected not POD")
    expect(readPlan(shipped, shippedPlan)).toMatchObject({ outcome: "skipped", reason: "fulfilled_elsewhere", state: "not_pod" })

    const wrap = sampleOrder({ lines: [sampleLine({ sku: "GIFT-WRAP", variantId: "5" })] })
    const wrapPlan = planDraft(wrap, table, catalog, settings)
    if (wrapPlan._tag === "Ready") throw new Error("expected not POD")
    expect(readPlan(wrap, wrapPlan)).toMatchObject({ outcome: "skipped", reason: "not_pod", state: "not_pod" })

    const cancelled = sampleOrder({ cancelled: true })
    const cancelledPlan = planDraft(cancelled, table, catalog, settings)
    if (cancelledPlan._tag === "Ready") throw new Error("expected cancelled")
    expect(readPlan(cancelled, cancelledPlan)).toMatchObject({ outcome: "skipped", reason: "cancelled", state: "cancelled" })
  })

  it("measures the least time calls take under the budget: the first window is free, then one window per 95 calls", () => {
    expect(secondsUnderBudget(0, 95, 10)).toBe(0)
    expect(secondsUnderBudget(95, 95, 10)).toBe(0)
    expect(secondsUnderBudget(96, 95, 10)).toBe(10)
    expect(secondsUnderBudget(1000, 95, 10)).toBe(100)
  })
})

const usd = (text: string) => Either.getOrThrow(Money.fromDecimalString("USD", text))
const eur = (text: string) => Either.getOrThrow(Money.fromDecimalString("EUR", text))

const rehearsed = (overrides: Partial<RehearsedOrder>): RehearsedOrder => ({
  storeKey: "acme-shopify",
  storeOrderId: "5550001",
  referenceId: "acme-shopify:5550001",
  name: "#1001",
  createdAt: "2026-11-20T10:00:00Z",
  outcome: "drafted",
  reason: "",
  message: "would be drafted",
  state: "drafted",
  toMap: [],
  shippingMethod: "METHOD_STANDARD",
  economyAsStandard: false,
  paid: usd("48.00"),
  podCost: usd("21.37"),
  quoteProblem: null,
  lines: [{ sku: "TEE-BLK-M", title: "Logo Tee / Black / M", quantity: 2, podCost: usd("17.00") }],
  warnings: [],
  ...overrides
})

describe("the rehearsal report", () => {
  const run: RehearsalRun = {
    storeKey: "acme-shopify",
    platform: "shopify",
    days: 30,
    from: "2026-10-30T12:00:00.000Z",
    to: "2026-11-29T12:00:00.000Z",
    orders: [
      rehearsed({}),
      rehearsed({ storeOrderId: "5550002", name: "#1002", createdAt: "2026-11-21T09:00:00Z", paid: eur("30.00"), podCost: usd("20.00") }),
      rehearsed({
        storeOrderId: "5550003",
        name: '=HYPERLINK("http://evil.example")',
        createdAt: "2026-11-21T11:00:00Z",
        outcome: "held",
        reason: "unmatched",
        state: "held",
        message: 'no mapping row for "Mug"',
        shippingMethod: null,
        podCost: null,
        lines: [],
        toMap: [{ sku: "MUG-WHT-11OZ", title: "Mug / White" }]
      })
    ],
    toMap: [{ sku: "MUG-WHT-11OZ", title: "Mug / White", orders: 1, suggestion: "GM0003000011 = MUG-11 (Mug, White / 11oz)" }],
    unreadable: [],
    api: {
      storePages: 1,
      coverageCalls: 0,
      quoteCalls: 2,
      elapsedMs: 1200,
      storeReadMs: 300,
      budgetSeconds: 0,
      budget: { requests: 95, windowSeconds: 10 }
    }
  }

  it("counts, groups and adds up per day and SKU, with margins in one currency or through the exchange rates", () => {
    const report = buildRehearsalReport(run, "2026-11-29T12:00:05.000Z", { base: "USD", rates: { EUR: "1.08" } })
    expect(report.counts).toEqual({ orders: 3, drafted: 2, held: 1, skipped: 0 })
    expect(report.states).toEqual({ drafted: 2, held: 1, cancelled: 0, not_pod: 0 })
    expect(report.held).toEqual([{ reason: "unmatched", orders: 1, example: 'no mapping row for "Mug"', names: [run.orders[2]!.name] }])
    expect(report.money.podCost.map(String)).toEqual(["41.37 USD"])
    expect(report.money.paid.map(String)).toEqual(["48 USD", "30 EUR"])
    expect(report.orders[0]!.margin?.toString()).toBe("26.63 USD")
    expect(report.orders[0]!.marginPercent).toBe("55.5")
    // 30 EUR at 1.08 is 32.40 USD, less 20.00 USD.
    expect(report.orders[1]!.margin?.toString()).toBe("12.4 USD")
    expect(report.perDay.map((d) => [d.day, d.orders, d.drafted, d.held])).toEqual([["2026-11-20", 1, 1, 0], ["2026-11-21", 2, 1, 1]])
    expect(report.perSku).toEqual([expect.objectContaining({ sku: "TEE-BLK-M", units: 4, orders: 2 })])
    // Without a rate the mixed-currency margin is left out, never made up.
    expect(buildRehearsalReport(run, "2026-11-29T12:00:05.000Z", null).orders[1]!.margin).toBeNull()
  })

  it("writes CSV whose buyer-written cells cannot run as formulas, and HTML that escapes them", () => {
    const report = buildRehearsalReport(run, "2026-11-29T12:00:05.000Z", null)
    const csv = rehearsalCsv(report)
    expect(csv).toContain("'=HYPERLINK")
    expect(csv.split("\n")[0]).toBe(
      "section,store,reference_id,order,created_at,outcome,reason,message,shipping_method,economy_as_standard,currency,paid,pod_currency,pod_cost,margin,margin_percent,sku,item,units,orders,suggestion,warnings"
    )
    expect(csv).toContain('to_map,acme-shopify,,,,,,,,,,,,,,,MUG-WHT-11OZ,Mug / White,,1,"GM0003000011 = MUG-11 (Mug, White / 11oz)",')
    const html = rehearsalHtml(report)
    expect(html).toContain("=HYPERLINK(&quot;http://evil.example&quot;)")
    expect(html).not.toContain('<a href="http://evil')
    expect(html).toContain("MUG-WHT-11OZ")
  })
})
