import { describe, expect, it } from "vitest"
import { planDraft, type StoreSettings } from "../../src/mapping/DraftPlan.js"
import { type CatalogLookup } from "../../src/domain/MappingTable.js"
import { findRow } from "../../src/domain/MappingTable.js"
import { errorsOf, formatIssue, parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import { chooseTable } from "../../src/pipeline/MappingFile.js"
import { sampleLine, sampleOrder } from "../support/orders.js"

const HEADER =
  "store_variant_id,store_sku,pod_variant_id,pod_legacy_id,print_front,print_back,print_pocket,print_left_sleeve,print_right_sleeve,print_whole,barcode_url,ignore"

const csv = (...rows: Array<string>) => [HEADER, ...rows].join("\n")

const line = sampleLine
const order = sampleOrder

const settings: StoreSettings = {
  storeKey: "acme-shopify",
  platform: "shopify",
  podStoreId: "store-acme",
  shipping: { default: "METHOD_STANDARD", byTitle: { Express: "METHOD_FAST_SHIP" } },
  eligibleFinancialStatuses: ["PAID", "PARTIALLY_REFUNDED"],
  billing: { iossNumber: "IM2760000742" }
}

const table = parseMappingCsv(csv(
  ",TEE-BLK-M,var-black-m,,{{attr design_front}},,,,,,,",
  "44009999,,,,https://cdn.example.com/a.png,https://cdn.example.com/b.png,,,,,https://cdn.example.com/bar.png,",
  ",HOODIE-L,,12345,https://cdn.example.com/h.png,,,,,,,",
  ",GIFT-CARD,,,,,,,,,,yes"
)).table

const inStock = (entries: Record<string, string>): CatalogLookup => (key) => {
  const id = "variantId" in key ? key.variantId : "legacyId" in key ? `legacy:${key.legacyId}` : `sku:${key.sku}`
  const label = entries[id]
  return label === undefined
    ? undefined
    : { variantId: id, legacyId: undefined, name: "Black / M", stockLabel: `VENDOR_CATALOG_VARIANT_STOCK_LABEL_${label}` }
}

describe("variant-matching table", () => {
  it("reads a valid file and matches by variant id first, then SKU, accepting gid:// ids", () => {
    const { table: t, issues } = parseMappingCsv(csv(
      "gid://shopify/ProductVariant/777,TEE-BLK-M,var-by-variant,,https://x.example/f.png,,,,,,,",
      ",TEE-BLK-M,var-by-sku,,https://x.example/f.png,,,,,,,"
    ))
    // Row 2 carries the SKU too, so row 3 can never match: reported, the first row wins.
    expect(issues).toEqual([{
      line: 3,
      column: "store_sku",
      message: "SKU TEE-BLK-M is mapped again (first on line 2); the first row wins",
      warning: true
    }])
    expect(findRow(t, { variantId: "777", sku: "OTHER" })?.pod).toEqual({ variantId: "var-by-variant" })
    expect(findRow(t, { variantId: "gid://shopify/ProductVariant/777" })?.line).toBe(2)
    expect(findRow(t, { variantId: "123", sku: "TEE-BLK-M" })?.pod).toEqual({ variantId: "var-by-variant" })
    expect(findRow(t, { sku: "NOPE" })).toBeUndefined()
  })

  it("names every bad row by line and column", () => {
    const { issues } = parseMappingCsv(csv(
      ",A,var-1,55,https://x.example/f.png,,,,,,,",
      ",B,,,https://x.example/f.png,,,,,,,",
      ",C,var-3,,,,https://x.example/p.png,,,,,",
      ",D,var-4,,not-a-url,,,,,,,",
      ",E,var-5,,https://x.example/f.png,,,,,,,maybe",
      ",,var-6,,https://x.example/f.png,,,,,,,"
    ))
    expect(issues.map((i) => [i.line, i.column])).toEqual([
      [2, "pod_variant_id"],
      [3, "pod_variant_id"],
      [4, "print_front"],
      [5, "print_front"],
      [5, "print_front"],
      [6, "ignore"],
      [7, undefined]
    ])
    expect(issues[0]?.message).toBe("give exactly one of pod_variant_id and pod_legacy_id, not both")
    expect(issues[3]?.message).toBe('expected an http(s) URL or {{attr NAME}}, got "not-a-url"')
  })

  it("rejects a file without the contract's header, naming what a row cannot do without", () => {
    const { issues } = parseMappingCsv("sku,variant\nA,1")
    expect(issues[0]?.message).toBe(
      "missing columns: store_variant_id or store_sku; pod_variant_id or pod_legacy_id (or ignore); a print column (print_front, print_back, …)"
    )
  })

  it("takes a file with only the columns it needs", () => {
    const { issues, table: t } = parseMappingCsv("store_sku,pod_variant_id,print_front\nTEE-BLK-M,var-1,https://x.example/f.png\n")
    expect(issues).toEqual([])
    expect(findRow(t, { sku: "TEE-BLK-M" })?.pod).toEqual({ variantId: "var-1" })
    expect(parseMappingCsv("store_sku,ignore\nGIFT-WRAP,true\n").issues).toEqual([])
  })

  it("says a semicolon-separated file is one, instead of listing missing columns", () => {
    const { issues } = parseMappingCsv("store_sku;pod_variant_id;print_front\nTEE-BLK-M;var-1;https://x.example/f.png\n")
    expect(issues).toEqual([{
      line: 1,
      column: undefined,
      message: "the file is separated by semicolons (;): save it as comma-separated CSV (in a spreadsheet: CSV UTF-8, comma)"
    }])
  })

  it("warns of a duplicate row and still loads the file whole", () => {
    const parsed = parseMappingCsv(
      "store_sku,pod_variant_id,print_front\nTEE-BLK-M,var-1,https://x.example/f.png\nTEE-BLK-M,var-2,https://x.example/f.png\n"
    )
    expect(errorsOf(parsed.issues)).toEqual([])
    expect(formatIssue("m.csv", parsed.issues[0]!)).toBe(
      "warning: m.csv:3: store_sku: SKU TEE-BLK-M is mapped again (first on line 2); the first row wins"
    )
    expect(chooseTable({ file: "m.csv", digest: "x", ...parsed }, undefined).outcome).toBe("loaded")
  })
})

describe("planning a draft", () => {
  it("builds the draft: reference id, platform, address, shipping by title, designs from attributes, IOSS", () => {
    const plan = planDraft(
      order({
        lines: [
          line(),
          line({ lineId: "L2", sku: "GIFT-CARD", variantId: "1", requiresShipping: true }),
          line({ lineId: "L3", sku: "HOODIE-L", variantId: "2", fulfillableQuantity: 1 })
        ]
      }),
      table,
      undefined,
      settings
    )
    expect(plan).toEqual({
      _tag: "Ready",
      lines: [
        { lineId: "gid://shopify/LineItem/1", quantity: 2, mappingLine: 2 },
        { lineId: "L3", quantity: 1, mappingLine: 4 }
      ],
      draft: {
        reference_id: "acme-shopify:5550001",
        platform: "MARKETPLACE_PLATFORM_SHOPIFY",
        store_id: "store-acme",
        address: {
          first_name: "Anna",
          last_name: "Schmidt",
          street_1: "Hauptstraße 5",
          state_code: "BY",
          state_name: "Bayern",
          city: "München",
          zip_code: "80331",
          country_code: "DE",
          country_name: "Germany",
          phone_no: "+49 89 1234567",
          email: "anna@example.com",
          type: "TYPE_SHIP_TO"
        },
        shipping_method: "METHOD_FAST_SHIP",
        line_items: [
          {
            variant_id: "var-black-m",
            quantity: 2,
            printing_options: [{ location_code: "PRINT_LOCATION_CODE_FRONT", url: "https://cdn.example.com/d/front.png" }]
          },
          {
            legacy_id: 12345,
            quantity: 1,
            printing_options: [{ location_code: "PRINT_LOCATION_CODE_FRONT", url: "https://cdn.example.com/h.png" }]
          }
        ],
        billing_option: { ioss_number: "IM2760000742" }
      }
    })
  })

  it("drafts only what is still to ship (refunded units are gone)", () => {
    const plan = planDraft(
      order({ lines: [line({ quantity: 3, currentQuantity: 1, fulfillableQuantity: 1 })] }),
      table,
      undefined,
      settings
    )
    expect(plan._tag === "Ready" && plan.draft.line_items[0]?.quantity).toBe(1)
  })

  it("holds an order with an unmatched SKU, naming the line and what to do", () => {
    const plan = planDraft(
      order({ lines: [line({ sku: "MUG-11OZ", variantId: "999", title: "Mug", variantTitle: undefined })] }),
      table,
      undefined,
      settings
    )
    expect(plan).toMatchObject({
      _tag: "Held",
      code: "unmatched",
      message: 'no mapping row for "Mug" (SKU MUG-11OZ): add its variant id or SKU to the store\'s mapping file'
    })
  })

  it("names the store's mapping file by its path when the configuration gives it", () => {
    const plan = planDraft(
      order({ lines: [line({ sku: "MUG-11OZ", variantId: "999", title: "Mug", variantTitle: undefined })] }),
      table,
      undefined,
      { ...settings, mappingFile: "./config/mappings/acme-woo.csv" }
    )
    expect(plan).toMatchObject({
      _tag: "Held",
      message: 'no mapping row for "Mug" (SKU MUG-11OZ): add its variant id or SKU to ./config/mappings/acme-woo.csv'
    })
  })

  it("holds an unpaid order until it is paid, and marks a cancelled one cancelled", () => {
    expect(planDraft(order({ financialStatus: "pending" }), table, undefined, settings)).toMatchObject({ _tag: "Held", code: "unpaid" })
    expect(planDraft(order({ cancelled: true }), table, undefined, settings)).toEqual({ _tag: "Cancelled" })
  })

  it("holds for discontinued and out-of-stock catalog variants, and leaves unknown ones to the service", () => {
    expect(planDraft(order(), table, inStock({ "var-black-m": "DISCONTINUED" }), settings)).toMatchObject({
      _tag: "Held",
      code: "discontinued"
    })
    expect(planDraft(order(), table, inStock({ "var-black-m": "OUT_OF_STOCK" }), settings)).toMatchObject({
      _tag: "Held",
      code: "out_of_stock"
    })
    // Not in the cache: the cache may be partial, so the service decides (a 400 holds the order).
    expect(planDraft(order(), table, inStock({}), settings)._tag).toBe("Ready")
    expect(planDraft(order(), table, inStock({ "var-black-m": "IN_STOCK" }), settings)._tag).toBe("Ready")
  })

  it("holds a row whose pod_variant_id is a catalog SKU, naming the variant to write instead", () => {
    const typedSku = parseMappingCsv(csv(",TEE-BLK-M,SKU-TS-BLK-M,,{{attr design_front}},,,,,,,")).table
    const catalog: CatalogLookup = (key) =>
      "sku" in key && key.sku.toLowerCase() === "sku-ts-blk-m"
        ? { variantId: "var-black-m", legacyId: undefined, name: "Unisex Tee, Black / M", stockLabel: "IN_STOCK" }
        : undefined
    const plan = planDraft(order(), typedSku, catalog, settings)
    expect(plan).toMatchObject({ _tag: "Held", code: "unknown_variant" })
    expect(plan._tag === "Held" && plan.message).toContain(
      `mapping line 2: "SKU-TS-BLK-M" is not a POD variant id: that is the SKU of variant var-black-m (Unisex Tee, Black / M); write var-black-m in pod_variant_id`
    )
    // A variant id the cache does not know, and no SKU either, is still the service's to judge.
    expect(planDraft(order(), typedSku, () => undefined, settings)._tag).toBe("Ready")
  })

  it("holds when the design attribute is missing, and lists every problem at once", () => {
    const plan = planDraft(order({ financialStatus: "pending", lines: [line({ attributes: [] })] }), table, undefined, settings)
    expect(plan._tag).toBe("Held")
    if (plan._tag !== "Held") return
    expect(plan.problems.map((p) => p.code)).toEqual(["unpaid", "missing_design"])
    expect(plan.message).toMatch(
      /^2 problems: \(1\) financial status is "pending".*\(2\) "Logo Tee \/ Black \/ M" \(SKU TEE-BLK-M\) has no "design_front" custom attribute/
    )
  })

  it("holds an address the service would refuse, naming the field and the limit", () => {
    const plan = planDraft(
      order({ shipTo: { ...order().shipTo!, city: "Llanfairpwllgwyngyllgogerychwyrndrobwll" } }),
      table,
      undefined,
      settings
    )
    expect(plan).toMatchObject({ _tag: "Held", code: "address" })
    expect(plan._tag === "Held" && plan.message).toMatch(/shipping address city \(city\) .*at most 30 character.*39 characters/)
    expect(planDraft(order({ shipTo: null }), table, undefined, settings)).toMatchObject({ message: "the order has no shipping address" })
  })

  it("holds an order whose reference id would pass the service's 255 characters, saying what to do", () => {
    // "acme-shopify:" is 13 characters: an order id of 242 just fits, one of 243 does not.
    expect(planDraft(order({ storeOrderId: "7".repeat(242) }), table, undefined, settings)._tag).toBe("Ready")
    const plan = planDraft(order({ storeOrderId: "7".repeat(243) }), table, undefined, settings)
    expect(plan).toMatchObject({ _tag: "Held", code: "reference_too_long", problems: [{ code: "reference_too_long" }] })
    expect(plan._tag === "Held" && plan.message).toMatch(
      /order id is 243 characters long.*would be 256 characters, more than the 255 the POD service accepts.*by hand.*shorter store key/
    )
    // Every reason is listed at once, as for any hold.
    const unpaid = planDraft(order({ storeOrderId: "7".repeat(300), financialStatus: "pending" }), table, undefined, settings)
    expect(unpaid._tag === "Held" && unpaid.problems.map((p) => p.code)).toEqual(["unpaid", "reference_too_long"])
  })

  it("does not draft an order whose items are all ignored or already shipped", () => {
    expect(planDraft(order({ lines: [line({ sku: "GIFT-CARD", variantId: "1" })] }), table, undefined, settings)).toMatchObject({
      _tag: "NotPod"
    })
    expect(planDraft(order({ lines: [line({ fulfillableQuantity: 0 })] }), table, undefined, settings)).toEqual({
      _tag: "NotPod",
      message: "nothing left to ship"
    })
  })
})

describe("variant-matching table line numbers", () => {
  it("names the file's own line even after blank lines and multi-line quoted fields", () => {
    const text = [HEADER, "", ",A,var-1,,https://x.example/f.png,,,,,,,", ',"B', 'C",var-2,,not-a-url,,,,,,,', ""].join("\n")
    const { issues, table: t } = parseMappingCsv(text)
    expect(t.rows[0]?.line).toBe(3)
    // The quoted field spans lines 4-5; csv-parse reports the line the record ends on.
    expect(issues.map((i) => [i.line, i.column])).toEqual([[5, "print_front"], [5, "print_front"]])
  })
})
