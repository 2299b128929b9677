// The real service writes protobuf JSON: a field holding its zero value (0, "",
// false, an empty list, a Money's zero units or nanos) is left out. Whatever
// subset of zero-valued fields an answer drops, the client must read the same
// thing as from the answer with every field written.
import { Either, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Money from "../../src/domain/Money.js"
import { CatalogVariantListResponse } from "../../src/pod/schemas/Catalog.js"
import { CreatedDraftResponse, DraftListResponse, DraftResponse } from "../../src/pod/schemas/Drafts.js"
import { OrderListResponse, OrderProgressListResponse, OrderResponse, primaryTrackingNumber } from "../../src/pod/schemas/Orders.js"
import { PriceQuoteResponse } from "../../src/pod/schemas/Price.js"

type Wire = null | boolean | number | string | ReadonlyArray<Wire> | { readonly [key: string]: Wire }

/** Int64 fields protobuf JSON writes as text, and ids the client keeps as text: their zero is "0". */
const INT64_TEXT = new Set(["units", "id", "total", "legacy_id"])

const isZero = (key: string, value: Wire): boolean =>
  value === 0 || value === "" || value === false || (Array.isArray(value) && value.length === 0) || (INT64_TEXT.has(key) && value === "0")

/** Drops each zero-valued field whose coin says so (a pure function of the path, so shrinking stays stable). */
const dropZeros = (value: Wire, drop: (path: string) => boolean, path = ""): Wire => {
  if (Array.isArray(value)) return value.map((item, i) => dropZeros(item, drop, `${path}[${i}]`))
  if (value === null || typeof value !== "object") return value
  const out: Record<string, Wire> = {}
  for (const [key, field] of Object.entries(value as Record<string, Wire>)) {
    const at = `${path}.${key}`
    if (isZero(key, field) && drop(at)) continue
    out[key] = dropZeros(field, drop, at)
  }
  return out
}

/** What the client reads, with absent and zero made the same (Money compared by amount, an int64 id "0" as zero). */
const normalise = (value: unknown, key = ""): unknown => {
  if (value instanceof Money.Money) return `${Money.toDecimalString(value)} ${value.currency}`
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map((item) => normalise(item))
  if (value === null || typeof value !== "object") {
    return value === "" || value === false || value === 0 || (INT64_TEXT.has(key) && value === "0") ? undefined : value
  }
  const out: Record<string, unknown> = {}
  for (const [field, inner] of Object.entries(value)) {
    const n = normalise(inner, field)
    if (n !== undefined) out[field] = n
  }
  return out
}

const zeroOr = <A>(arb: fc.Arbitrary<A>, zero: A) => fc.oneof(fc.constant(zero), arb)

const money: fc.Arbitrary<Wire> = fc
  .tuple(zeroOr(fc.integer({ min: -500, max: 5_000 }), 0), zeroOr(fc.integer({ min: 1, max: 999_999_999 }), 0), fc.boolean())
  .map(([units, nanos, unitsAsText]) => ({
    currency_code: "USD",
    units: unitsAsText ? String(units) : units,
    nanos: units < 0 ? -nanos : nanos
  }))
const text = zeroOr(fc.string({ minLength: 1, maxLength: 8 }), "")
const count = zeroOr(fc.integer({ min: 1, max: 50 }), 0)
const flag = fc.boolean()
const listOf = (arb: fc.Arbitrary<Wire>) => fc.array(arb, { maxLength: 3 })
const when = zeroOr(fc.constant("2026-11-24T12:00:00Z"), "")

const orderLine = fc.record({
  id: fc.oneof(count, text),
  line_item_id: text,
  quantity: count,
  product_name: text,
  variant_sku: text,
  item_price: money,
  line_tax: money,
  line_discount: money,
  line_total: money
})
const orderListLine = fc.record({
  id: text,
  quantity: count,
  product_sku: text,
  item_price: money,
  line_total: money,
  variant: fc.record({ variant_id: text, sku: text, legacy_id: count, stock_label: fc.constantFrom("VENDOR_STOCK_LABEL_IN_STOCK", 1) })
})
const tracking = fc.record({
  tracking_no: text,
  carrier: text,
  tracking_url: text,
  tracking_type: fc.constantFrom("TRACKING_TYPE_PRIMARY", 2)
})

const order = fc.record({
  order_id: fc.string({ minLength: 1, maxLength: 8 }),
  reference_id: text,
  order_status: fc.constantFrom("VENDOR_ORDER_STATUS_SHIPPED", 5),
  is_label_attached: flag,
  tracking_no: text,
  order_total: money,
  order_discount: money,
  order_tax: money,
  paid_total: money,
  created_at: when,
  line_items: listOf(orderLine),
  order_trackings: listOf(tracking)
})
const orderListItem = fc.record({
  order_id: fc.string({ minLength: 1, maxLength: 8 }),
  reference_id: text,
  order_status: fc.constantFrom("VENDOR_ORDER_STATUS_IN_PRODUCTION", 7),
  tracking_number: text,
  tracking_link: text,
  tracking_company: text,
  order_total: money,
  order_tax: money,
  shipped_at: when,
  line_items: listOf(orderListLine)
})
const draft = fc.record({
  order_id: fc.string({ minLength: 1, maxLength: 8 }),
  reference_id: text,
  status: fc.constantFrom("VENDOR_ORDER_DRAFT_STATUS_DRAFT", 3),
  is_approved: flag,
  auto_approve: flag,
  origin_order_id: text,
  order_total: money,
  order_discount: money,
  line_items: listOf(fc.record({ id: count, quantity: count, line_total: money }))
})
const variant = fc.record({
  variant_id: fc.string({ minLength: 1, maxLength: 12 }),
  variant_sku: text,
  sku: text,
  color_code: text,
  legacy_variant_id: count,
  price: money,
  extra_price: money,
  net_price: money,
  stock_label: fc.constantFrom("VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK", 2)
})
const quote = fc.record({
  order_total: money,
  order_discount: money,
  order_tax: money,
  order_shipping_fee: money,
  line_items: listOf(fc.record({ id: text, item_quantity: count, line_total: money, item_discount: money })),
  fees: listOf(fc.record({ fee_code: text, amount: money }))
})

const envelope = (data: fc.Arbitrary<Wire>) => fc.record({ status: fc.constant("success"), message: text, data })
const list = (item: fc.Arbitrary<Wire>) =>
  fc.record({ status: fc.constant("success"), message: text, data: listOf(item), paging: fc.record({ total: count, page: count }) })

const cases: ReadonlyArray<readonly [string, Schema.Schema<unknown, unknown>, fc.Arbitrary<Wire>]> = [
  ["whole order", OrderResponse as unknown as Schema.Schema<unknown, unknown>, envelope(order)],
  ["order list", OrderListResponse as unknown as Schema.Schema<unknown, unknown>, list(orderListItem)],
  ["order progress list", OrderProgressListResponse as unknown as Schema.Schema<unknown, unknown>, list(orderListItem)],
  ["whole draft", DraftResponse as unknown as Schema.Schema<unknown, unknown>, envelope(draft)],
  ["draft list", DraftListResponse as unknown as Schema.Schema<unknown, unknown>, list(draft)],
  [
    "draft create",
    CreatedDraftResponse as unknown as Schema.Schema<unknown, unknown>,
    fc.record({ status: fc.constant("success"), data: draft, warnings: listOf(fc.string({ minLength: 1 })) })
  ],
  ["catalog variants", CatalogVariantListResponse as unknown as Schema.Schema<unknown, unknown>, list(variant)],
  ["price quote", PriceQuoteResponse as unknown as Schema.Schema<unknown, unknown>, envelope(quote)]
]

describe("answers with zero values left out, as protobuf JSON writes them", () => {
  for (const [name, schema, answer] of cases) {
    it(`${name}: any subset of zero-valued fields dropped decodes to the same values (property)`, () => {
      const decode = Schema.decodeUnknownEither(schema)
      fc.assert(
        fc.property(answer, fc.func(fc.boolean()), (full, coin) => {
          const whole = decode(full)
          const sparse = decode(dropZeros(full, (path) => coin(path)))
          expect(Either.isRight(whole), String(Either.isLeft(whole) && whole.left)).toBe(true)
          expect(Either.isRight(sparse), String(Either.isLeft(sparse) && sparse.left)).toBe(true)
          if (Either.isRight(whole) && Either.isRight(sparse)) expect(normalise(sparse.right)).toEqual(normalise(whole.right))
        }),
        { numRuns: 150 }
      )
    })
  }

  it("reads a $0.50 and a $0 amount, an empty list answer and a false flag", () => {
    const decoded = Schema.decodeUnknownSync(OrderResponse)({
      data: { order_id: "o1", order_total: { currency_code: "USD", nanos: 500_000_000 }, order_tax: { currency_code: "USD" } }
    })
    expect(Money.toDecimalString(decoded.data.order_total!)).toBe("0.5")
    expect(Money.isZero(decoded.data.order_tax!)).toBe(true)
    expect(Schema.decodeUnknownSync(DraftListResponse)({ status: "success", paging: { page: 1 } }).data).toEqual([])
    expect(Schema.decodeUnknownSync(DraftResponse)({ data: { order_id: "d1" } }).data.is_approved).toBe(false)
  })

  it("reads the primary tracking of a list item under either name", () => {
    const [item] =
      Schema.decodeUnknownSync(OrderProgressListResponse)({ data: [{ order_id: "o1", tracking_number: "1Z9", order_status: 7 }] }).data
    expect(primaryTrackingNumber(item!)).toBe("1Z9")
    expect(item!.order_status).toBe("VENDOR_ORDER_STATUS_SHIPPED")
    expect(primaryTrackingNumber({ tracking_no: "1Z8" })).toBe("1Z8")
  })
})
