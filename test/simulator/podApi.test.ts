import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { generateCatalog, runPodSimulatorStandalone, sampleAddress } from "../../src/simulator/pod/index.js"
import { AUTH, usePodSimulator } from "./podHarness.js"
import { listensStandalone } from "../support/standalone.js"

const pod = usePodSimulator({ rateLimit: false })

/** Protobuf JSON leaves zero parts out: $0.50 is `{ currency_code, nanos }`, $0 is `{ currency_code }`. */
const cents = (money: { currency_code: string; units?: number | string; nanos?: number }): number => {
  expect(money.currency_code).toBe("USD")
  expect(["number", "string", "undefined"]).toContain(typeof money.units)
  expect(money.units).not.toBe(0)
  expect(money.nanos).not.toBe(0)
  return Number(money.units ?? 0) * 100 + (money.nanos ?? 0) / 10_000_000
}

describe("auth and not-found answers", () => {
  it("answers 401 with the spec's error body for missing or wrong credentials", async () => {
    const missing = await pod.api("GET", "/api/v3/catalog", undefined, {})
    expect(missing.status).toBe(401)
    expect(missing.body).toEqual({ code: "UNAUTHENTICATED", message: expect.stringContaining("X-Gearment-Client-Key") })
    const wrong = await pod.api("GET", "/api/v3/orders", undefined, { ...AUTH, "X-Gearment-Client-Secret": "nope" })
    expect(wrong.status).toBe(401)
    expect(wrong.body.code).toBe("UNAUTHENTICATED")
  })

  it("answers 404 for unknown draft, order and webhook ids", async () => {
    for (const path of ["/api/v3/orders/draft/missing", "/api/v3/orders/missing"]) {
      const reply = await pod.api("GET", path)
      expect(reply.status).toBe(404)
      expect(reply.body).toMatchObject({
        code: "NOT_FOUND",
        message: expect.any(String),
        details: [{ field: "order_id", issue: expect.any(String) }]
      })
    }
    expect((await pod.api("DELETE", "/api/v3/webhooks/missing")).body).toMatchObject({ code: "NOT_FOUND", message: "webhook not found" })
    expect((await pod.api("POST", "/api/v3/orders/draft/missing/approve")).status).toBe(404)
  })

  it("serves the same paths under the real base prefix /integration-handler", async () => {
    expect((await pod.api("GET", "/integration-handler/api/v3/catalog?paging.limit=1")).status).toBe(200)
  })
})

