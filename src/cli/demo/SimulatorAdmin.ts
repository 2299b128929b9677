import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Data, Effect, Schema } from "effect"

/**
 * The demo's hands on the simulators: their `/__sim/` admin endpoints (no
 * auth, not rate limited, not counted in the POD service's statistics). The
 * daemon never uses these; it talks to the simulators' real APIs.
 */

export class SimulatorAdminError extends Data.TaggedError("SimulatorAdminError")<{
  readonly operation: string
  readonly cause: unknown
}> {
  override get message() {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `simulator admin call "${this.operation}" failed: ${reason}`
  }
}

const CreatedShopifyOrder = Schema.Struct({ legacyResourceId: Schema.String, name: Schema.String })
export type CreatedShopifyOrder = typeof CreatedShopifyOrder.Type

const CreatedWooOrder = Schema.Struct({ id: Schema.Number, number: Schema.String })
const CreatedEtsyReceipt = Schema.Struct({ receipt_id: Schema.Number })
const CreatedFeedOrder = Schema.Struct({ id: Schema.String, name: Schema.String })

const PodOrderAnswer = Schema.Struct({ order_id: Schema.String, order_status: Schema.String })

/** What the POD service saw: requests, 429s and the most arrivals in any window (service-side truth). */
export const PodServiceStats = Schema.Struct({
  total: Schema.Number,
  rejected429: Schema.Number,
  maxInWindow: Schema.Number,
  windowSeconds: Schema.Number,
  drafts: Schema.Number,
  orders: Schema.Number,
  duplicateReferenceIds: Schema.Array(Schema.String)
})
export type PodServiceStats = typeof PodServiceStats.Type

const Ignored = Schema.Unknown

const call = <A, I>(
  operation: string,
  method: "GET" | "POST" | "PATCH",
  url: string,
  body: unknown,
  schema: Schema.Schema<A, I>
) =>
  Effect.gen(function*() {
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)
    const request = method === "GET"
      ? HttpClientRequest.get(url)
      : HttpClientRequest.make(method)(url).pipe(HttpClientRequest.bodyUnsafeJson(body ?? {}))
    const response = yield* client.execute(request)
    return yield* HttpClientResponse.schemaBodyJson(schema)(response)
  }).pipe(
    Effect.scoped,
    Effect.timeout("10 seconds"),
    Effect.mapError((cause) => new SimulatorAdminError({ operation, cause }))
  )

/** The Shopify simulator's admin: orders as a shopper (create) and as a merchant (cancel), webhook set-up. */
export const shopifyAdmin = (baseUrl: string) => ({
  createOrder: (spec: unknown) => call("create a store order", "POST", `${baseUrl}/__sim/orders`, spec, CreatedShopifyOrder),
  cancelOrder: (legacyId: string, reason: string) =>
    call("cancel a store order", "POST", `${baseUrl}/__sim/orders/${legacyId}/cancel`, { reason }, Ignored),
  subscribeWebhook: (topic: string, address: string) =>
    call("subscribe a store webhook", "POST", `${baseUrl}/__sim/webhooks/subscribe`, { topic, address }, Ignored)
})

/** The WooCommerce simulator's admin: a buyer's checkout, the merchant cancelling, webhooks as saved in WP admin. */
export const wooCommerceAdmin = (siteUrl: string) => ({
  createOrder: (spec: unknown) => call("create a WooCommerce order", "POST", `${siteUrl}/__sim/orders`, spec, CreatedWooOrder),
  cancelOrder: (id: string) =>
    call("cancel a WooCommerce order", "PATCH", `${siteUrl}/__sim/orders/${id}`, { status: "cancelled" }, Ignored),
  subscribeWebhook: (topic: string, address: string) =>
    call("subscribe a WooCommerce webhook", "POST", `${siteUrl}/__sim/webhooks/subscribe`, { topic, address }, Ignored)
})

/** The Etsy simulator's admin: a buyer's purchase, the seller cancelling, the app's webhook subscription. */
export const etsyAdmin = (baseUrl: string) => ({
  createReceipt: (spec: unknown) => call("create an Etsy receipt", "POST", `${baseUrl}/__sim/receipts`, spec, CreatedEtsyReceipt),
  cancelReceipt: (receiptId: string, reason: string) =>
    call("cancel an Etsy receipt", "POST", `${baseUrl}/__sim/receipts/${receiptId}/cancel`, { reason }, Ignored),
  subscribeWebhooks: (address: string) =>
    call("subscribe the Etsy webhooks", "POST", `${baseUrl}/__sim/webhooks/subscribe`, { url: address }, Ignored)
})

/** The JSON feed storefront's admin: a buyer's checkout, the seller cancelling, its webhook subscription. */
export const jsonFeedAdmin = (serverUrl: string) => ({
  createOrder: (spec: unknown) => call("create a JSON feed order", "POST", `${serverUrl}/__sim/orders`, spec, CreatedFeedOrder),
  cancelOrder: (id: string, reason: string) =>
    call("cancel a JSON feed order", "POST", `${serverUrl}/__sim/orders/${encodeURIComponent(id)}/cancel`, { reason }, Ignored),
  subscribeWebhooks: (address: string) =>
    call("subscribe the JSON feed webhooks", "POST", `${serverUrl}/__sim/webhooks/subscribe`, { address }, Ignored)
})

/** The POD simulator's admin: the service's own side of an order (payment, production, shipping). */
export const podAdmin = (baseUrl: string) => ({
  checkoutDraft: (draftId: string) =>
    call("check out a draft", "POST", `${baseUrl}/__sim/drafts/${draftId}/checkout`, { paid: true }, PodOrderAnswer),
  startProduction: (orderId: string) =>
    call("start production", "POST", `${baseUrl}/__sim/orders/${orderId}/advance`, { to: "IN_PRODUCTION" }, PodOrderAnswer),
  ship: (orderId: string) => call("ship an order", "POST", `${baseUrl}/__sim/orders/${orderId}/ship`, {}, PodOrderAnswer),
  stats: call("read the POD service's statistics", "GET", `${baseUrl}/__sim/stats`, undefined, PodServiceStats)
})

export type ShopifyAdmin = ReturnType<typeof shopifyAdmin>
export type WooCommerceAdmin = ReturnType<typeof wooCommerceAdmin>
export type EtsyAdmin = ReturnType<typeof etsyAdmin>
export type JsonFeedAdmin = ReturnType<typeof jsonFeedAdmin>
export type PodAdmin = ReturnType<typeof podAdmin>
