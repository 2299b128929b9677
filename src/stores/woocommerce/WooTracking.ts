/**
 * Where a package's tracking is recorded on a WooCommerce order, and how the buyer gets it:
 *
 * - With the Shipment Tracking extension (paid): a tracking item, which the "Completed order" email
 *   and the buyer's account page show. A carrier the store's provider list knows (matched by name,
 *   CarrierNames.ts) goes as that provider, and WooCommerce builds the link; any other as a custom
 *   provider with the POD's tracking link, or one built for the carrier when the POD gave none. The
 *   provider list is per order (`/orders/<id>/shipment-trackings/providers`, store-apis.md §0) and the
 *   same for every order: read once per store, on the first push that needs it.
 * - Without it (its routes answer 404 `rest_no_route`): a customer note (`customer_note: true`),
 *   which WooCommerce shows on the order page and emails to the buyer at once: carrier, number, link.
 *   One note per package; a note already carrying the number (or podsync's private note of earlier
 *   versions) counts as the record, so a retry never writes a second one.
 */
import { Effect, Either, Option, Ref, type Schema } from "effect"
import type { FulfillmentPush } from "../../domain/StoreTypes.js"
import { matchCarrier, trackingUrlOf } from "../CarrierNames.js"
import { StoreApiError, type StoreError } from "../StoreErrors.js"
import { decodeAnswer, type WooHttp, type WooRequest, wooErrorOf } from "./WooHttp.js"
import { WooNote, WooNotes, WooProviders, WooTrackingItem, WooTrackingItems } from "./WooSchemas.js"

export type TrackingMedium = "shipment-tracking" | "note"

export interface TrackingRecord {
  readonly id: string
  readonly number: string
}

/** The package's tracking link: the POD's, else one built for the carrier, else none. */
export const trackingLinkOf = (tracking: FulfillmentPush["tracking"]): string | undefined =>
  tracking.url ?? trackingUrlOf(tracking.company, tracking.number)

/** The customer note that tells the buyer: carrier, number and, when there is one, the link. */
export const customerTrackingNote = (tracking: FulfillmentPush["tracking"]): string => {
  const link = trackingLinkOf(tracking)
  return [
    `Your order is on its way with ${tracking.company}.`,
    `Tracking number: ${tracking.number}`,
    ...(link === undefined ? [] : [`Track your package: ${link}`])
  ].join("\n")
}

/** The private note earlier versions wrote (kept readable so their pushes are not repeated). */
const PRIVATE_NOTE_PREFIX = "Shipped by podsync:"

/** The tracking number a note carries for the buyer (or a private note of podsync's earlier versions did). */
export const trackingNumberOfNote = (note: { readonly note: string; readonly customer_note: boolean }): string | undefined => {
  if (note.note.startsWith(PRIVATE_NOTE_PREFIX)) return /tracking number (\S+)/.exec(note.note)?.[1]
  return note.customer_note ? /Tracking number: (\S+)/.exec(note.note)?.[1] : undefined
}

export interface WooTracking {
  /** The order's tracking records, and where they are kept (the extension when the store answers its routes). */
  readonly records: (orderId: string) => Effect.Effect<{ medium: TrackingMedium; records: Array<TrackingRecord> }, StoreError>
  /** Records the package's tracking; answers the record's id. */
  readonly create: (
    orderId: string,
    medium: TrackingMedium,
    push: FulfillmentPush,
    dateShipped: string
  ) => Effect.Effect<string, StoreError>
}

export const makeWooTracking = (
  settings: { readonly storeKey: string; readonly trackingMode: "auto" | "shipment-tracking" | "note" },
  http: WooHttp
): Effect.Effect<WooTracking> =>
  Effect.gen(function*() {
    const { storeKey } = settings
    /** The extension's predefined provider names; read once per store. */
    const providers = yield* Ref.make(Option.none<ReadonlyArray<string>>())

    const call = <A, I>(request: WooRequest, schema: Schema.Schema<A, I>) =>
      Effect.flatMap(http.send(request), (answer) => decodeAnswer(storeKey, request, answer, schema))

    /**
     * The provider names, read through the order's providers route. A store that refuses the list
     * (4xx) gets custom providers this time (with their links), and is asked again next push; an
     * unavailable one fails the push, which is retried later (nothing was written yet).
     */
    const providerNames = (orderId: string): Effect.Effect<ReadonlyArray<string>, StoreError> =>
      Effect.gen(function*() {
        const cached = yield* Ref.get(providers)
        if (Option.isSome(cached)) return cached.value
        const request: WooRequest = {
          name: "trackings.providers",
          method: "GET",
          path: `/wc-shipment-tracking/v3/orders/${orderId}/shipment-trackings/providers`,
          write: false
        }
        const answer = yield* http.send(request)
        const listed = yield* Effect.either(decodeAnswer(storeKey, request, answer, WooProviders))
        if (Either.isLeft(listed)) {
          yield* Effect.logWarning(
            `store ${storeKey}: the Shipment Tracking provider list could not be read (${listed.left.message}); ` +
              "this package's carrier goes as a custom provider"
          )
          return []
        }
        const names = Object.values(listed.right).flatMap((group) => Object.keys(group))
        yield* Ref.set(providers, Option.some(names))
        return names
      })

    const records: WooTracking["records"] = (orderId) =>
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
            const number = trackingNumberOfNote(n)
            return number === undefined ? [] : [{ id: String(n.id), number }]
          })
        }
      })

    const create: WooTracking["create"] = (orderId, medium, push, dateShipped) =>
      Effect.gen(function*() {
        if (medium === "note") {
          const note = yield* call(
            {
              name: "notes.create",
              method: "POST",
              path: `/wc/v3/orders/${orderId}/notes`,
              body: { note: customerTrackingNote(push.tracking), customer_note: true },
              write: true
            },
            WooNote
          )
          return String(note.id)
        }
        const provider = matchCarrier(push.tracking.company, yield* providerNames(orderId))
        const body = provider === undefined
          ? {
            custom_tracking_provider: push.tracking.company,
            custom_tracking_link: trackingLinkOf(push.tracking) ?? "",
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

    return { records, create }
  })
