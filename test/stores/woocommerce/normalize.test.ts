import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option, Schema, TestClock } from "effect"
import * as Money from "../../../src/domain/Money.js"
import { NormalizedOrder } from "../../../src/domain/NormalizedOrder.js"
import { financialStatusOf, fulfillmentStatusOf, normalizeWooOrder } from "../../../src/stores/woocommerce/WooNormalize.js"
import { WooOrder } from "../../../src/stores/woocommerce/WooSchemas.js"
import { chiaraRossiShipTo, milanoNormalized } from "../contract/MilanoOrder.js"
import { milanoOrderPayload } from "./fixtures.js"
import { admin, connectTo, startSimulator, T0 } from "./harness.js"

const normalize = (payload: unknown) => normalizeWooOrder("acme-woo", Schema.decodeUnknownSync(WooOrder)(payload), payload)

describe("WooCommerce order normalization", () => {
  it("normalizes a realistic EU order with a partial refund exactly", () => {
    expect(normalize(milanoOrderPayload)).toEqual(
      Either.right({
        storeKey: "acme-woo",
        platform: "woocommerce",
        storeOrderId: "4187",
        name: "#4187",
        // The *_gmt fields, read as UTC: the site's local 10:30 is 09:30Z (createdAt).
        ...milanoNormalized,
        // The shipping address has no phone: the billing one is used.
        shipTo: chiaraRossiShipTo,
        shippingMethod: { title: "Spedizione standard", code: "flat_rate" },
        lines: [
          {
            lineId: "312",
            sku: "TEE-BLK-M",
            variantId: "318",
            productId: "311",
            title: "Classic Tee",
            variantTitle: "Black, M",
            quantity: 3,
            // One unit refunded.
            currentQuantity: 2,
            fulfillableQuantity: 2,
            attributes: [
              { key: "pa_color", value: "black" },
              { key: "pa_size", value: "m" },
              { key: "design_front", value: "https://cdn.example.com/designs/sunset-wave.png" },
              { key: "Personalizzazione", value: "Per la migliore nonna ♥" }
              // Not `_reduced_stock`: WooCommerce's own hidden meta is no attribute of the line.
            ],
            requiresShipping: true
          },
          {
            lineId: "313",
            // A simple product: its product id is what the mapping table names.
            variantId: "362",
            productId: "362",
            title: "Ceramic Mug",
            quantity: 1,
            currentQuantity: 1,
            fulfillableQuantity: 1,
            attributes: [{ key: "print_options", value: '{"finish":"gloss","wrap":true}' }],
            requiresShipping: true
          }
        ],
        note: "Citofono Rossi, 2° piano",
        tags: [],
        attributes: [
          { key: "is_vat_exempt", value: "no" },
          { key: "gift_message", value: "Buon compleanno!" }
        ],
        total: Either.getOrThrow(Money.fromDecimalString("EUR", "72.90")),
        raw: milanoOrderPayload
      })
    )
    // And it is storable: it encodes to plain JSON.
    expect(() => Schema.encodeSync(NormalizedOrder)(Either.getOrThrow(normalize(milanoOrderPayload)))).not.toThrow()
  })

  it("maps every status as the table in WooNormalize.ts says", () => {
    const paid = "2026-03-01T09:30:04"
    const cases: Array<
      [status: string, datePaid: string | null, refunds: number, financial: string, fulfillment: string, cancelled: boolean]
    > = [
      ["pending", null, 0, "pending", "unfulfilled", false],
      ["on-hold", null, 0, "pending", "on_hold", false],
      ["on-hold", paid, 0, "paid", "on_hold", false],
      ["processing", paid, 0, "paid", "unfulfilled", false],
      ["completed", paid, 1, "partially_refunded", "fulfilled", false],
      ["refunded", paid, 1, "refunded", "unfulfilled", true],
      ["cancelled", null, 0, "voided", "unfulfilled", true],
      ["failed", null, 0, "voided", "unfulfilled", true],
      ["awaiting-shipment", paid, 0, "paid", "unknown", false]
    ]
    for (const [status, datePaid, refunds, financial, fulfillment, cancelled] of cases) {
      const order = { status, date_paid_gmt: datePaid, refunds: Array.from({ length: refunds }, (_, id) => ({ id })) }
      expect([
        status,
        financialStatusOf(order),
        fulfillmentStatusOf(status),
        normalize({ ...milanoOrderPayload, ...order, refunds: [] }).pipe(Either.map((o) => o.cancelled), Either.getOrThrow)
      ]).toEqual([
        status,
        financial,
        fulfillment,
        cancelled
      ])
    }
    const onHold = Either.getOrThrow(normalize({ ...milanoOrderPayload, status: "on-hold" }))
    expect(onHold.holds).toEqual([{ heldId: "4187", reason: "on-hold" }])
    const completed = Either.getOrThrow(normalize({ ...milanoOrderPayload, status: "completed" }))
    expect(completed.lines.map((l) => l.fulfillableQuantity)).toEqual([0, 0])
  })

  it("reports what it cannot read instead of guessing", () => {
    expect(normalize({ ...milanoOrderPayload, date_modified_gmt: "yesterday" })).toEqual(
      Either.left('date_modified_gmt "yesterday" is not a timestamp')
    )
    expect(normalize({ ...milanoOrderPayload, total: "72,90" })).toMatchObject({ _tag: "Left" })
    expect(
      Either.getOrThrow(normalize({ ...milanoOrderPayload, shipping: { first_name: "", last_name: "", address_1: "", city: "" } })).shipTo
    ).toBeNull()
  })

  it.scoped("reads refunds through the API, so getOrder's quantities match the store's", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const sim = yield* startSimulator()
      const order = yield* admin(sim, "POST", "orders", { lineItems: [{ quantity: 3, price: "10.00" }, { quantity: 1, price: "5.00" }] })
      yield* admin(sim, "POST", `orders/${order.id}/refund`, {
        line_items: [{ id: order.line_items[0].id, quantity: 2 }],
        reason: "damaged"
      })
      const connector = yield* connectTo(sim)
      const read = Option.getOrThrow(yield* connector.getOrder(String(order.id)))
      expect(read.lines.map((l) => [l.quantity, l.currentQuantity, l.fulfillableQuantity])).toEqual([[3, 1, 1], [1, 1, 1]])
      expect(read.financialStatus).toBe("partially_refunded")
      // The refund's lines are kept in `raw`, so normalizing it again gives the same order.
      expect(normalize(read.raw)).toEqual(Either.right(read))
    }))
})
