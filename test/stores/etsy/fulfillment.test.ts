import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import type { FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import type { RunningEtsySimulator } from "../../../src/simulator/etsy/index.js"
import {
  annotatesNothing,
  type FulfillmentDriver,
  fulfilsOnceAfterAnAmbiguousFailure,
  whileTheWriteIsSlow
} from "../contract/FulfillmentContract.js"
import { admin, connectTo, type SimReceipt, startSimulator, stats } from "./harness.js"

const twoLineReceipt = {
  transactions: [
    { title: "Classic Tee", sku: "TEE-BLK-M", quantity: 2, price_cents: 2400 },
    { title: "Ceramic Mug", sku: "MUG-WHT-11OZ", quantity: 1, price_cents: 1600 }
  ]
}

const push = (receipt: SimReceipt, number: string, company = "USPS", url?: string): FulfillmentPush => ({
  storeOrderId: String(receipt.receipt_id),
  lines: [
    { lineId: String(receipt.transactions[0]!.transaction_id), quantity: 2 },
    { lineId: String(receipt.transactions[1]!.transaction_id), quantity: 1 }
  ],
  tracking: { company, number, ...(url === undefined ? {} : { url }) }
})

const read = (sim: { url: string }, receipt: SimReceipt) => admin<SimReceipt>(sim, "GET", `receipts/${receipt.receipt_id}`)

const driver: FulfillmentDriver<RunningEtsySimulator, SimReceipt> = {
  platform: "Etsy",
  start: startSimulator,
  connect: (sim) => connectTo(sim),
  place: (sim) =>
    Effect.map(admin<SimReceipt>(sim, "POST", "receipts", twoLineReceipt), (raw) => ({
      id: String(raw.receipt_id),
      lineIds: raw.transactions.map((t) => String(t.transaction_id)),
      raw
    })),
  tracking: (number) => ({ company: "UPS", number }),
  fulfilOperation: "createReceiptShipment",
  counters: { fulfilments: "shipmentsByReceipt", emails: "buyerEmailsByReceipt" }
}

describe("Etsy tracking push", () => {
  it.scopedLive("creates one shipment with tracking, emails the buyer once, and answers AlreadyPushed after", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", twoLineReceipt)
      const connector = yield* connectTo(sim)
      const request = push(receipt, "9400 1118 9956 2537 6834 12")

      const first = yield* connector.pushFulfillment(request)
      const stored = yield* read(sim, receipt)
      expect(stored.shipments).toEqual([
        {
          receipt_shipping_id: stored.shipments[0]!.receipt_shipping_id,
          shipment_notification_timestamp: expect.any(Number),
          // As getShippingCarriers names it (the shop ships from the US).
          carrier_name: "USPS",
          tracking_code: "9400 1118 9956 2537 6834 12"
        }
      ])
      expect(first).toEqual({
        _tag: "Created",
        fulfillmentIds: [String(stored.shipments[0]!.receipt_shipping_id)],
        lines: request.lines,
        notifiedCustomer: true
      })
      expect(stored).toMatchObject({ is_shipped: true, status: "completed" })
      // The same tracking number, however it is spaced: nothing new, no email.
      const again = yield* connector.pushFulfillment(push(receipt, "9400111899562537683412"))
      expect(again).toEqual({ _tag: "AlreadyPushed", fulfillmentIds: first._tag === "Created" ? first.fulfillmentIds : [] })
      const s = yield* stats(sim)
      expect(s.shipmentsByReceipt).toEqual({ [receipt.receipt_id]: 1 })
      expect(s.buyerEmailsByReceipt).toEqual({ [receipt.receipt_id]: 1 })
    }))

  fulfilsOnceAfterAnAmbiguousFailure(driver, {
    failure: (failure) => expect(failure).toMatchObject({ operation: "createReceiptShipment" }),
    stored: (sim, receipt, number) =>
      Effect.map(
        read(sim, receipt.raw),
        (stored) => expect(stored.shipments.map((s) => [s.carrier_name, s.tracking_code])).toEqual([["UPS", number]])
      )
  })
  annotatesNothing(driver)

  it.scopedLive('sends a carrier Etsy does not list as "other", with the tracking link in the note to the buyer', () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", twoLineReceipt)
      const connector = yield* connectTo(sim, { shipmentBody: "form" })
      yield* admin(sim, "POST", "settings", { acceptJson: false })
      const outcome = yield* connector.pushFulfillment(
        push(receipt, "YT2412345678901234", "YunExpress", "https://www.yuntrack.com/track?id=YT2412345678901234")
      )
      expect(outcome._tag).toBe("Created")
      const stored = yield* read(sim, receipt)
      expect(stored.shipments.map((s) => s.carrier_name)).toEqual(["other"])
      // What the buyer reads: Etsy links nothing for "other"; the note carries carrier, number and link.
      expect(stored.buyer_emails).toEqual([expect.objectContaining({
        carrier_name: "other",
        tracking_link: null,
        note_to_buyer: "Shipped with YunExpress, tracking number YT2412345678901234. " +
          "Track it here: https://www.yuntrack.com/track?id=YT2412345678901234"
      })])
    }))

  it.scopedLive("adds a second package as a second shipment (a second email), never the same one twice", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", twoLineReceipt)
      const connector = yield* connectTo(sim)
      const boxA = { ...push(receipt, "BOX-A-0001"), lines: [push(receipt, "x").lines[0]!] } as FulfillmentPush
      const boxB = { ...push(receipt, "BOX-B-0002"), lines: [push(receipt, "x").lines[1]!] } as FulfillmentPush
      expect((yield* connector.pushFulfillment(boxA))._tag).toBe("Created")
      expect((yield* connector.pushFulfillment(boxB))._tag).toBe("Created")
      expect((yield* connector.pushFulfillment(boxA))._tag).toBe("AlreadyPushed")
      expect((yield* read(sim, receipt)).shipments.map((s) => s.tracking_code)).toEqual(["BOX-A-0001", "BOX-B-0002"])
      expect((yield* stats(sim)).buyerEmailsByReceipt).toEqual({ [receipt.receipt_id]: 2 })
    }))

  it.scopedLive("refuses cancelled, unpaid and unknown receipts and unknown lines without emailing anyone", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const connector = yield* connectTo(sim)
      const cancelled = yield* admin<SimReceipt>(sim, "POST", "receipts", twoLineReceipt)
      yield* admin(sim, "POST", `receipts/${cancelled.receipt_id}/cancel`, {})
      expect(yield* connector.pushFulfillment(push(cancelled, "TOO-LATE"))).toMatchObject({ _tag: "Rejected", reason: "order_cancelled" })
      const unpaid = yield* admin<SimReceipt>(sim, "POST", "receipts", { ...twoLineReceipt, status: "payment processing" })
      expect(yield* connector.pushFulfillment(push(unpaid, "NOT-PAID"))).toMatchObject({ _tag: "Rejected", reason: "unpaid" })
      const open = yield* admin<SimReceipt>(sim, "POST", "receipts", twoLineReceipt)
      const strayLine = { ...push(open, "STRAY"), lines: [{ lineId: "4999999999", quantity: 1 }] } as FulfillmentPush
      expect(yield* connector.pushFulfillment(strayLine)).toMatchObject({ _tag: "Rejected", reason: "unknown_line" })
      expect(yield* connector.pushFulfillment({ ...push(open, "X"), storeOrderId: "99999999" })).toMatchObject({
        _tag: "Rejected",
        reason: "unknown_order"
      })
      expect(yield* connector.pushFulfillment({ ...push(open, "X"), storeOrderId: "#1001" })).toMatchObject({
        _tag: "Rejected",
        reason: "unknown_order"
      })
      const s = yield* stats(sim)
      expect(s.buyerEmailsByReceipt).toEqual({})
      expect(s.requestsByOperation["createReceiptShipment"]).toBeUndefined()
    }))

  it.scopedLive("reports Etsy's own refusal when the receipt is cancelled between the read-back and the write", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", twoLineReceipt)
      const connector = yield* connectTo(sim)
      const [fiber] = yield* whileTheWriteIsSlow(
        sim,
        "createReceiptShipment",
        300,
        connector.pushFulfillment(push(receipt, "RACE-0001")),
        admin(sim, "POST", `receipts/${receipt.receipt_id}/cancel`, {})
      )
      const outcome = yield* Fiber.join(fiber)
      expect(outcome).toMatchObject({ _tag: "Rejected", reason: "store_refused" })
      expect(outcome._tag === "Rejected" && outcome.messages[0]).toContain("canceled")
      expect((yield* stats(sim)).buyerEmailsByReceipt).toEqual({})
    }))
})
