import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
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
  method: "GET" | "POST",
  url: string,
  body: unknown,
  schema: Schema.Schema<A, I>
) =>
  Effect.gen(function*() {
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)
    const request = method === "GET"
      ? HttpClientRequest.get(url)
      : HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUnsafeJson(body ?? {}))
    const response = yield* client.execute(request)
    return yield* HttpClientResponse.schemaBodyJson(schema)(response)
  }).pipe(
    Effect.scoped,
    Effect.timeout("10 seconds"),
    Effect.mapError((cause) => new SimulatorAdminError({ operation, cause }))
  )

/** The store simulator's admin: orders as a shopper (create) and as a merchant (cancel), webhook set-up. */
export const shopifyAdmin = (baseUrl: string) => ({
  createOrder: (spec: unknown) => call("create a store order", "POST", `${baseUrl}/__sim/orders`, spec, CreatedShopifyOrder),
  cancelOrder: (legacyId: string, reason: string) =>
    call("cancel a store order", "POST", `${baseUrl}/__sim/orders/${legacyId}/cancel`, { reason }, Ignored),
  subscribeWebhook: (topic: string, address: string) =>
    call("subscribe a store webhook", "POST", `${baseUrl}/__sim/webhooks/subscribe`, { topic, address }, Ignored)
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
export type PodAdmin = ReturnType<typeof podAdmin>