describe("catalog", () => {
  it("holds a few dozen products and hundreds of variants with every stock label, deterministic per seed", async () => {
    const catalog = generateCatalog(1)
    expect(catalog.products.length).toBeGreaterThanOrEqual(24)
    expect(catalog.variants.length).toBeGreaterThanOrEqual(300)
    expect(new Set(catalog.variants.map((v) => v.stockLabel))).toEqual(
      new Set(["IN_STOCK", "OUT_OF_STOCK", "OUT_OF_STOCK_5D", "DISCONTINUED"])
    )
    expect(new Set(catalog.variants.map((v) => v.sku)).size).toBe(catalog.variants.length)
    expect(generateCatalog(1).variants.map((v) => v.variantId)).toEqual(catalog.variants.map((v) => v.variantId))
    expect(generateCatalog(2).variants[0]?.variantId).not.toBe(catalog.variants[0]?.variantId)
    const first = (await pod.api("GET", "/api/v3/catalog?paging.limit=1")).body
    expect(first.data[0]).toMatchObject({ product_id: catalog.products[0]?.productId, legacy_product_id: expect.any(Number) })
    expect(first.data[0].variants[0]).toMatchObject({
      hex_color_code: expect.stringMatching(/^#[0-9A-F]{6}$/),
      legacy_variant_id: expect.any(Number)
    })
  })

  it("pages with limit default 20, max 100, page from 1, total and total_page", async () => {
    const all = generateCatalog(1).variants.length
    const first = (await pod.api("GET", "/api/v3/catalog/variants")).body
    expect(first.data).toHaveLength(20)
    expect(first.paging).toMatchObject({ page: 1, limit: 20, total_page: Math.ceil(all / 20) })
    expect(Number(first.paging.total)).toBe(all)
    const big = (await pod.api("GET", "/api/v3/catalog/variants?paging.limit=500&paging.page=2")).body
    expect(big.paging).toMatchObject({ page: 2, limit: 100 })
    expect(big.data[0].variant_id).toBe(generateCatalog(1).variants[100]?.variantId)
    expect(typeof first.paging.total === typeof big.paging.total).toBe(false)
    expect((await pod.api("GET", "/api/v3/catalog/variants?paging.limit=-1")).status).toBe(400)
  })

  it("filters variants by every documented key, arrays as repeated keys", async () => {
    const v = generateCatalog(1).variants[5]!
    const q = async (query: string) => (await pod.api("GET", `/api/v3/catalog/variants?paging.limit=100&${query}`)).body.data as Array<any>
    expect((await q(`filter.variant_ids=${v.variantId}`)).map((x) => x.variant_sku)).toEqual([v.sku])
    expect((await q(`filter.skus=${v.sku}&filter.skus=nope`)).map((x) => x.variant_id)).toEqual([v.variantId])
    expect((await q(`filter.legacy_variant_ids=${v.legacyVariantId}`)).map((x) => x.variant_id)).toEqual([v.variantId])
    const byProduct = await q(`filter.product_ids=${v.productId}&filter.colors=${encodeURIComponent(v.color)}&filter.sizes=${v.size}`)
    expect(byProduct.map((x) => x.variant_id)).toEqual([v.variantId])
    const byHex = await q(
      `filter.product_ids=${v.productId}&filter.color_codes=${encodeURIComponent(v.hex)}&filter.size_codes=${v.sizeCode}`
    )
    expect(byHex.map((x) => x.variant_id)).toEqual([v.variantId])
    const discontinued = await q("filter.stock_labels=VENDOR_CATALOG_VARIANT_STOCK_LABEL_DISCONTINUED")
    expect(discontinued.length).toBeGreaterThan(0)
    expect(new Set(discontinued.map((x) => x.stock_label))).toEqual(new Set(["VENDOR_CATALOG_VARIANT_STOCK_LABEL_DISCONTINUED"]))
    const stock = (await pod.api("GET", `/api/v3/catalog/variants/stock?filter.variant_ids=${v.variantId}`)).body.data
    expect(stock[0].stock_label).toBe(`VENDOR_CATALOG_VARIANT_STOCK_LABEL_${v.stockLabel}`)
    expect((await pod.api("GET", "/api/v3/catalog/variants?filter.legacy_variant_ids=0")).status).toBe(400)
    expect((await pod.api("GET", `/api/v3/catalog?filter.search_text=${"x".repeat(101)}`)).status).toBe(400)
    expect((await pod.api("GET", "/api/v3/catalog?filter.search_text=hoodie")).body.data.length).toBeGreaterThan(0)
  })

  it("emits Money units both as numbers and as strings", async () => {
    const page = (await pod.api("GET", "/api/v3/catalog/variants?paging.limit=40")).body.data as Array<any>
    expect(new Set(page.map((v) => typeof v.price.units))).toEqual(new Set(["number", "string"]))
  })

  it("writes protobuf JSON: zero values are left out, down to a $0 Money's units", async () => {
    const page = (await pod.api("GET", "/api/v3/catalog/variants?paging.limit=100")).body.data as Array<any>
    // No extra charge: `extra_price` is `{ currency_code }`.
    expect(page.some((v) => v.extra_price !== undefined && v.extra_price.units === undefined && v.extra_price.nanos === undefined)).toBe(
      true
    )
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) {
        expect(value.length).toBeGreaterThan(0)
        value.forEach(walk)
      } else if (value !== null && typeof value === "object") {
        for (const inner of Object.values(value)) walk(inner)
      } else expect([0, "", false, null]).not.toContain(value)
    }
    walk(page)
    // An empty list answer has no `data` at all.
    const none = await pod.api("GET", "/api/v3/catalog/variants?filter.skus=NO-SUCH-SKU")
    expect(none.body).not.toHaveProperty("data")
  })
})

