import type { Access } from "./auth.js"
import type { StoredOrder } from "./model.js"
import type { DateBoundMode } from "./query.js"
import type { WooState } from "./store.js"
import type { ViewContext } from "./views.js"
import type { Webhooks } from "./webhooks.js"

/** Shapes shared by the REST route modules: a parsed request, an answer, a matched route. */

export interface ApiContext {
  readonly state: WooState
  readonly webhooks: Webhooks
  readonly view: ViewContext
  readonly dateBounds: DateBoundMode
}

export interface ApiRequest {
  readonly method: string
  readonly params: URLSearchParams
  /** The JSON (or form) body, already parsed; `{}` when there is none. */
  readonly body: Record<string, unknown>
}

export interface ApiAnswer {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

export interface Route {
  /** Stable name for faults and stats, e.g. `orders.update`. */
  readonly operation: string
  readonly access: Access
  /** Public routes need no API key (the Shipment Tracking providers list). */
  readonly public?: boolean
  readonly handle: (request: ApiRequest) => ApiAnswer | Promise<ApiAnswer>
}

export const ok = (body: unknown, status = 200, headers?: Record<string, string>): ApiAnswer =>
  headers === undefined ? { status, body } : { status, body, headers }

export const wooError = (status: number, code: string, message: string, extra: Record<string, unknown> = {}): ApiAnswer => ({
  status,
  body: { code, message, data: { status, ...extra } }
})

export const noRoute = (): ApiAnswer => wooError(404, "rest_no_route", "No route was found matching the URL and request method.")

export const missingParams = (names: ReadonlyArray<string>): ApiAnswer =>
  wooError(400, "rest_missing_callback_param", `Missing parameter(s): ${names.join(", ")}`, { params: names })

export const invalidParams = (params: Record<string, { message: string; code: string }>): ApiAnswer => ({
  status: 400,
  body: {
    code: "rest_invalid_param",
    message: `Invalid parameter(s): ${Object.keys(params).join(", ")}`,
    data: {
      status: 400,
      params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v.message])),
      details: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, { code: v.code, message: v.message, data: null }]))
    }
  }
})

/** WordPress reads `true`, `1`, `"true"`, `"1"` as true. */
export const truthy = (value: unknown): boolean => value === true || value === 1 || value === "true" || value === "1"

export const withOrder = (
  ctx: ApiContext,
  id: string,
  run: (order: StoredOrder) => ApiAnswer | Promise<ApiAnswer>,
  invalid: ApiAnswer
): ApiAnswer | Promise<ApiAnswer> => {
  const order = ctx.state.orders.get(Number(id))
  return order === undefined ? invalid : run(order)
}

/** The routes on the order `id` of a path: each answers `invalid` when there is no such order, else runs on it. */
export const orderRoutes = (ctx: ApiContext, id: string, invalid: ApiAnswer) =>
(
  operation: string,
  access: Access,
  run: (order: StoredOrder, request: ApiRequest) => ApiAnswer | Promise<ApiAnswer>
): Route => ({ operation, access, handle: (request) => withOrder(ctx, id, (order) => run(order, request), invalid) })
