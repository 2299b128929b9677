import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option, Schema } from "effect"
import * as Money from "../../../src/domain/Money.js"
import { NormalizedOrder } from "../../../src/domain/NormalizedOrder.js"
import { normalizeShopifyOrder } from "../../../src/stores/shopify/ShopifyNormalize.js"
import { ShopifyOrder } from "../../../src/stores/shopify/ShopifySchemas.js"
import { chiaraRossiShipTo, milanoNormalized } from "../contract/MilanoOrder.js"
import { milanoOrderPayload } from "./fixtures.js"
import { admin, connectTo, startSimulator } from "./harness.js"

/** The fixture's shipping address without its `name`, as the simulator's admin API takes one. */
const { name: _, ...addressWithoutName } = milanoOrderPayload.shippingAddress

const decode = (payload: unknown) => Schema.decodeUnknownSync(ShopifyOrder)(payload)
const normalize = (payload: unknown) => normalizeShopifyOrder("acme-shopify", decode(payload), payload)

describe("Shopify order normalization", () => {
  it("normalizes a realistic multi-line EU order with a partially refunded line exactly", () => {
    const result = normalize(milanoOrderPayload)
    expect(result).toEqual(
      Either.right({
        storeKey: "acme-shopify",
        platform: "shopify",
        storeOrderId: "5610000042",
        name: "#1042",
        ...milanoNormalized,
        shipTo: { ...chiaraRossiShipTo, region: "Milano", country: "Italy" },
        shippingMethod: { title: "Spedizione standard", code: "STANDARD" },
        lines: [
          {
            lineId: "gid://shopify/LineItem/13980000042",
            sku: "TEE-BLK-M",
            variantId: "44880001012",
            productId: "7981230001",
            title: "Classic Tee",
            variantTitle: "Black / M",
            quantity: 3,
            currentQuantity: 2,
            fulfillableQuantity: 2,
            attributes: [
              { key: "design_url", value: "https://cdn.example.com/designs/sunset-wave.png" },
              { key: "_preview", value: "https://cdn.example.com/previews/sunset-wave-tee.jpg" }
            ],
            requiresShipping: true
          },
          {
            lineId: "gid://shopify/LineItem/13980000043",
            // The line has no SKU of its own: the variant's is used.
            sku: "MUG-WHT-11OZ",
            variantId: "44880004021",
            productId: "7981230004",
            title: "Ceramic Mug",
            variantTitle: "White / 11OZ",
            quantity: 1,
            currentQuantity: 1,
            fulfillableQuantity: 1,
            attributes: [
              { key: "Personalizzazione", value: "Per la migliore nonna ♥" },
              { key: "font", value: "" }
            ],
            requiresShipping: true
          },
          {
            lineId: "gid://shopify/LineItem/13980000044",
            title: "Gift wrap",
            quantity: 1,
            currentQuantity: 1,
            fulfillableQuantity: 1,
            attributes: [],
            requiresShipping: false
          }
        ],
        note: "Consegna dopo le 18, grazie",
        tags: ["vip", "repeat-buyer"],
        attributes: [{ key: "gift_message", value: "Buon compleanno, nonna!" }],
        total: Either.getOrThrow(Money.fromDecimalString("EUR", "64.50")),
        raw: milanoOrderPayload
      })
    )
  })

  it("encodes to plain JSON and decodes back to the same order", () => {
    const order = Either.getOrThrow(normalize(milanoOrderPayload))
    const json = JSON.parse(JSON.stringify(Schema.encodeSync(NormalizedOrder)(order)))
    expect(json.total).toEqual({ currency_code: "EUR", units: 64, nanos: 500_000_000 })
    expect(Schema.decodeUnknownSync(NormalizedOrder)(json)).toEqual(order)
  })

  it("keeps cancelled, unpaid and held orders with their status", () => {
    const cancelled = Either.getOrThrow(
      normalize({
        ...milanoOrderPayload,
        cancelledAt: "2026-03-02T12:00:00Z",
        cancelReason: "CUSTOMER",
        displayFinancialStatus: "REFUNDED",
        lineItems: {
          ...milanoOrderPayload.lineItems,
          nodes: milanoOrderPayload.lineItems.nodes.map((line) => ({ ...line, currentQuantity: 0, unfulfilledQuantity: 0 }))
        }
      })
    )
    expect(cancelled).toMatchObject({
      cancelled: true,
      cancelledAt: "2026-03-02T12:00:00Z",
      cancelReason: "customer",
      financialStatus: "refunded"
    })
    expect(cancelled.lines.map((l) => l.fulfillableQuantity)).toEqual([0, 0, 0])

    const unpaid = Either.getOrThrow(normalize({ ...milanoOrderPayload, displayFinancialStatus: "PENDING" }))
    expect(unpaid.financialStatus).toBe("pending")

    const held = Either.getOrThrow(
      normalize({
        ...milanoOrderPayload,
        displayFulfillmentStatus: "ON_HOLD",
        fulfillmentOrders: {
          nodes: [
            {
              id: "gid://shopify/FulfillmentOrder/1",
              status: "ON_HOLD",
              fulfillmentHolds: [{ reason: "HIGH_RISK_OF_FRAUD", reasonNotes: "manual review" }]
            },
            { id: "gid://shopify/FulfillmentOrder/2", status: "CLOSED", fulfillmentHolds: [] }
          ]
        }
      })
    )
    expect(held.fulfillmentStatus).toBe("on_hold")
    expect(held.holds).toEqual([{ heldId: "gid://shopify/FulfillmentOrder/1", reason: "HIGH_RISK_OF_FRAUD" }])
  })

  it("counts only units neither removed nor shipped as still to fulfil", () => {
    const partly = Either.getOrThrow(
      normalize({
        ...milanoOrderPayload,
        displayFulfillmentStatus: "PARTIALLY_FULFILLED",
        lineItems: {
          ...milanoOrderPayload.lineItems,
          // 3 bought, 1 refunded, 1 shipped: 1 left.
          nodes: [{ ...milanoOrderPayload.lineItems.nodes[0], currentQuantity: 2, unfulfilledQuantity: 1 }]
        }
      })
    )
    expect(partly.fulfillmentStatus).toBe("partial")
    expect(partly.lines[0]).toMatchObject({ quantity: 3, currentQuantity: 2, fulfillableQuantity: 1 })
  })

  it("reports an order it cannot read instead of guessing", () => {
    expect(normalize({ ...milanoOrderPayload, updatedAt: "yesterday" })).toEqual(
      Either.left('updatedAt "yesterday" is not a timestamp')
    )
    expect(Either.isLeft(normalize({ ...milanoOrderPayload, currentTotalPriceSet: { shopMoney: { amount: "1e3", currencyCode: "EUR" } } })))
      .toBe(true)
  })

  it.scopedLive("normalizes the same kind of order read from the simulator over HTTP", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const created = yield* admin(sim, "POST", "orders", {
        email: "chiara.rossi@example.it",
        currencyCode: "EUR",
        financialStatus: "PAID",
        note: "Consegna dopo le 18, grazie",
        tags: ["vip"],
        customAttributes: [{ key: "gift_message", value: "Buon compleanno, nonna!" }],
        shippingAddress: { ...addressWithoutName, company: null },
        shippingLine: { title: "Spedizione standard", code: "STANDARD" },
        lineItems: [
          {
            sku: "TEE-BLK-M",
            title: "Classic Tee",
            variantTitle: "Black / M",
            quantity: 3,
            price: "24.00",
            variantId: "44880001012",
            productId: "7981230001",
            customAttributes: [{ key: "design_url", value: "https://cdn.example.com/designs/sunset-wave.png" }]
          },
          {
            sku: "MUG-WHT-11OZ",
            title: "Ceramic Mug",
            variantTitle: "White / 11OZ",
            quantity: 1,
            price: "16.00",
            variantId: "44880004021",
            productId: "7981230004",
            customAttributes: [{ key: "Personalizzazione", value: "Per la migliore nonna ♥" }]
          }
        ]
      })
      const [tee, mug] = created.lineItems
      // One of the three tees is refunded.
      const refunded = yield* admin(sim, "PATCH", `orders/${created.legacyResourceId}`, {
        financialStatus: "PARTIALLY_REFUNDED",
        lineItems: [{ id: tee.id, currentQuantity: 2 }]
      })
      const connector = yield* connectTo(sim)
      const order = Option.getOrThrow(yield* connector.getOrder(created.legacyResourceId))
      expect({ ...order, raw: undefined, total: undefined }).toEqual({
        storeKey: "acme-shopify",
        platform: "shopify",
        storeOrderId: created.legacyResourceId,
        name: created.name,
        createdAt: created.createdAt,
        updatedAt: refunded.updatedAt,
        currency: "EUR",
        financialStatus: "partially_refunded",
        fulfillmentStatus: "unfulfilled",
        cancelled: false,
        holds: [],
        email: "chiara.rossi@example.it",
        shipTo: {
          name: "Chiara Rossi",
          firstName: "Chiara",
          lastName: "Rossi",
          line1: "Via Dante 12",
          city: "Milano",
          region: "Milano",
          regionCode: "MI",
          postalCode: "20121",
          countryCode: "IT",
          country: "Italy",
          phone: "+39 02 5550 1234"
        },
        shippingMethod: { title: "Spedizione standard", code: "STANDARD" },
        lines: [
          {
            lineId: tee.id,
            sku: "TEE-BLK-M",
            variantId: "44880001012",
            productId: "7981230001",
            title: "Classic Tee",
            variantTitle: "Black / M",
            quantity: 3,
            currentQuantity: 2,
            fulfillableQuantity: 2,
            attributes: [{ key: "design_url", value: "https://cdn.example.com/designs/sunset-wave.png" }],
            requiresShipping: true
          },
          {
            lineId: mug.id,
            sku: "MUG-WHT-11OZ",
            variantId: "44880004021",
            productId: "7981230004",
            title: "Ceramic Mug",
            variantTitle: "White / 11OZ",
            quantity: 1,
            currentQuantity: 1,
            fulfillableQuantity: 1,
            attributes: [{ key: "Personalizzazione", value: "Per la migliore nonna ♥" }],
            requiresShipping: true
          }
        ],
        note: "Consegna dopo le 18, grazie",
        tags: ["vip"],
        attributes: [{ key: "gift_message", value: "Buon compleanno, nonna!" }]
      })
      expect(order.total?.currency).toBe("EUR")
      expect(order.raw).toMatchObject({
        legacyResourceId: created.legacyResourceId,
        lineItems: { nodes: [{ id: tee.id }, { id: mug.id }] }
      })
    }))
})