describe("shipping fees and the standalone runner", () => {
  it("answers first and additional item fees per variant and method", async () => {
    const v = generateCatalog(1).variants[0]!
    const reply = await pod.api(
      "GET",
      `/api/v3/catalog/variants/shipping-fee?filter.variant_ids=${v.variantId}&country_code=US&method=METHOD_STANDARD`
    )
    expect(reply.body.data).toEqual([expect.objectContaining({ variant_id: v.variantId, variant_sku: v.sku })])
    expect(reply.body.data[0].shipping_services).toEqual([expect.objectContaining({ shipping_service: "METHOD_STANDARD" })])
    expect(cents(reply.body.data[0].shipping_services[0].fee_amount)).toBe(469)
    expect(cents(reply.body.data[0].shipping_services[0].additional_item)).toBe(219)
    expect((await pod.api("GET", "/api/v3/catalog/variants/shipping-fee")).status).toBe(400)
  })

  it("starts standalone, prints where it listens, and serves", async () => {
    await listensStandalone("pod", runPodSimulatorStandalone, async (sim) => {
      expect((await fetch(`${sim.url}/api/v3/catalog?paging.limit=1`, { headers: AUTH })).status).toBe(200)
    })
  })
})

describe("price quotes", () => {
  it("obey total = subtotal + shipping + tax + fees − discount, for the order and every line (property)", async () => {
    const variants = generateCatalog(1).variants.slice(0, 200)
    const lineArb = fc.record({
      variant: fc.constantFrom(...variants),
      quantity: fc.integer({ min: 1, max: 12 }),
      print_locations: fc.subarray(["front", "back", "PRINT_LOCATION_CODE_POCKET", "left_sleeve"], { minLength: 1 })
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArb, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(["US", "CA"], ["US", "OR"], ["DE", "BE"], ["GB", "LND"], ["JP", "13"]),
        fc.constantFrom("standard", "METHOD_FAST_SHIP", "ground", "stamp"),
        fc.boolean(),
        async (lines, [country, state], method, gift) => {
          const body = {
            order_platform: "",
            shipping: { address: { country_code: country, state_code: state, method } },
            line_items: lines.map((l) => ({ variant_id: l.variant.variantId, quantity: l.quantity, print_locations: l.print_locations })),
            ...(gift ? { gift_messages: [{ gift_message_id: "g1", content: "Happy birthday" }] } : {})
          }
          const first = await pod.api("POST", "/api/v3/orders/price", body)
          expect(first.status).toBe(200)
          const q = first.body.data
          const fees = q.fees.reduce((sum: number, f: any) => sum + cents(f.amount), 0)
          expect(cents(q.order_fee)).toBe(fees)
          expect(cents(q.order_total)).toBe(
            cents(q.order_sub_total) + cents(q.order_shipping_fee) + cents(q.order_tax) + fees - cents(q.order_discount)
          )
          for (const line of q.line_items) {
            expect(cents(line.line_total)).toBe(
              cents(line.line_sub_total) + cents(line.line_tax) + cents(line.line_fee) - cents(line.line_discount)
            )
          }
          expect(q.fees.some((f: any) => f.fee_code === "GIFT_MESSAGE_FEE")).toBe(gift)
          expect((await pod.api("POST", "/api/v3/orders/price", body)).body).toEqual(first.body)
        }
      ),
      { numRuns: 25 }
    )
  })

  it("gives drafts the same totals as the quote for the same items", async () => {
    const draft = await pod.createDraft({ referenceId: "q:1", quantity: 2 })
    const quoteBody = {
      order_platform: "shopify",
      shipping: { address: { country_code: "US", state_code: "CA", method: "METHOD_STANDARD" } },
      line_items: [{ variant_id: draft.line_items[0].variant.variant_id, quantity: 2, print_locations: ["front"] }]
    }
    const q = (await pod.api("POST", "/api/v3/orders/price", quoteBody)).body.data
    expect(cents(draft.order_total)).toBe(cents(q.order_total))
    expect(cents(draft.order_tax)).toBeGreaterThan(0)
  })
})

