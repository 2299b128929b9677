/**
 * Fulfilment push (plan in WooFulfillmentPlan.ts): read the order and its tracking records back, then
 * tracking first (a Shipment Tracking item when the store answers the extension's routes, else a
 * customer note the buyer is emailed: WooTracking.ts), then one `PUT` that stores the package list in
 * the order meta and, when the packages cover the order, sets `completed` (which emails the buyer,
 * with the extension's tracking items in the email).
 *
 * Every push reads back first, so a retry after an ambiguous failure (timeout, reset, 5xx) is just a
 * second call: it finds the tracking record and finishes only what is missing.
 *
 * `notifyCustomer` cannot be honoured: the REST API has no switch for the Completed email (only the
 * store's email settings do), so `Created.notifiedCustomer` says whether this push completed the order
 * or wrote a customer note.
 */
import { Clock, Effect, Either, Option, Schema } from "effect"
import type { FulfillmentOutcome, FulfillmentPush } from "../../domain/StoreTypes.js"
import type { StoreError } from "../StoreErrors.js"
import { planWooFulfillment } from "./WooFulfillmentPlan.js"
import { decodeAnswer, type WooHttp, type WooRequest } from "./WooHttp.js"
import { refundedUnits } from "./WooNormalize.js"
import { isOrderId, type WooOrderReader } from "./WooOrders.js"
import { PodsyncPackages, type PodsyncPackage } from "./WooSchemas.js"
import { makeWooTracking } from "./WooTracking.js"

/** Order meta key of podsync's package list (hidden from the seller's custom fields box). */
export const PACKAGES_META_KEY = "_podsync_shipments"

export interface WooFulfillmentSettings {
  readonly storeKey: string
  readonly trackingMode: "auto" | "shipment-tracking" | "note"
}

const Raw = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const makeWooFulfillmentPush = (settings: WooFulfillmentSettings, http: WooHttp, reader: WooOrderReader) =>
  Effect.gen(function*() {
    const { storeKey } = settings
    const tracking = yield* makeWooTracking(settings, http)

    const call = <A, I>(request: WooRequest, schema: Schema.Schema<A, I>) =>
      Effect.flatMap(http.send(request), (answer) => decodeAnswer(storeKey, request, answer, schema))

    return (push: FulfillmentPush): Effect.Effect<FulfillmentOutcome, StoreError> =>
      Effect.gen(function*() {
        const orderId = push.storeOrderId
        const unknownOrder = {
          _tag: "Rejected",
          reason: "unknown_order",
          messages: [`order ${orderId} does not exist on this store`]
        } as const
        if (!isOrderId(orderId)) return unknownOrder
        const fetched = yield* reader.byId(orderId)
        if (Option.isNone(fetched)) return unknownOrder
        const { order } = fetched.value
        const refunded = refundedUnits(order)
        const { medium, records } = yield* tracking.records(orderId)
        const stored = order.meta_data.find((m) => m.key === PACKAGES_META_KEY)?.value
        const packages = Either.getOrElse(Schema.decodeUnknownEither(PodsyncPackages)(stored ?? []), () =>
          [] as ReadonlyArray<PodsyncPackage>)
        const plan = planWooFulfillment(
          {
            storeOrderId: orderId,
            status: order.status,
            lines: order.line_items.map((l) => ({
              lineId: String(l.id),
              currentQuantity: Math.max(0, l.quantity - (refunded.get(String(l.id)) ?? 0))
            })),
            trackingRecords: records,
            packages
          },
          push
        )
        if (plan._tag === "Decided") {
          return plan.outcome
        }

        // Tracking first: the Completed email lists what is on the order when it leaves.
        const dateShipped = new Date(yield* Clock.currentTimeMillis).toISOString().slice(0, 10)
        const recordId = plan.createTracking ? yield* tracking.create(orderId, medium, push, dateShipped) : undefined
        const list = plan.packages?.map((
          p
        ) => (p.number === push.tracking.number && recordId !== undefined ? { ...p, trackingRecordId: recordId } : p))
        if (list !== undefined || plan.complete) {
          yield* call(
            {
              name: "orders.update",
              method: "PUT",
              path: `/wc/v3/orders/${orderId}`,
              body: {
                ...(list === undefined ? {} : { meta_data: [{ key: PACKAGES_META_KEY, value: list }] }),
                ...(plan.complete ? { status: "completed" } : {})
              },
              write: true
            },
            Raw
          )
        }
        if (recordId !== undefined) {
          // A customer note is emailed to the buyer at once; otherwise the buyer hears when the order completes.
          return {
            _tag: "Created",
            fulfillmentIds: [recordId],
            lines: [...plan.lines],
            notifiedCustomer: plan.complete || medium === "note"
          } as const
        }
        const [first = push.tracking.number, ...rest] = plan.existing
        return { _tag: "AlreadyPushed", fulfillmentIds: [first, ...rest] } as const
      })
  })
