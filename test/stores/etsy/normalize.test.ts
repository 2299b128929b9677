import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import * as Money from "../../../src/domain/Money.js"
import { NormalizedOrder } from "../../../src/domain/NormalizedOrder.js"
import { planDraft } from "../../../src/mapping/DraftPlan.js"
import { parseMappingCsv } from "../../../src/mapping/MappingCsv.js"
import { normalizeEtsyReceipt } from "../../../src/stores/etsy/EtsyNormalize.js"
import { decodeEtsyReceipt } from "../../../src/stores/etsy/EtsyReceipts.js"
import { decodeHtmlEntities } from "../../../src/stores/etsy/HtmlEntities.js"
import { realisticReceipt } from "./fixtures.js"

const normalize = (raw: unknown) =>
  Either.flatMap(Either.mapLeft(decodeEtsyReceipt(raw), (e) => e.message), (receipt) => normalizeEtsyReceipt("acme-etsy", receipt, raw))

const normalizeOk = (raw: unknown) => Either.getOrThrowWith(normalize(raw), (problem) => new Error(problem))

describe("Etsy receipt normalization", () => {
  it("turns a realistic receipt into exactly the normalized order", () => {
    expect(normalizeOk(realisticReceipt)).toEqual({
      storeKey: "acme-etsy",
      platform: "etsy",
      storeOrderId: "3401234567",
      name: "3401234567",
      createdAt: "2026-03-01T09:30:00Z",
      updatedAt: "2026-03-01T10:30:00Z",
      currency: "GBP",
      financialStatus: "paid",
      fulfillmentStatus: "unfulfilled",
      cancelled: false,
      holds: [],
      shipTo: {
        name: "Siobhán O'Connell",
        line1: "13 O'Connell Street",
        line2: "Flat 2",
        city: "London",
        postalCode: "SW1A 1AA",
        countryCode: "GB"
      },
      shippingMethod: { title: "Standard Shipping" },
      lines: [
        {
          lineId: "4012345678",
          sku: "TEE-BLK-M",
          variantId: "12000020117",
          productId: "1587342201",
          title: "Men's Classic Tee – Custom Print",
          variantTitle: "Color: Black / Size: M",
          quantity: 2,
          currentQuantity: 2,
          fulfillableQuantity: 2,
          attributes: [
            { key: "Color", value: "Black" },
            { key: "Size", value: "M" },
            { key: "Personalization", value: "https://designs.example.com/retro-cat.png?dpi=300&bleed=3" }
          ],
          requiresShipping: true
        },
        {
          lineId: "4012345679",
          variantId: "12000099901",
          productId: "1587349999",
          title: "Printable Birthday Card (digital download)",
          quantity: 1,
          currentQuantity: 1,
          fulfillableQuantity: 1,
          attributes: [],
          requiresShipping: false
        }
      ],
      note: "It's a gift & a surprise!",
      tags: [],
      attributes: [
        { key: "is_gift", value: "true" },
        { key: "gift_message", value: "Happy birthday, Aoife!" }
      ],
      total: Money.fromNanos("GBP", 73_500_000_000n),
      raw: realisticReceipt
    })
  })

  it("encodes to plain JSON, as the pipeline stores it", () => {
    const encoded = Schema.encodeSync(NormalizedOrder)(normalizeOk(realisticReceipt))
    expect(encoded.total).toEqual({ currency_code: "GBP", units: 73, nanos: 500_000_000 })
  })

  it("records a withheld address as withheld (the name kept, as Etsy sends it), and a partly missing one with only what Etsy sent", () => {
    const published = {
      ...realisticReceipt,
      name: "Jordan Avery",
      first_line: null,
      second_line: null,
      city: null,
      state: null,
      zip: null,
      country_iso: null,
      formatted_address: null
    }
    const asPublished = normalizeOk(published)
    expect(asPublished.shipTo).toEqual({ name: "Jordan Avery" })
    expect(asPublished.withheld).toEqual([{
      fields: ["shipTo.line1", "shipTo.city", "shipTo.postalCode", "shipTo.countryCode"],
      reason: expect.stringContaining("Etsy withholds this buyer's shipping address")
    }])
    expect(normalizeOk(realisticReceipt).withheld).toBeUndefined()
    // The plan holds it as withheld by the store, in Etsy's words, not as an address to fix.
    const header =
      "store_variant_id,store_sku,pod_variant_id,pod_legacy_id,print_front,print_back,print_pocket,print_left_sleeve,print_right_sleeve,print_whole,barcode_url,ignore"
    const rows = asPublished.lines.map((line) => `${line.variantId ?? ""},,GM0002010011,,https://d.example.com/front.png,,,,,,,`)
    const plan = planDraft(asPublished, parseMappingCsv([header, ...rows].join("\n")).table, undefined, {
      storeKey: "acme-etsy",
      platform: "etsy",
      podStoreId: "store-acme",
      shipping: { default: "METHOD_STANDARD", byTitle: {} },
      eligibleFinancialStatuses: ["paid"]
    })
    expect(plan).toMatchObject({ _tag: "Held", code: "withheld_by_store" })
    expect(plan._tag === "Held" && plan.message).toBe(
      "the store withheld the buyer's address, postal code, country from podsync, so the order cannot be drafted: " +
        asPublished.withheld![0]!.reason
    )
    const withheld = {
      ...realisticReceipt,
      name: null,
      first_line: null,
      second_line: null,
      city: null,
      state: null,
      zip: null,
      country_iso: null,
      formatted_address: null
    }
    expect(normalizeOk(withheld).shipTo).toBeNull()
    expect(normalizeOk(withheld).withheld?.length).toBe(1)
    const partial = { ...withheld, name: "Jordan Avery", country_iso: "US", state: "OR" }
    expect(normalizeOk(partial).shipTo).toEqual({ name: "Jordan Avery", region: "OR", regionCode: "OR", countryCode: "US" })
    const lineWithheld = { ...realisticReceipt, name: null, first_line: null }
    expect(normalizeOk(lineWithheld).shipTo).toEqual({
      name: "",
      line2: "Flat 2",
      city: "London",
      postalCode: "SW1A 1AA",
      countryCode: "GB"
    })
  })

  it("keeps unpaid, cancelled, refunded and shipped receipts with their status and nothing left to fulfil when gone", () => {
    const unpaid = normalizeOk({ ...realisticReceipt, status: "Payment Processing", is_paid: false })
    expect([unpaid.financialStatus, unpaid.cancelled, unpaid.lines[0]!.fulfillableQuantity]).toEqual(["pending", false, 2])
    const cancelled = normalizeOk({ ...realisticReceipt, status: "Canceled" })
    expect([cancelled.financialStatus, cancelled.cancelled, cancelled.lines[0]!.currentQuantity, cancelled.lines[0]!.fulfillableQuantity])
      .toEqual([
        "refunded",
        true,
        0,
        0
      ])
    const partlyRefunded = normalizeOk({ ...realisticReceipt, status: "Partially Refunded" })
    expect([partlyRefunded.financialStatus, partlyRefunded.lines[0]!.fulfillableQuantity]).toEqual(["partially_refunded", 2])
    const shipped = normalizeOk({
      ...realisticReceipt,
      status: "Completed",
      is_shipped: true,
      shipments: [{
        receipt_shipping_id: 1098765401,
        shipment_notification_timestamp: 1772400000,
        carrier_name: "usps",
        tracking_code: "9400"
      }]
    })
    expect([shipped.financialStatus, shipped.fulfillmentStatus, shipped.lines[0]!.fulfillableQuantity]).toEqual(["paid", "fulfilled", 0])
    expect(normalizeOk({ ...realisticReceipt, status: "Something New" }).financialStatus).toBe("unknown")
  })

  it("accepts either spelling of the timestamps and says why a receipt cannot be read", () => {
    const { created_timestamp: _c, updated_timestamp: _u, ...oldNames } = realisticReceipt
    expect(normalizeOk(oldNames).updatedAt).toBe("2026-03-01T10:30:00Z")
    const { create_timestamp: _c2, update_timestamp: _u2, ...newNames } = realisticReceipt
    expect(normalizeOk(newNames).createdAt).toBe("2026-03-01T09:30:00Z")
    expect(normalize({ ...realisticReceipt, grandtotal: null })).toEqual(Either.left("the receipt has no grandtotal, so no currency"))
    expect(Either.isLeft(normalize({ ...realisticReceipt, grandtotal: { amount: 7350, divisor: 3, currency_code: "GBP" } }))).toBe(true)
    expect(Either.isLeft(normalize({ ...realisticReceipt, is_paid: "yes" }))).toBe(true)
  })

  it("decodes the HTML entities Etsy puts in text, once, and leaves the rest alone", () => {
    expect(decodeHtmlEntities("O&#39;Connell &amp; Sons &quot;Ltd&quot; &#x1F600; &lt;b&gt;")).toBe('O\'Connell & Sons "Ltd" 😀 <b>')
    expect(decodeHtmlEntities("&amp;#39;")).toBe("&#39;")
    expect(decodeHtmlEntities("Fish & Chips &unknown; &#0; &#xD800;")).toBe("Fish & Chips &unknown; &#0; &#xD800;")
  })
})
