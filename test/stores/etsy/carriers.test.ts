/**
 * The carrier a shipment names, as Etsy lists carriers (`getShippingCarriers`, store-apis.md §0), so
 * the buyer's shipping email links the tracking; and a 403 on one receipt's shipment, which refuses
 * that push only.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream, TestClock } from "effect"
import type { FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import { CARRIER_LIST_TTL_MS } from "../../../src/stores/etsy/EtsyCarriers.js"
import { requestTimeout, untilPacingOrDone } from "../contract/PacedClocks.js"
import { admin, connectTo, type SimReceipt, startSimulator, stats } from "./harness.js"

/** Runs `effect` on the TestClock, moving it to each wake-up the connector sleeps for (pacing). */
const paced = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    for (;;) {
      const sleeps = yield* untilPacingOrDone(fiber, true)
      if (sleeps.length === 0) return yield* Fiber.join(fiber)
      yield* TestClock.adjust(Math.max(1, Math.min(...sleeps)))
    }
  })

const oneLine = { transactions: [{ title: "Classic Tee", sku: "TEE-BLK-M", quantity: 1, price_cents: 2400 }] }

const push = (receipt: SimReceipt, company: string, number: string, url?: string): FulfillmentPush => ({
  storeOrderId: String(receipt.receipt_id),
  lines: [{ lineId: String(receipt.transactions[0]!.transaction_id), quantity: 1 }],
  tracking: { company, number, ...(url === undefined ? {} : { url }) }
})

const read = (sim: { url: string }, receipt: SimReceipt) => admin<SimReceipt>(sim, "GET", `receipts/${receipt.receipt_id}`)

describe("Etsy carriers from getShippingCarriers", () => {
  it.scopedLive("names each carrier as Etsy lists it for the shop's country, so the buyer's email links the tracking", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const connector = yield* connectTo(sim)
      const cases = [
        ["usps", "9400111899223033005282", "USPS"],
        ["United States Postal Service", "9400111899223033005299", "USPS"],
        ["Fedex", "794612345678", "FedEx"],
        ["DHL E-Commerce", "GM2951173225174494", "DHL eCommerce"]
      ] as const
      for (const [company, number, etsyName] of cases) {
        const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", oneLine)
        expect((yield* connector.pushFulfillment(push(receipt, company, number)))._tag).toBe("Created")
        const [email] = (yield* read(sim, receipt)).buyer_emails
        expect(email).toMatchObject({ carrier_name: etsyName, tracking_code: number, note_to_buyer: null })
        expect(email!.tracking_link).toContain(number)
      }
      // The shop's country once (getShop), its list once, for four pushes: public calls, the app's key only.
      const s = yield* stats(sim)
      expect([s.requestsByOperation["getShop"], s.requestsByOperation["getShippingCarriers"]]).toEqual([1, 1])
    }))

  it.scoped("reads the list of the configured origin, and again after a day", () =>
    Effect.gen(function*() {
      // A shop in Britain whose packages the POD service ships from Germany.
      const sim = yield* startSimulator({ shopCountry: "GB" })
      const connector = yield* connectTo(sim, { shipsFromCountry: "de", requestTimeout })
      const first = yield* admin<SimReceipt>(sim, "POST", "receipts", oneLine)
      yield* paced(connector.pushFulfillment(push(first, "Deutsche Post DHL", "00340434161094042557")))
      expect((yield* read(sim, first)).shipments.map((s) => s.carrier_name)).toEqual(["DHL Paket"])
      // Royal Mail is Britain's, not listed for packages from Germany: "other", with the carrier and a link in the note.
      const second = yield* admin<SimReceipt>(sim, "POST", "receipts", oneLine)
      yield* paced(connector.pushFulfillment(push(second, "Royal Mail", "AB123456789GB")))
      expect((yield* read(sim, second)).buyer_emails).toEqual([expect.objectContaining({
        carrier_name: "other",
        tracking_link: null,
        note_to_buyer: "Shipped with Royal Mail, tracking number AB123456789GB. " +
          "Track it here: https://www.royalmail.com/track-your-item#/tracking-results/AB123456789GB"
      })])
      yield* TestClock.adjust(CARRIER_LIST_TTL_MS + 1000)
      const third = yield* admin<SimReceipt>(sim, "POST", "receipts", oneLine)
      yield* paced(connector.pushFulfillment(push(third, "DPD", "15501234567890")))
      const s = yield* stats(sim)
      expect([s.requestsByOperation["getShop"], s.requestsByOperation["getShippingCarriers"]]).toEqual([undefined, 2])
    }))
})

describe("Etsy refusing one receipt's shipment (403)", () => {
  it.scopedLive("rejects that push with Etsy's words, while other pushes and pulls go on and the credentials stand", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const connector = yield* connectTo(sim)
      const refused = yield* admin<SimReceipt>(sim, "POST", "receipts", oneLine)
      const fine = yield* admin<SimReceipt>(sim, "POST", "receipts", oneLine)
      yield* admin(sim, "POST", `receipts/${refused.receipt_id}/refuse-shipments`, {
        error: "This receipt is being shipped with an Etsy shipping label; tracking cannot be added through the API"
      })
      expect(yield* connector.pushFulfillment(push(refused, "USPS", "9400100000000000000001"))).toEqual({
        _tag: "Rejected",
        reason: "shipment_refused",
        messages: [
          "Etsy refused the shipment of this receipt: This receipt is being shipped with an Etsy shipping label; tracking cannot be added through the API"
        ]
      })
      expect((yield* connector.pushFulfillment(push(fine, "USPS", "9400100000000000000002")))._tag).toBe("Created")
      const pulled = yield* Stream.runCollect(connector.pull(null))
      expect([...pulled].flatMap((page) => page.orders.map((o) => o.storeOrderId))).toContain(String(refused.receipt_id))
      const s = yield* stats(sim)
      expect(s.buyerEmailsByReceipt).toEqual({ [fine.receipt_id]: 1 })
      expect(s.forbidden).toBe(0)
    }))

  it.scopedLive("a 403 that names the credentials is still a refusal of the credentials", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ scopes: ["transactions_r"] })
      const connector = yield* connectTo(sim)
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", oneLine)
      const error = yield* Effect.flip(connector.pushFulfillment(push(receipt, "USPS", "9400100000000000000003")))
      expect(error).toMatchObject({ _tag: "StoreAuthError", operation: "createReceiptShipment", status: 403 })
      expect(error.message).toContain("Insufficient scope")
    }))
})
