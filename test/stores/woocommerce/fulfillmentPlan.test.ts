import { describe, expect, it } from "@effect/vitest"
import type { FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import { planWooFulfillment, type WooFulfillmentState } from "../../../src/stores/woocommerce/WooFulfillmentPlan.js"

const state = (overrides: Partial<WooFulfillmentState> = {}): WooFulfillmentState => ({
  storeOrderId: "4187",
  status: "processing",
  lines: [{ lineId: "312", currentQuantity: 2 }, { lineId: "313", currentQuantity: 1 }],
  trackingRecords: [],
  packages: [],
  ...overrides
})

const push: FulfillmentPush = {
  storeOrderId: "4187",
  lines: [{ lineId: "312", quantity: 2 }, { lineId: "313", quantity: 1 }],
  tracking: { company: "UPS", number: "1Z 999 AA1" }
}

describe("WooCommerce fulfilment plan (pure)", () => {
  it("recognises a tracking number whatever its spacing and case", () => {
    const plan = planWooFulfillment(
      state({
        status: "completed",
        trackingRecords: [{ id: "t1", number: "1z999aa1" }],
        packages: [{ number: "1Z999AA1", company: "UPS", lines: push.lines }]
      }),
      push
    )
    expect(plan).toEqual({ _tag: "Decided", outcome: { _tag: "AlreadyPushed", fulfillmentIds: ["t1"] } })
  })

  it("does not record again a package whose tracking record the seller deleted, but still completes the order", () => {
    const plan = planWooFulfillment(
      state({ packages: [{ number: "1Z999AA1", company: "UPS", lines: push.lines, trackingRecordId: "t1" }] }),
      push
    )
    expect(plan).toMatchObject({ _tag: "Write", createTracking: false, packages: null, complete: true, existing: ["t1"] })
  })

  it("adds tracking to an order the seller already completed, without completing it again", () => {
    expect(planWooFulfillment(state({ status: "completed" }), push)).toMatchObject({ _tag: "Write", createTracking: true, complete: false })
  })

  it("clamps units to what the buyer still has, and completes once earlier packages and this one cover the order", () => {
    const plan = planWooFulfillment(
      state({
        lines: [{ lineId: "312", currentQuantity: 1 }, { lineId: "313", currentQuantity: 1 }],
        packages: [{ number: "EARLIER", company: "UPS", lines: [{ lineId: "313", quantity: 1 }] }]
      }),
      push
    )
    expect(plan).toMatchObject({ _tag: "Write", complete: true, lines: [{ lineId: "312", quantity: 1 }, { lineId: "313", quantity: 1 }] })
  })

  it("answers AlreadyPushed, not OnHold or Rejected, when the tracking is there and the order since changed", () => {
    const records = { trackingRecords: [{ id: "t1", number: "1Z999AA1" }] }
    expect(planWooFulfillment(state({ status: "on-hold", ...records }), push)).toMatchObject({ outcome: { _tag: "AlreadyPushed" } })
    expect(planWooFulfillment(state({ status: "refunded", ...records }), push)).toMatchObject({ outcome: { _tag: "AlreadyPushed" } })
  })
})
