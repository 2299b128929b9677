/**
 * The simulator's own admin API under `/__sim/` (no auth, no rate limit):
 * the seller's side of the storefront (create, edit, cancel, hold orders),
 * statistics, faults, the rate limit, webhooks and the clock.
 */
import type { Faults } from "./faults.js"
import { parseFaultRule } from "./faults.js"
import type { OrderSpec } from "./fixtures.js"
import type { FulfillmentDesk } from "./fulfillments.js"
import type { SlidingWindowLimiter } from "./limiter.js"
import { type StoredOrder, wireFulfillment, wireOrder } from "./model.js"
import { type FeedState, InvalidSpecError, type OrderPatch } from "./store.js"
import type { Webhooks, WebhookSettings } from "./webhooks.js"

export interface AdminContext {
  readonly state: FeedState
  readonly desk: FulfillmentDesk
  readonly faults: Faults
  readonly limiter: SlidingWindowLimiter
  readonly webhooks: Webhooks
  /** The rate limit the simulator started with, restored by reset. */
  readonly initialRateLimit: Parameters<SlidingWindowLimiter["configure"]>[0]
}

export interface AdminAnswer { readonly status: number; readonly body: unknown }

const ok = (body: unknown): AdminAnswer => ({ status: 200, body })
const bad = (message: string, status = 400): AdminAnswer => ({ status, body: { error: message } })

const asObject = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}

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
  webhooksPending: ctx.webhooks.pendingCount(),
  webhooksDelivered: ctx.webhooks.deliveries().filter((d) => d.status !== null && d.status < 300).length
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

const orderRoute = (ctx: AdminContext, method: string, id: string, action: string | undefined, body: unknown): AdminAnswer => {
  const order = ctx.state.orders.get(id)
  if (order === undefined) return bad(`order ${id} does not exist`, 404)
  const b = asObject(body)
  if (action === undefined && method === "GET") return ok(adminOrder(order))
  if (action === undefined && method === "PATCH") return guarded(() => adminOrder(ctx.state.editOrder(order, b as OrderPatch)))
  if (method !== "POST") return bad(`${method} is not supported here`, 405)
  switch (action) {
    case "cancel":
      return ok(adminOrder(ctx.state.cancelOrder(order, typeof b.reason === "string" ? b.reason : "customer", b.refund !== false)))
    case "hold":
      return ok(adminOrder(ctx.state.hold(order, typeof b.reason === "string" ? b.reason : null)))
    case "release":
      return ok(adminOrder(ctx.state.release(order)))
    default:
      return bad(`unknown order action ${action ?? ""}`, 404)
  }
}

const webhookSettings = (ctx: AdminContext, b: Record<string, unknown>): AdminAnswer => {
  const next: WebhookSettings = { ...ctx.webhooks.settings }
  if (typeof b.autoDeliver === "boolean") next.autoDeliver = b.autoDeliver
  if (typeof b.delayMs === "number" && b.delayMs >= 0) next.delayMs = b.delayMs
  if (typeof b.duplicates === "number" && b.duplicates >= 0) next.duplicates = Math.floor(b.duplicates)
  if (typeof b.reorder === "boolean") next.reorder = b.reorder
  if (typeof b.retries === "number" && b.retries >= 0) next.retries = Math.floor(b.retries)
  if (typeof b.retryDelayMs === "number" && b.retryDelayMs >= 0) next.retryDelayMs = b.retryDelayMs
  ctx.webhooks.settings = next
  return ok(next)
}

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

export const handleAdmin = async (ctx: AdminContext, method: string, path: string, body: unknown): Promise<AdminAnswer> => {
  let parts: Array<string>
  try {
    parts = path.replace(/^\/__sim\/?/, "").split("/").filter((p) => p.length > 0).map(decodeURIComponent)
  } catch {
    return bad(`no admin route ${method} ${path}`, 404)
  }
  const b = asObject(body)
  switch (`${method} ${parts.join("/")}`) {
    case "POST reset":
      ctx.state.reset()
      ctx.desk.reset()
      ctx.faults.clear()
      ctx.limiter.configure(ctx.initialRateLimit)
      ctx.webhooks.reset()
      return ok({ ok: true })
    case "POST orders":
      return guarded(() => adminOrder(ctx.state.createOrder(b as OrderSpec)))
    case "POST orders/bulk": {
      const count = typeof b.count === "number" ? Math.floor(b.count) : NaN
      if (!(count >= 1 && count <= 10000)) return bad("count must be between 1 and 10000")
      const template = asObject(b.template) as OrderSpec
      return guarded(() => ({ ids: Array.from({ length: count }, () => ctx.state.createOrder(template).id) }))
    }
    case "GET orders":
      return ok({ orders: [...ctx.state.orders.values()].map(adminOrder) })
    case "GET stats":
      return ok(stats(ctx))
    case "POST faults": {
      const rule = parseFaultRule(body)
      if (typeof rule === "string") return bad(rule)
      ctx.faults.add(rule)
      return ok({ faults: ctx.faults.list() })
    }
    case "GET faults":
      return ok({ faults: ctx.faults.list() })
    case "DELETE faults":
      ctx.faults.clear()
      return ok({ faults: [] })
    case "POST ratelimit":
      return rateLimit(ctx, b)
    case "POST webhooks/subscribe":
      if (typeof b.address !== "string" || !/^https?:\/\//.test(b.address)) return bad("address must be an http(s) URL")
      return ok(ctx.webhooks.subscribe(b.address))
    case "GET webhooks":
      return ok({ subscriptions: ctx.webhooks.listSubscriptions(), settings: ctx.webhooks.settings, deliveries: ctx.webhooks.deliveries() })
    case "POST webhooks/settings":
      return webhookSettings(ctx, b)
    case "POST webhooks/ping":
      ctx.webhooks.ping()
      return ok({ pending: ctx.webhooks.pendingCount() })
    case "POST webhooks/deliver": {
      const sent = await ctx.webhooks.deliver({
        ...(typeof b.duplicates === "number" ? { duplicates: b.duplicates } : {}),
        ...(typeof b.reorder === "boolean" ? { reorder: b.reorder } : {})
      })
      return ok({ sent })
    }
    case "POST clock/advance":
      if (typeof b.seconds !== "number" || b.seconds < 0) return bad("seconds must be a non-negative number")
      ctx.state.advanceClock(b.seconds)
      return ok({ now: new Date(ctx.state.now()).toISOString() })
    case "POST churn":
      if (typeof b.perPage !== "number" || b.perPage < 0) return bad("perPage must be a non-negative number")
      ctx.state.churnPerPage = Math.floor(b.perPage)
      return ok({ perPage: ctx.state.churnPerPage })
  }
  if (parts[0] === "orders" && parts[1] !== undefined && parts.length <= 3) return orderRoute(ctx, method, parts[1], parts[2], body)
  return bad(`no admin route ${method} ${path}`, 404)
}
