/**
 * Fulfilment push (plan in WooFulfillmentPlan.ts): read the order and its tracking records back, then
 * tracking first (a Shipment Tracking item when the store answers the extension's route, else a
 * private order note), then one `PUT` that stores the package list in the order meta and, when the
 * packages cover the order, sets `completed` (which emails the buyer, with the tracking in the email).
 *
 * Every push reads back first, so a retry after an ambiguous failure (timeout, reset, 5xx) is just a
 * second call: it finds the tracking record and finishes only what is missing.
 *
 * `notifyCustomer` cannot be honoured: the REST API has no switch for the Completed email (only the
 * store's email settings do), so `Created.notifiedCustomer` says whether this push completed the order.
 */
import { Clock, Effect, Either, Option, Ref, Schema } from "effect"
import type { FulfillmentOutcome, FulfillmentPush } from "../../domain/StoreTypes.js"
import { StoreApiError, type StoreError } from "../StoreErrors.js"
import { planWooFulfillment } from "./WooFulfillmentPlan.js"
import { decodeAnswer, type WooHttp, type WooRequest, wooErrorOf } from "./WooHttp.js"
import { refundedUnits } from "./WooNormalize.js"
import { isOrderId, type WooOrderReader } from "./WooOrders.js"
import { PodsyncPackages, type PodsyncPackage, WooNote, WooNotes, WooProviders, WooTrackingItem, WooTrackingItems } from "./WooSchemas.js"

/** Order meta key of podsync's package list (hidden from the seller's custom fields box). */
export const PACKAGES_META_KEY = "_podsync_shipments"
const NOTE_PREFIX = "Shipped by podsync:"

export const trackingNote = (tracking: FulfillmentPush["tracking"]): string =>
  `${NOTE_PREFIX} ${tracking.company} tracking number ${tracking.number}${tracking.url === undefined ? "" : ` (${tracking.url})`}`

/** The tracking number of a note podsync wrote, if it is one. */
export const trackingNumberOfNote = (note: string): string | undefined =>
  note.startsWith(NOTE_PREFIX) ? /tracking number (\S+)/.exec(note)?.[1] : undefined

type Medium = "shipment-tracking" | "note"

export interface WooFulfillmentSettings {
  readonly storeKey: string
  readonly trackingMode: "auto" | "shipment-tracking" | "note"
}

const Raw = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const makeWooFulfillmentPush = (settings: WooFulfillmentSettings, http: WooHttp, reader: WooOrderReader) =>
  Effect.gen(function*() {
    const { storeKey } = settings
    /** Predefined Shipment Tracking providers by lower-case name; read once. */
    const providers = yield* Ref.make(Option.none<ReadonlyMap<string, string>>())

    const call = <A, I>(request: WooRequest, schema: Schema.Schema<A, I>) =>
      Effect.flatMap(http.send(request), (answer) => decodeAnswer(storeKey, request, answer, schema))

    const knownProviders = Effect.gen(function*() {
      const cached = yield* Ref.get(providers)
      if (Option.isSome(cached)) return cached.value
      const request: WooRequest = {
        name: "trackings.providers",
        method: "GET",
        path: "/wc-shipment-tracking/v3/shipment-trackings/providers",
        write: false
      }
      const listed = yield* Effect.either(call(request, WooProviders))
      if (Either.isLeft(listed)) return new Map<string, string>()
      const byName = new Map(
        Object.values(listed.right).flatMap((group) => Object.keys(group).map((name) => [name.toLowerCase(), name] as const))
      )
      yield* Ref.set(providers, Option.some(byName))
      return byName
    })

    /** The order's tracking records, from the extension when the store answers its route. */
    const trackingRecords = (
      orderId: string
    ): Effect.Effect<{ medium: Medium; records: Array<{ id: string; number: string }> }, StoreError> =>
      Effect.gen(function*() {
        if (settings.trackingMode !== "note") {
          const request: WooRequest = {
            name: "trackings.list",
            method: "GET",
            path: `/wc-shipment-tracking/v3/orders/${orderId}/shipment-trackings`,
            write: false
          }
          const answer = yield* http.send(request)
          const absent = answer.status === 404 && wooErrorOf(answer)?.code === "rest_no_route"
          if (!absent) {
            const items = yield* decodeAnswer(storeKey, request, answer, WooTrackingItems)
            return { medium: "shipment-tracking" as const, records: items.map((t) => ({ id: t.tracking_id, number: t.tracking_number })) }
          }
          if (settings.trackingMode === "shipment-tracking") {
            return yield* new StoreApiError({
              storeKey,
              operation: request.name,
              messages: ["the Shipment Tracking extension is not installed on this store (404 rest_no_route)"]
            })
          }
        }
        const notes = yield* call({ name: "notes.list", method: "GET", path: `/wc/v3/orders/${orderId}/notes`, write: false }, WooNotes)
        return {
          medium: "note" as const,
          records: notes.flatMap((n) => {
            const number = trackingNumberOfNote(n.note)
            return number === undefined ? [] : [{ id: String(n.id), number }]
          })
        }
      })

    const createRecord = (orderId: string, medium: Medium, push: FulfillmentPush): Effect.Effect<string, StoreError> =>
      Effect.gen(function*() {
        if (medium === "note") {
          const note = yield* call(
            {
              name: "notes.create",
              method: "POST",
              path: `/wc/v3/orders/${orderId}/notes`,
              body: { note: trackingNote(push.tracking), customer_note: false },
              write: true
            },
            WooNote
          )
          return String(note.id)
        }
        const provider = (yield* knownProviders).get(push.tracking.company.toLowerCase())
        const dateShipped = new Date(yield* Clock.currentTimeMillis).toISOString().slice(0, 10)
        const body = provider === undefined
          ? {
            custom_tracking_provider: push.tracking.company,
            custom_tracking_link: push.tracking.url ?? "",
            tracking_number: push.tracking.number,
            date_shipped: dateShipped
          }
          : { tracking_provider: provider, tracking_number: push.tracking.number, date_shipped: dateShipped }
        const item = yield* call(
          {
            name: "trackings.create",
            method: "POST",
            path: `/wc-shipment-tracking/v3/orders/${orderId}/shipment-trackings`,
            body,
            write: true
          },
          WooTrackingItem
        )
        return item.tracking_id
      })

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
        const { medium, records } = yield* trackingRecords(orderId)
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
        const recordId = plan.createTracking ? yield* createRecord(orderId, medium, push) : undefined
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
          return { _tag: "Created", fulfillmentIds: [recordId], lines: [...plan.lines], notifiedCustomer: plan.complete } as const
        }
        const [first = push.tracking.number, ...rest] = plan.existing
        return { _tag: "AlreadyPushed", fulfillmentIds: [first, ...rest] } as const
      })
  })
