import { Effect } from "effect"
import * as ReferenceId from "../../src/domain/ReferenceId.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import type { NormalizedLine, NormalizedOrder } from "../../src/domain/NormalizedOrder.js"

/** A realistic normalized store order for tests; override what the test is about. */
export const sampleLine = (overrides: Partial<NormalizedLine> = {}): NormalizedLine => ({
  lineId: "gid://shopify/LineItem/1",
  sku: "TEE-BLK-M",
  variantId: "44001122",
  productId: "9001",
  title: "Logo Tee",
  variantTitle: "Black / M",
  quantity: 2,
  currentQuantity: 2,
  fulfillableQuantity: 2,
  attributes: [{ key: "design_front", value: "https://cdn.example.com/d/front.png" }],
  requiresShipping: true,
  ...overrides
})

export const sampleOrder = (overrides: Partial<NormalizedOrder> = {}): NormalizedOrder => ({
  storeKey: "acme-shopify",
  platform: "shopify",
  storeOrderId: "5550001",
  name: "#1001",
  createdAt: "2026-11-20T10:00:00Z",
  updatedAt: "2026-11-20T10:05:00Z",
  currency: "EUR",
  financialStatus: "paid",
  fulfillmentStatus: "unfulfilled",
  cancelled: false,
  holds: [],
  email: "anna@example.com",
  shipTo: {
    name: "Anna Schmidt",
    firstName: "Anna",
    lastName: "Schmidt",
    line1: "Hauptstraße 5",
    city: "München",
    region: "Bayern",
    regionCode: "BY",
    postalCode: "80331",
    countryCode: "DE",
    country: "Germany",
    phone: "+49 89 1234567"
  },
  shippingMethod: { title: "express", code: "EXP" },
  lines: [sampleLine()],
  tags: [],
  attributes: [],
  raw: { id: "gid://shopify/Order/5550001" },
  ...overrides
})

/** A pulled order of the acme-shopify store stored as `sampleOrder` for `storeOrderId`: the repo, the order's reference and its row id. */
export const storedSampleOrder = (storeOrderId: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const reference = ReferenceId.keyOf("acme-shopify", storeOrderId)
    const { id: rowId } = yield* repo.upsertPulled(sampleOrder({ storeOrderId }), reference)
    return { repo, reference, rowId }
  })
