/**
 * Tracking push: `createReceiptShipment`. Etsy emails the buyer on every
 * call, so a shipment is never created blindly: every push first reads the
 * receipt back and answers `AlreadyPushed` when one of its `shipments[]`
 * carries the tracking number. A retry after an ambiguous failure (timeout,
 * reset, 5xx) is therefore just a second call.
 *
 * Etsy ships whole receipts: the lines of a push are checked (they must be
 * transactions of the receipt) and reported back, but the shipment covers
 * the receipt. A second package is a second shipment (and a second email).
 *
 * The carrier is named as Etsy lists it (EtsyCarriers.ts), else `other` with
 * the carrier and link in the note to the buyer. A 403 on one receipt's
 * shipment refuses that push (`Rejected`, Etsy's words), not the credentials.
 */
import { Effect, Either, Option, Schema } from "effect"
import type { FulfillmentOutcome, FulfillmentPush } from "../../domain/StoreTypes.js"
import { trackingUrlOf } from "../CarrierNames.js"
import { keepBody, type StoreError, StoreResponseError } from "../StoreErrors.js"
import type { EtsyCarriers } from "./EtsyCarriers.js"
import type { EtsyHttp } from "./EtsyHttp.js"
import { decodeEtsyReceipt, type EtsyReceiptReader, isReceiptId } from "./EtsyReceipts.js"
import type { EtsyReceipt } from "./EtsySchemas.js"

export interface FulfillmentSettings {
  readonly storeKey: string
  readonly shopId: string
  readonly shipmentBody: "json" | "form"
}

export const sameTrackingNumber = (a: string, b: string): boolean =>
  a.replace(/[\s-]+/g, "").toUpperCase() === b.replace(/[\s-]+/g, "").toUpperCase()

/**
 * The note to the buyer of a shipment whose carrier Etsy does not know (sent as `other`, so Etsy links
 * nothing): the carrier, the number and, when there is one, the link.
 */
export const otherCarrierNote = (tracking: FulfillmentPush["tracking"]): string => {
  const link = tracking.url ?? trackingUrlOf(tracking.company, tracking.number)
  return `Shipped with ${tracking.company}, tracking number ${tracking.number}.${link === undefined ? "" : ` Track it here: ${link}`}`
}

const shipmentIds = (receipt: EtsyReceipt, trackingNumber: string): Array<string> =>
  (receipt.shipments ?? [])
    .filter((s) => s.tracking_code != null && sameTrackingNumber(s.tracking_code, trackingNumber))
    .map((s) => (s.receipt_shipping_id == null ? `${receipt.receipt_id}:${s.tracking_code}` : String(s.receipt_shipping_id)))

const isCancelled = (receipt: EtsyReceipt): boolean => ["canceled", "cancelled"].includes(receipt.status?.toLowerCase() ?? "")

const rejected = (reason: string, ...messages: Array<string>): FulfillmentOutcome => ({ _tag: "Rejected", reason, messages })

/** Why Etsy refused one receipt's shipment (403: that receipt, not the credentials): the push needs a person. */
const refusedShipment = (status: number, message: string): FulfillmentOutcome =>
  status === 404
    ? rejected("unknown_order", message)
    : status === 403
    ? rejected("shipment_refused", `Etsy refused the shipment of this receipt: ${message}`)
    : rejected("store_refused", message)

export const makeEtsyFulfillmentPush = (
  settings: FulfillmentSettings,
  http: EtsyHttp,
  reader: EtsyReceiptReader,
  carriers: EtsyCarriers
) => {
  const { storeKey } = settings

  const unreadable = (operation: string, ambiguous: boolean, raw: unknown, detail: string) =>
    new StoreResponseError({ storeKey, operation, ambiguous, status: 200, body: keepBody(JSON.stringify(raw)), detail })

  const readBack = (receiptId: string): Effect.Effect<Option.Option<EtsyReceipt>, StoreError> =>
    Effect.flatMap(reader.byId(receiptId), (found) =>
      Option.match(found, {
        onNone: () => Effect.succeedNone,
        onSome: (fetched) =>
          Either.match(fetched.receipt, {
            onLeft: (problem) => Effect.fail(unreadable("getShopReceipt", false, fetched.raw, problem)),
            onRight: (receipt) => Effect.succeedSome(receipt)
          })
      }))

  const createShipment = (receipt: EtsyReceipt, push: FulfillmentPush): Effect.Effect<FulfillmentOutcome, StoreError> =>
    Effect.gen(function*() {
      const carrier = yield* carriers.choose(push.tracking.company)
      const answer = yield* http.run({
        operation: "createReceiptShipment",
        method: "POST",
        path: `/shops/${settings.shopId}/receipts/${receipt.receipt_id}/tracking`,
        body: {
          encoding: settings.shipmentBody,
          fields: {
            tracking_code: push.tracking.number,
            carrier_name: carrier._tag === "Known" ? carrier.name : "other",
            send_bcc: false,
            // With "other" Etsy links nothing: carrier and link go in the (already unavoidable) email.
            ...(carrier._tag === "Other" ? { note_to_buyer: otherCarrierNote(push.tracking) } : {})
          }
        },
        write: true,
        lane: "other",
        refusalOn403: true,
        schema: Schema.Unknown
      })
      if (answer._tag === "Refused") return refusedShipment(answer.status, answer.message)
      const updated = decodeEtsyReceipt(answer.value)
      if (Either.isLeft(updated)) {
        return yield* unreadable("createReceiptShipment", true, answer.value, updated.left.message)
      }
      const [first, ...rest] = shipmentIds(updated.right, push.tracking.number)
      if (first === undefined) {
        return yield* unreadable("createReceiptShipment", true, answer.value, "the answer has no shipment with the tracking number sent")
      }
      const quantities = new Map((receipt.transactions ?? []).map((t) => [String(t.transaction_id), t.quantity]))
      return {
        _tag: "Created",
        fulfillmentIds: [first, ...rest],
        lines: push.lines.map((line) => ({
          lineId: line.lineId,
          quantity: Math.min(line.quantity, quantities.get(line.lineId) ?? line.quantity)
        })),
        // Etsy emails the buyer on every shipment, whatever `notifyCustomer` asked.
        notifiedCustomer: true
      } as const
    })

  return (push: FulfillmentPush): Effect.Effect<FulfillmentOutcome, StoreError> =>
    Effect.gen(function*() {
      if (!isReceiptId(push.storeOrderId)) return rejected("unknown_order", `"${push.storeOrderId}" is not an Etsy receipt id`)
      const found = yield* readBack(push.storeOrderId)
      if (Option.isNone(found)) return rejected("unknown_order", `receipt ${push.storeOrderId} does not exist in shop ${settings.shopId}`)
      const receipt = found.value
      const [first, ...rest] = shipmentIds(receipt, push.tracking.number)
      if (first !== undefined) return { _tag: "AlreadyPushed", fulfillmentIds: [first, ...rest] } as const
      if (isCancelled(receipt)) return rejected("order_cancelled", `receipt ${push.storeOrderId} is canceled`)
      const known = new Set((receipt.transactions ?? []).map((t) => String(t.transaction_id)))
      const unknown = push.lines.filter((line) => !known.has(line.lineId)).map((line) => line.lineId)
      if (unknown.length > 0) return rejected("unknown_line", `receipt ${push.storeOrderId} has no transaction ${unknown.join(", ")}`)
      if (!receipt.is_paid) return rejected("unpaid", `receipt ${push.storeOrderId} is not paid`)
      return yield* createShipment(receipt, push)
    })
}
