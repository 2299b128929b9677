import type { CostBucket } from "./cost.js"
import { parseFaultRule, type Faults } from "./faults.js"
import type { OrderSpec } from "./fixtures.js"
import { gid, isoSeconds, type CancelReason, type StoredOrder } from "./model.js"
import { countryCodes, currencyCodes, financialStatuses } from "./schema.graphql.js"
import type { OrderPatch, ShopState } from "./store.js"
import { webhookTopics, type Webhooks, type WebhookSettings } from "./webhooks.js"

/**
 * The simulator's own admin API under `/__sim/` (no auth, no query cost): create, edit, cancel and hold
 * orders, read statistics, set faults, drive webhooks and the clock.
 */

export interface AdminContext {
  readonly state: ShopState
  readonly bucket: CostBucket
  readonly faults: Faults
  readonly webhooks: Webhooks
}

export interface AdminAnswer { readonly status: number; readonly body: unknown }

const ok = (body: unknown): AdminAnswer => ({ status: 200, body })
const bad = (message: string, status = 400): AdminAnswer => ({ status, body: { error: message } })

const asObject = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}

/** The stored order as JSON, with global ids beside the numeric ones and ISO timestamps. */
export const adminOrder = (order: StoredOrder) => ({
  ...order,
  id: gid("Order", order.id),
  legacyResourceId: String(order.id),
  createdAt: isoSeconds(order.createdAt),
  updatedAt: isoSeconds(order.updatedAt),
  processedAt: isoSeconds(order.processedAt),
  cancelledAt: order.cancelledAt === null ? null : isoSeconds(order.cancelledAt),
  closedAt: order.closedAt === null ? null : isoSeconds(order.closedAt),
  lineItems: order.lineItems.map((l) => ({ ...l, id: gid("LineItem", l.id), legacyResourceId: String(l.id) })),
  fulfillmentOrders: order.fulfillmentOrders.map((fo) => ({
    ...fo,
    id: gid("FulfillmentOrder", fo.id),
    createdAt: isoSeconds(fo.createdAt),
    updatedAt: isoSeconds(fo.updatedAt),
    holds: fo.holds.map((h) => ({ ...h, id: gid("FulfillmentHold", h.id) })),
    lines: fo.lines.map((l) => ({ ...l, id: gid("FulfillmentOrderLineItem", l.id), lineItemId: gid("LineItem", l.lineItemId) }))
  })),
  fulfillments: order.fulfillments.map((f) => ({
    ...f,
    id: gid("Fulfillment", f.id),
    createdAt: isoSeconds(f.createdAt),
    updatedAt: isoSeconds(f.updatedAt),
    fulfillmentOrderIds: f.fulfillmentOrderIds.map((id) => gid("FulfillmentOrder", id)),
    lines: f.lines.map((l) => ({ ...l, id: gid("FulfillmentLineItem", l.id), lineItemId: gid("LineItem", l.lineItemId) }))
  })),
  metafields: order.metafields.map((m) => ({ ...m, id: gid("Metafield", m.id), createdAt: isoSeconds(m.createdAt), updatedAt: isoSeconds(m.updatedAt) }))
})

const stats = (ctx: AdminContext) => {
  const tagsByOrder: Record<string, string[]> = {}
  for (const order of ctx.state.orders.values()) if (order.tags.length > 0) tagsByOrder[String(order.id)] = [...order.tags]
  return {
    ...ctx.state.stats,
    tagsByOrder,
    orders: ctx.state.orders.size,
    throttleStatus: ctx.bucket.status(),
    webhooksPending: ctx.webhooks.pendingCount(),
    webhooksDelivered: ctx.webhooks.deliveries().filter((d) => d.status !== null && d.status < 300).length
  }
}

/** Values the GraphQL enums could not serialise are refused here, with the allowed list. */
const invalidOrderFields = (b: Record<string, unknown>): string | null => {
  const address = asObject(b.shippingAddress)
  const checks: Array<[string, unknown, ReadonlyArray<string>]> = [
    ["financialStatus", b.financialStatus, financialStatuses],
    ["currencyCode", b.currencyCode, currencyCodes],
    ["shippingAddress.countryCodeV2", address.countryCodeV2, countryCodes]
  ]
  for (const [name, value, allowed] of checks) {
    if (value !== undefined && value !== null && !allowed.includes(String(value))) return `${name} must be one of ${allowed.join(", ")}`
  }
  return null
}

const holdReasons: ReadonlyArray<string> = [
  "AWAITING_PAYMENT", "AWAITING_RETURN_ITEMS", "HIGH_RISK_OF_FRAUD", "INCORRECT_ADDRESS", "INVENTORY_OUT_OF_STOCK",
  "ONLINE_STORE_POST_PURCHASE_CROSS_SELL", "OTHER", "UNKNOWN_DELIVERY_DATE"
]

const cancelReasons: ReadonlyArray<CancelReason> = ["CUSTOMER", "DECLINED", "FRAUD", "INVENTORY", "OTHER", "STAFF"]

