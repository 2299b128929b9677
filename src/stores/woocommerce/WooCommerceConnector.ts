/**
 * The WooCommerce adapter of the store port, on REST API v3 (`/wp-json/wc/v3`) with the consumer key
 * as HTTP Basic credentials (or in the query string, on hosts that strip the header: WooHttp.ts), plus
 * the Shipment Tracking extension when the store has it (else the buyer's tracking goes in a customer
 * note: WooTracking.ts). Built once per configured WooCommerce store.
 */
import { Effect, Option, Schema } from "effect"
import type { Annotation } from "../../domain/StoreTypes.js"
import { type ConnectorMaker, readBackOrder } from "../ConnectorAssembly.js"
import { pullSettingsOf } from "../ConnectorConfig.js"
import { walkOrders } from "../OverlapWalk.js"
import type { StoreCapabilities, StoreConnector } from "../StoreConnector.js"
import { StoreApiError, type StoreError } from "../StoreErrors.js"
import { WOO_PULL_LIMITS, type WooCommerceConnectorConfig } from "./WooConfig.js"
import { makeWooFulfillmentPush } from "./WooFulfillment.js"
import { decodeAnswer, isUnknownId, makeWooHttp, type WooRequest } from "./WooHttp.js"
import { metaText, normalizeWooOrder } from "./WooNormalize.js"
import { isOrderId, makeWooOrderReader } from "./WooOrders.js"
import { wooWalk } from "./WooPull.js"
import { WooNote, WooNotes } from "./WooSchemas.js"
import { admitWooWebhook, verifyWooWebhook } from "./WooWebhooks.js"

export const wooCommerceCapabilities: StoreCapabilities = {
  // WooCommerce ships whole orders: `completed` covers every line (see WooFulfillmentPlan.ts).
  fulfillmentGranularity: "order",
  partialFulfillment: false,
  // Each package's tracking is recorded; the order completes once the packages cover it.
  multiplePackages: true,
  // Completing an order always sends the "Completed order" email; the API cannot suppress it.
  pushNotifiesBuyer: "always",
  // No order tags in WooCommerce; fields are order meta `_podsync_<key>`, notes are private order notes.
  annotations: ["field", "note"],
  // An order the seller put on-hold is reported, never completed.
  holds: true,
  webhookPayload: "full"
}

const OrderJson = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** Order meta key of an annotation field (hidden from the seller's custom fields box by the `_`). */
export const annotationMetaKey = (key: string): string => `_podsync_${key}`

export const makeWooCommerceConnector: ConnectorMaker<WooCommerceConnectorConfig> = (config) =>
  Effect.gen(function*() {
    const { storeKey } = config
    const http = yield* makeWooHttp(config)
    const reader = makeWooOrderReader(storeKey, http)
    const pushFulfillment = yield* makeWooFulfillmentPush({ storeKey, trackingMode: config.trackingMode ?? "auto" }, http, reader)
    const walk = wooWalk(pullSettingsOf(config, WOO_PULL_LIMITS), reader)
    const call = <A, I>(request: WooRequest, schema: Schema.Schema<A, I>) =>
      Effect.flatMap(http.send(request), (answer) => decodeAnswer(storeKey, request, answer, schema))

    const getOrder: StoreConnector["getOrder"] = (storeOrderId) =>
      Effect.flatMap(
        reader.byId(storeOrderId),
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: ({ raw, order }) => readBackOrder(storeKey, "orders.get", raw, normalizeWooOrder(storeKey, order, raw))
        })
      )

    /** Repeatable: the field is written only when it differs, the note only when no note says the same. */
    const annotate = (storeOrderId: string, annotation: Annotation): Effect.Effect<void, StoreError> =>
      Effect.gen(function*() {
        const unknown = new StoreApiError({
          storeKey,
          operation: "annotate",
          messages: [`order ${storeOrderId} does not exist on this store`]
        })
        if (!isOrderId(storeOrderId)) return yield* unknown
        // The private field first: it is what podsync itself reads; the note is for the seller's eyes.
        if (annotation.field !== undefined) {
          const fetched = yield* reader.byId(storeOrderId)
          if (Option.isNone(fetched)) return yield* unknown
          const key = annotationMetaKey(annotation.field.key)
          const current = fetched.value.order.meta_data.find((m) => m.key === key)
          if (current === undefined || metaText(current.value) !== annotation.field.value) {
            yield* call(
              {
                name: "orders.update",
                method: "PUT",
                path: `/wc/v3/orders/${storeOrderId}`,
                body: { meta_data: [{ key, value: annotation.field.value }] },
                write: true
              },
              OrderJson
            )
          }
        }
        if (annotation.note !== undefined) {
          const notesRequest: WooRequest = { name: "notes.list", method: "GET", path: `/wc/v3/orders/${storeOrderId}/notes`, write: false }
          const answer = yield* http.send(notesRequest)
          if (isUnknownId(answer)) return yield* unknown
          const notes = yield* decodeAnswer(storeKey, notesRequest, answer, WooNotes)
          if (!notes.some((n) => n.note === annotation.note)) {
            yield* call(
              {
                name: "notes.create",
                method: "POST",
                path: `/wc/v3/orders/${storeOrderId}/notes`,
                body: { note: annotation.note, customer_note: false },
                write: true
              },
              WooNote
            )
          }
        }
      })

    const connector: StoreConnector = {
      storeKey,
      platform: "woocommerce",
      apiAddress: config.url,
      capabilities: wooCommerceCapabilities,
      pull: (cursor, options) => walkOrders(walk, cursor, options),
      getOrder,
      pushFulfillment,
      annotate,
      verifyWebhook: (delivery) => verifyWooWebhook(config, delivery),
      admitWebhook: admitWooWebhook
    }
    return connector
  })
