/**
 * The four endpoints of the podsync JSON feed contract (docs/jsonfeed.md
 * §4–§7), below `<base>`. Authentication and the rate limit are checked by
 * server.ts before a request gets here.
 *
 *   GET  <base>/orders?updated_since=…&cursor=…&limit=…
 *   GET  <base>/orders/{id}
 *   GET  <base>/orders/{id}/fulfillments
 *   POST <base>/orders/{id}/fulfillments      (Idempotency-Key)
 */
import { type ApiAnswer, type FulfillmentDesk } from "./fulfillments.js"
import { iso, wireFulfillment, wireOrder } from "./model.js"
import { decodeCursor, encodeCursor, firstPosition, pageOf, parseTimestamp } from "./paging.js"
import type { FeedState } from "./store.js"
import { wireError, type WireOrdersPage } from "./wire.js"

export type Operation = "listOrders" | "getOrder" | "listFulfillments" | "createFulfillment"

export interface Route {
  readonly operation: Operation
  readonly orderId?: string
}

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 250

/** Which endpoint a request below `<base>` is for; null for no endpoint of the contract. */
export const routeOf = (method: string, subpath: string): Route | "method_not_allowed" | null => {
  const parts = subpath.split("/").filter((p) => p.length > 0)
  if (parts[0] !== "orders" || parts.length > 3) return null
  let orderId: string | undefined
  try {
    orderId = parts[1] === undefined ? undefined : decodeURIComponent(parts[1])
  } catch {
    return null // not valid percent-encoding: no such resource
  }
  if (parts.length === 1) return method === "GET" ? { operation: "listOrders" } : "method_not_allowed"
  if (parts.length === 2) return method === "GET" ? { operation: "getOrder", ...(orderId ? { orderId } : {}) } : "method_not_allowed"
  if (parts[2] !== "fulfillments") return null
  if (method === "GET") return { operation: "listFulfillments", ...(orderId ? { orderId } : {}) }
  if (method === "POST") return { operation: "createFulfillment", ...(orderId ? { orderId } : {}) }
  return "method_not_allowed"
}

export interface ApiContext {
  readonly state: FeedState
  readonly desk: FulfillmentDesk
}

export interface ApiRequest {
  readonly route: Route
  readonly query: URLSearchParams
  readonly idempotencyKey: string | undefined
  readonly rawBody: string
  /** Where handling takes time (the latency fault). */
  readonly pause: () => Promise<void>
}

const answer = (status: number, body: unknown): ApiAnswer => ({ status, body })

const listOrders = (ctx: ApiContext, query: URLSearchParams): ApiAnswer => {
  const limitText = query.get("limit")
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    return answer(400, wireError("invalid_request", `limit must be a whole number from 1 to ${MAX_LIMIT}`))
  }
  const cursorText = query.get("cursor")
  let position
  if (cursorText !== null && cursorText !== "") {
    // The cursor carries the whole walk; updated_since sent beside it is the same and is ignored.
    position = decodeCursor(cursorText)
    if (position === null) {
      return answer(400, wireError("invalid_cursor", "the cursor is not one this server issued; start again without it"))
    }
  } else {
    const sinceText = query.get("updated_since")
    const since = sinceText === null || sinceText === "" ? null : parseTimestamp(sinceText)
    if (sinceText !== null && sinceText !== "" && since === null) {
      return answer(
        400,
        wireError("invalid_request", "updated_since must be an ISO-8601 timestamp with a time zone, e.g. 2026-03-01T09:30:00.000Z")
      )
    }
    position = firstPosition(since, ctx.state.now())
  }
  const page = pageOf(ctx.state.orders.values(), position, limit)
  const body: WireOrdersPage = {
    orders: page.orders.map(wireOrder),
    next_cursor: page.next === null ? null : encodeCursor(page.next),
    upper_bound: iso(page.upper)
  }
  if (ctx.state.churnPerPage > 0) ctx.state.churn(ctx.state.churnPerPage)
  return answer(200, body)
}

export const handleApi = async (ctx: ApiContext, request: ApiRequest): Promise<ApiAnswer> => {
  const { route } = request
  if (route.operation === "listOrders") {
    await request.pause()
    return listOrders(ctx, request.query)
  }
  const order = route.orderId === undefined ? undefined : ctx.state.orders.get(route.orderId)
  if (order === undefined) {
    await request.pause()
    return answer(404, wireError("order_not_found", `no order ${route.orderId ?? ""}`))
  }
  switch (route.operation) {
    case "getOrder":
      await request.pause()
      return answer(200, wireOrder(order))
    case "listFulfillments":
      await request.pause()
      return answer(200, { fulfillments: order.fulfillments.map(wireFulfillment) })
    case "createFulfillment": {
      let body: unknown
      try {
        body = JSON.parse(request.rawBody)
      } catch {
        return answer(400, wireError("invalid_request", "the body must be JSON"))
      }
      return ctx.desk.create(order, request.idempotencyKey, body, request.pause)
    }
  }
}