const orderRoute = (ctx: AdminContext, method: string, legacyId: string, action: string | undefined, body: unknown): AdminAnswer => {
  const order = ctx.state.findOrder(Number(legacyId))
  if (!order) return bad(`order ${legacyId} does not exist`, 404)
  const b = asObject(body)
  if (method === "GET" && action === undefined) return ok(adminOrder(order))
  if (method === "PATCH" && action === undefined) {
    const invalid = invalidOrderFields(b)
    if (invalid) return bad(invalid)
    try {
      return ok(adminOrder(ctx.state.editOrder(order, b as OrderPatch)))
    } catch (error) {
      return bad(error instanceof Error ? error.message : String(error))
    }
  }
  if (method !== "POST") return bad(`${method} is not supported here`, 405)
  switch (action) {
    case "cancel": {
      const reason = typeof b.reason === "string" ? b.reason.toUpperCase() : "CUSTOMER"
      if (!cancelReasons.includes(reason as CancelReason)) return bad(`reason must be one of ${cancelReasons.join(", ")}`)
      return ok(adminOrder(ctx.state.cancelOrder(order, reason as CancelReason, b.refund !== false)))
    }
    case "hold": {
      const reason = typeof b.reason === "string" ? b.reason.toUpperCase() : "OTHER"
      if (!holdReasons.includes(reason)) return bad(`reason must be one of ${holdReasons.join(", ")}`)
      ctx.state.holdOrder(order, reason)
      return ok(adminOrder(order))
    }
    case "release":
      ctx.state.releaseOrder(order)
      return ok(adminOrder(order))
    default:
      return bad(`unknown order action ${action ?? ""}`, 404)
  }
}

const webhookSettings = (ctx: AdminContext, body: unknown): AdminAnswer => {
  const b = asObject(body)
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

export const handleAdmin = async (ctx: AdminContext, method: string, path: string, body: unknown): Promise<AdminAnswer> => {
  const parts = path.replace(/^\/__sim\/?/, "").split("/").filter((p) => p.length > 0)
  const route = `${method} ${parts.join("/")}`
  const b = asObject(body)
  switch (route) {
    case "POST reset":
      ctx.state.reset()
      ctx.bucket.reset()
      ctx.faults.clear()
      ctx.webhooks.reset()
      return ok({ ok: true })
    case "POST orders": {
      const invalid = invalidOrderFields(b)
      return invalid ? bad(invalid) : ok(adminOrder(ctx.state.createOrder(b as OrderSpec)))
    }
    case "POST orders/bulk": {
      const invalid = invalidOrderFields(asObject(b.template))
      if (invalid) return bad(invalid)
      const count = typeof b.count === "number" ? Math.floor(b.count) : NaN
      if (!(count >= 1 && count <= 10000)) return bad("count must be between 1 and 10000")
      const template = asObject(b.template) as OrderSpec
      const ids = Array.from({ length: count }, () => gid("Order", ctx.state.createOrder(template).id))
      return ok({ ids })
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
    case "POST webhooks/subscribe": {
      const topic = webhookTopics.find((t) => t === b.topic)
      if (!topic) return bad(`topic must be one of ${webhookTopics.join(", ")}`)
      if (typeof b.address !== "string" || !/^https?:\/\//.test(b.address)) return bad("address must be an http(s) URL")
      return ok(ctx.webhooks.subscribe(topic, b.address))
    }
    case "GET webhooks":
      return ok({ subscriptions: ctx.webhooks.listSubscriptions(), settings: ctx.webhooks.settings, deliveries: ctx.webhooks.deliveries() })
    case "POST webhooks/settings":
      return webhookSettings(ctx, body)
    case "POST webhooks/deliver": {
      const sent = await ctx.webhooks.deliver({
        ...(typeof b.duplicates === "number" ? { duplicates: b.duplicates } : {}),
        ...(typeof b.reorder === "boolean" ? { reorder: b.reorder } : {})
      })
      return ok({ sent })
    }
    case "POST clock/advance": {
      if (typeof b.seconds !== "number" || b.seconds < 0) return bad("seconds must be a non-negative number")
      ctx.state.advanceClock(b.seconds)
      return ok({ now: new Date(ctx.state.now()).toISOString() })
    }
    case "POST churn": {
      const perOrdersQuery = b.perOrdersQuery
      if (typeof perOrdersQuery !== "number" || perOrdersQuery < 0) return bad("perOrdersQuery must be a non-negative number")
      ctx.state.churnPerOrdersQuery = Math.floor(perOrdersQuery)
      return ok({ perOrdersQuery: ctx.state.churnPerOrdersQuery })
    }
    case "POST bucket/drain":
      ctx.bucket.drain()
      return ok(ctx.bucket.status())
  }
  if (parts[0] === "orders" && parts[1] !== undefined && /^\d+$/.test(parts[1]) && parts.length <= 3) {
    return orderRoute(ctx, method, parts[1], parts[2], body)
  }
  return bad(`no admin route ${method} ${path}`, 404)
}