describe("legacy v2 operations", () => {
  const creds = { api_key: "sim-client-key", api_signature: "anything-non-empty" }

  it("creates a draft from flat fields and reads it back by its integer id", async () => {
    const variant = generateCatalog(1).variants.find((v) => v.stockLabel === "IN_STOCK")!
    const reply = await pod.api("POST", "/api/v2/orders/draft", {
      ...creds,
      external_id: "legacy:1",
      store_id: "store-9",
      shipping_name: "Grace Hopper",
      shipping_address1: sampleAddress.street_1,
      shipping_city: sampleAddress.city,
      shipping_province_code: "NY",
      shipping_zipcode: "10001",
      shipping_country_code: "US",
      shipping_method: 1,
      line_items: [{ variant_id: variant.legacyVariantId, quantity: 2, designs: { front: "https://d.example.com/f.png" } }]
    }, {})
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ status: "success", result: { id: expect.any(Number), name: expect.any(String) } })
    const id = reply.body.result.id
    const read = await pod.api("GET", `/api/v2/orders/${id}?api_key=sim-client-key&api_signature=x`, undefined, {})
    expect(read.body.result).toMatchObject({
      ord_id: id,
      external_id: "legacy:1",
      items: [{ quantity: 2, variant_id: variant.legacyVariantId }]
    })
    const v3 = (await pod.api("GET", "/api/v3/orders/draft?filter.reference_ids=legacy:1")).body.data
    expect(v3[0].addresses[0]).toMatchObject({ first_name: "Grace", last_name: "Hopper", state_code: "NY" })
    const item = read.body.result.items[0].order_item_id
    const update = await pod.api("POST", "/api/v2/orders/draft/line-items", {
      ...creds,
      order_id: id,
      line_items: [{ order_item_id: item, variant_id: variant.legacyVariantId, quantity: 5, design_link: "https://d.example.com/f2.png" }]
    }, {})
    expect(update.body).toMatchObject({ status: "success", result: { id } })
    await pod.admin("POST", "/__sim/checkout-all", { paid: true })
    const after = (await pod.api("GET", `/api/v2/orders/${id}?api_key=sim-client-key&api_signature=x`, undefined, {})).body.result
    expect(after).toMatchObject({ ord_status: "awaiting_fulfillment", items: [{ quantity: 5 }] })
  })

  it("rejects a wrong api_key or an empty signature with 401, and names bad fields", async () => {
    expect((await pod.api("POST", "/api/v2/orders/price", { api_key: "wrong", api_signature: "x" }, {})).status).toBe(401)
    expect((await pod.api("POST", "/api/v2/orders/price", { api_key: "sim-client-key", api_signature: "" }, {})).status).toBe(401)
    const bad = await pod.api("POST", "/api/v2/orders/draft", { ...creds, store_id: "s", shipping_country_code: "USA", line_items: [] }, {})
    expect(bad.status).toBe(400)
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(
      expect.arrayContaining(["shipping_country_code", "shipping_name", "line_items"])
    )
  })

  it("quotes prices as plain numbers", async () => {
    const variant = generateCatalog(1).variants[0]!
    const reply = await pod.api("POST", "/api/v2/orders/price", {
      ...creds,
      shipping_country_code: "US",
      shipping_province_code: "TX",
      shipping_method: 2,
      line_items: [{ variant_id: variant.legacyVariantId, quantity: 1, design_link: "https://d.example.com/f.png" }]
    }, {})
    const data = reply.body.data
    expect(data.currency).toBe("USD")
    expect(data.total).toBeCloseTo(
      data.sub_total + data.shipping_fee + data.tax + data.handle_fee + data.gift_message_fee - data.total_discount,
      6
    )
  })
})
