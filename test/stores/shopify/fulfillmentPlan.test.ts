import { describe, expect, it } from "@effect/vitest"
import type { FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import {
  type FulfillmentOrderState,
  type OrderFulfillmentState,
  planFulfillment,
  sameTrackingNumber
} from "../../../src/stores/shopify/ShopifyFulfillmentPlan.js"

const TEE = "gid://shopify/LineItem/1"
const MUG = "gid://shopify/LineItem/2"

const fo = (id: string, status: string, lines: Array<[foLine: string, lineItemId: string, remaining: number]>): FulfillmentOrderState => ({
  id,
  status,
  holds: status === "ON_HOLD" ? [{ reason: "INCORRECT_ADDRESS", reasonNotes: null }] : [],
  lines: lines.map(([id, lineItemId, remainingQuantity]) => ({ id, lineItemId, remainingQuantity }))
})

const state = (overrides: Partial<OrderFulfillmentState> = {}): OrderFulfillmentState => ({
  cancelled: false,
  sameTracking: [],
  fulfillmentOrders: [fo("FO-1", "OPEN", [["FOL-1", TEE, 2]]), fo("FO-2", "OPEN", [["FOL-2", MUG, 1]])],
  standing: [],
  ...overrides
})

const push = (lines: Array<[string, number]>): FulfillmentPush => ({
  storeOrderId: "1",
  lines: lines.map(([lineId, quantity]) => ({ lineId, quantity })) as unknown as FulfillmentPush["lines"],
  tracking: { company: "DHL Express", number: "JD0146 0000 1234" }
})

describe("Shopify fulfilment planning", () => {
  it("adds a later package's number to the fulfilment of an earlier package of the same lines, never to the seller's own", () => {
    const fulfilled = state({
      fulfillmentOrders: [fo("FO-1", "CLOSED", [["FOL-1", TEE, 0]]), fo("FO-2", "CLOSED", [["FOL-2", MUG, 0]])],
      standing: [
        { id: "F-POD", tracking: [{ company: "UPS", number: "1ZBOX1", url: "https://ups.example/1ZBOX1" }] },
        { id: "F-SELLER", tracking: [{ company: "USPS", number: "9400SELLER", url: null }] }
      ]
    })
    const later = { ...push([[TEE, 2], [MUG, 1]]), tracking: { company: "UPS", number: "1ZBOX2", url: "https://ups.example/1ZBOX2" } }
    expect(planFulfillment(fulfilled, { ...later, earlierTrackingNumbers: ["1zbox1"] })).toEqual({
      _tag: "AddTracking",
      fulfillmentId: "F-POD",
      tracking: { company: "UPS", numbers: ["1ZBOX1", "1ZBOX2"], urls: ["https://ups.example/1ZBOX1", "https://ups.example/1ZBOX2"] }
    })
    // Without an earlier POD package on the order there is nothing to add to.
    expect(planFulfillment(fulfilled, later)).toMatchObject({ outcome: { _tag: "NothingToFulfil" } })
    // A link missing on one number: the numbers alone (Shopify links a carrier it knows).
    const unlinked = { ...later, tracking: { company: "UPS", number: "1ZBOX2" }, earlierTrackingNumbers: ["1ZBOX1"] }
    expect(planFulfillment(fulfilled, unlinked)).toMatchObject({ tracking: { numbers: ["1ZBOX1", "1ZBOX2"] } })
    expect(planFulfillment(fulfilled, unlinked)).not.toHaveProperty("tracking.urls")
  })

  it("makes one creation per fulfillment order a package touches", () => {
    expect(planFulfillment(state(), push([[TEE, 2], [MUG, 1]]))).toEqual({
      _tag: "Create",
      creations: [
        { fulfillmentOrderId: "FO-1", lines: [{ id: "FOL-1", quantity: 2, lineItemId: TEE }] },
        { fulfillmentOrderId: "FO-2", lines: [{ id: "FOL-2", quantity: 1, lineItemId: MUG }] }
      ]
    })
  })

  it("creates only what an interrupted earlier push under the same tracking number did not", () => {
    const halfDone = state({
      sameTracking: [{ id: "F-1", lines: [{ lineId: TEE, quantity: 2 }] }],
      fulfillmentOrders: [fo("FO-1", "CLOSED", [["FOL-1", TEE, 0]]), fo("FO-2", "OPEN", [["FOL-2", MUG, 1]])]
    })
    expect(planFulfillment(halfDone, push([[TEE, 2], [MUG, 1]]))).toEqual({
      _tag: "Create",
      creations: [{ fulfillmentOrderId: "FO-2", lines: [{ id: "FOL-2", quantity: 1, lineItemId: MUG }] }]
    })
  })

  it("answers AlreadyPushed when fulfilments under the tracking number already cover the package", () => {
    const done = state({ sameTracking: [{ id: "F-1", lines: [{ lineId: TEE, quantity: 2 }] }] })
    expect(planFulfillment(done, push([[TEE, 2]]))).toEqual({
      _tag: "Decided",
      outcome: { _tag: "AlreadyPushed", fulfillmentIds: ["F-1"] }
    })
    // Even once the order is cancelled afterwards, the earlier push stands.
    expect(planFulfillment({ ...done, cancelled: true }, push([[TEE, 2]]))).toMatchObject({ outcome: { _tag: "AlreadyPushed" } })
  })

  it("matches tracking numbers whatever their spacing and case", () => {
    expect(sameTrackingNumber("JD0146 0000 1234", "jd014600001234")).toBe(true)
    expect(sameTrackingNumber("JD0146 0000 1234", "JD0146 0000 1235")).toBe(false)
  })

  it("holds the whole package when any of its units is held", () => {
    const held = state({ fulfillmentOrders: [fo("FO-1", "OPEN", [["FOL-1", TEE, 2]]), fo("FO-2", "ON_HOLD", [["FOL-2", MUG, 1]])] })
    expect(planFulfillment(held, push([[TEE, 2], [MUG, 1]]))).toEqual({
      _tag: "Decided",
      outcome: { _tag: "OnHold", holds: [{ heldId: "FO-2", reason: "INCORRECT_ADDRESS" }] }
    })
    // A package that does not touch the held fulfillment order goes through.
    expect(planFulfillment(held, push([[TEE, 2]]))._tag).toBe("Create")
  })

  it("spreads a line over the fulfillment orders that hold its units, and clamps to what is left", () => {
    const split = state({ fulfillmentOrders: [fo("FO-1", "IN_PROGRESS", [["FOL-1", TEE, 1]]), fo("FO-3", "OPEN", [["FOL-3", TEE, 1]])] })
    expect(planFulfillment(split, push([[TEE, 5]]))).toEqual({
      _tag: "Create",
      creations: [
        { fulfillmentOrderId: "FO-1", lines: [{ id: "FOL-1", quantity: 1, lineItemId: TEE }] },
        { fulfillmentOrderId: "FO-3", lines: [{ id: "FOL-3", quantity: 1, lineItemId: TEE }] }
      ]
    })
  })

  it("refuses lines that are not on the order and cancelled orders; reports when nothing is left", () => {
    expect(planFulfillment(state(), push([["gid://shopify/LineItem/9", 1]]))).toMatchObject({
      outcome: { _tag: "Rejected", reason: "unknown_lines" }
    })
    expect(planFulfillment(state({ cancelled: true }), push([[TEE, 1]]))).toMatchObject({
      outcome: { _tag: "Rejected", reason: "order_cancelled" }
    })
    const shipped = state({ fulfillmentOrders: [fo("FO-1", "CLOSED", [["FOL-1", TEE, 0]])] })
    expect(planFulfillment(shipped, push([[TEE, 1]]))).toMatchObject({ outcome: { _tag: "NothingToFulfil" } })
  })
})
