/**
 * The simulator's own admin API under `/__sim/` (no auth, no rate limit):
 * the seller's side of the storefront (create, edit, cancel, hold orders),
 * statistics, faults, the rate limit, webhooks and the clock.
 */
import { adminPathParts, asObject, bad, bulkCount, churnRoute, ok, recordRoute, webhookStats } from "../kit/admin.js"
import { routeAdmin, storeAdminParts, type AdminAnswer, type RecordRoutes } from "../kit/admin.js"
import type { Faults } from "./faults.js"
import { parseFaultRule } from "./faults.js"
import type { OrderSpec } from "./fixtures.js"
import type { FulfillmentDesk } from "./fulfillments.js"
import type { SlidingWindowLimiter } from "./limiter.js"
import { type StoredOrder, wireFulfillment, wireOrder } from "./model.js"
import { type FeedState, InvalidSpecError, type OrderPatch } from "./store.js"
import type { Webhooks } from "./webhooks.js"

export interface AdminContext {
  readonly state: FeedState
  readonly desk: FulfillmentDesk
  readonly faults: Faults
  readonly limiter: SlidingWindowLimiter
  readonly webhooks: Webhooks
  /** The rate limit the simulator started with, restored by reset. */
  readonly initialRateLimit: Parameters<SlidingWindowLimiter["configure"]>[0]
}

export type { AdminAnswer } from "../kit/admin.js"

/** The order as the API shows it, plus its fulfilments and insertion number. */
export const adminOrder = (order: StoredOrder) => ({
  ...wireOrder(order),
  seq: order.seq,
  fulfillments: order.fulfillments.map(wireFulfillment)
})

const stats = (ctx: AdminContext) => ({
  ...ctx.state.stats,
  orders: ctx.state.orders.size,
  rateLimit: ctx.limiter.current(),
  ...webhookStats(ctx.webhooks)
})

/** Runs a state change, turning a refused spec into a 400. */
const guarded = (change: () => unknown): AdminAnswer => {
  try {
    return ok(change())
  } catch (error) {
    if (error instanceof InvalidSpecError) return bad(error.message)
    throw error
  }
}

const orderRoutes = (ctx: AdminContext): RecordRoutes<StoredOrder> => ({
  noun: "order",
  find: (id) => ctx.state.orders.get(id),
  view: adminOrder,
  edit: (order, b) => guarded(() => adminOrder(ctx.state.editOrder(order, b as OrderPatch))),
  act: (action, order, b) => {
    switch (action) {
      case "cancel":
        return ok(adminOrder(ctx.state.cancelOrder(order, typeof b.reason === "string" ? b.reason : "customer", b.refund !== false)))
      case "hold":
        return ok(adminOrder(ctx.state.hold(order, typeof b.reason === "string" ? b.reason : null)))
      case "release":
        return ok(adminOrder(ctx.state.release(order)))
    }
    return null
  }
})

const rateLimit = (ctx: AdminContext, b: Record<string, unknown>): AdminAnswer => {
  if (b.off === true) {
    ctx.limiter.configure(null)
    return ok({ rateLimit: null })
  }
  const { requests, windowSeconds } = b
  if (typeof requests !== "number" || requests < 1 || typeof windowSeconds !== "number" || windowSeconds <= 0) {
    return bad("send { requests: n >= 1, windowSeconds: s > 0 } or { off: true }")
  }
  ctx.limiter.configure({ requests: Math.floor(requests), windowSeconds })
  return ok({ rateLimit: ctx.limiter.current() })
}

/** What `POST reset` restores besides the store, the fault rules and webhooks. */
const resetMore = (ctx: AdminContext): void => {
  ctx.desk.reset()
  ctx.limiter.configure(ctx.initialRateLimit)
}

/** The path's segments, decoded; null when one cannot be. */
const segments = (path: string): Array<string> | null => {
  try {
    return adminPathParts(path).map(decodeURIComponent)
  } catch {
    return null
  }
}

// Order ids are strings here (`ord_1001`), so any id segment is tried.
const byPath = (ctx: AdminContext, method: string, parts: ReadonlyArray<string>, body: unknown): AdminAnswer | null =>
  parts[0] === "orders" && parts[1] !== undefined && parts.length <= 3
    ? recordRoute(orderRoutes(ctx), method, parts[1], parts[2], body)
    : null

export const handleAdmin = (ctx: AdminContext, method: string, path: string, body: unknown): Promise<AdminAnswer> =>
  routeAdmin(
    storeAdminParts(ctx, parseFaultRule, () => resetMore(ctx)),
    { segments, fixed: (route, b) => ownRoute(ctx, route, b), byPath: (m, parts, b) => byPath(ctx, m, parts, b) }
  )(method, path, body)

const ownRoute = (ctx: AdminContext, route: string, b: Record<string, unknown>): AdminAnswer | null => {
  switch (route) {
    case "POST orders":
      return guarded(() => adminOrder(ctx.state.createOrder(b as OrderSpec)))
    case "POST orders/bulk": {
      const count = bulkCount(b)
      if (typeof count !== "number") return count
      const template = asObject(b.template) as OrderSpec
      return guarded(() => ({ ids: Array.from({ length: count }, () => ctx.state.createOrder(template).id) }))
    }
    case "GET orders":
      return ok({ orders: [...ctx.state.orders.values()].map(adminOrder) })
    case "GET stats":
      return ok(stats(ctx))
    case "POST ratelimit":
      return rateLimit(ctx, b)
    case "POST webhooks/subscribe":
      if (typeof b.address !== "string" || !/^https?:\/\//.test(b.address)) return bad("address must be an http(s) URL")
      return ok(ctx.webhooks.subscribe(b.address))
    case "POST webhooks/ping":
      ctx.webhooks.ping()
      return ok({ pending: ctx.webhooks.pendingCount() })
    case "POST churn":
      return churnRoute(b, "perPage", (n) => (ctx.state.churnPerPage = n))
  }
  return null
}
