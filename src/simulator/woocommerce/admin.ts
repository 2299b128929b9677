import type { ApiContext } from "./api.js"
import { asObject, attempt, bad, bulkCount, churnRoute, isRecordPath, ok, recordRoute, webhookStats } from "../kit/admin.js"
import { routeAdmin, storeAdminParts, type AdminAnswer, type RecordRoutes } from "../kit/admin.js"
import { parseFaultRule, parseHostLimit, type Faults, type HostLimiter } from "./faults.js"
import type { OrderSpec } from "./fixtures.js"
import { trackingItems, type StoredOrder } from "./model.js"
import type { OrderPatch, OrderTopic } from "./store.js"
import { formatTracking } from "./trackingApi.js"
import { noteView, orderView, refundView, trackingView } from "./views.js"
import { webhookApiVersions, webhookTopics, webhookView, type WebhookApiVersion } from "./webhooks.js"

/**
 * The simulator's own admin API under `/__sim/` (no auth): create, edit, refund and trash orders,
 * switch the Shipment Tracking extension, read statistics (incl. tracking items, notes and customer
 * emails per order), set faults and a host rate limit, drive webhooks and the clock.
 */

export interface AdminContext extends ApiContext {
  readonly faults: Faults
  readonly limiter: HostLimiter
  /** Secret of webhooks subscribed here without one (REST creations keep WooCommerce's derived default). */
  readonly webhookSecret: string
}

export type { AdminAnswer } from "../kit/admin.js"

/** The order as the REST API shows it, plus what only the admin sees: notes, emails, tracking items, refunds. */
export const adminOrder = (ctx: ApiContext, order: StoredOrder) => ({
  ...orderView(ctx.view, order),
  notes: order.notes.map((n) => ({ ...noteView(ctx.view, order, n), seq: n.seq })),
  emails: order.emails,
  shipment_trackings: trackingItems(order).map((t) => trackingView(ctx.view, order, t, formatTracking(t))),
  refund_details: order.refunds.map((r) => refundView(ctx.view, order, r))
})

const countBy = (orders: Iterable<StoredOrder>, count: (o: StoredOrder) => number): Record<string, number> => {
  const result: Record<string, number> = {}
  for (const o of orders) {
    const n = count(o)
    if (n > 0) result[String(o.id)] = n
  }
  return result
}

const stats = (ctx: AdminContext) => {
  const orders = [...ctx.state.orders.values()]
  return {
    ...ctx.state.stats,
    orders: orders.length,
    shipmentTracking: ctx.state.shipmentTracking,
    host: ctx.state.host,
    trackingsByOrder: countBy(orders, (o) => trackingItems(o).length),
    notesByOrder: countBy(orders, (o) => o.notes.filter((n) => n.author !== "system" || !n.note.startsWith("Order status changed")).length),
    buyerEmailsByOrder: countBy(orders, (o) => o.emails.length),
    completedEmailsByOrder: countBy(orders, (o) => o.emails.filter((e) => e.type === "customer_completed_order").length),
    ...webhookStats(ctx.webhooks, ctx.webhooks.deliveries().filter((d) => !d.ping))
  }
}

const orderRoutes = (ctx: AdminContext): RecordRoutes<StoredOrder> => ({
  noun: "order",
  find: (id) => ctx.state.orders.get(Number(id)),
  view: (order) => adminOrder(ctx, order),
  edit: (order, b) => attempt(() => ok(adminOrder(ctx, ctx.state.editOrder(order, b as OrderPatch)))),
  act: (action, order, b) => {
    switch (action) {
      case "refund":
        return attempt(() => {
          const refund = ctx.state.addRefund(order, b as Parameters<typeof ctx.state.addRefund>[1])
          return ok({ refund: refundView(ctx.view, order, refund), order: adminOrder(ctx, order) })
        })
      case "trash":
        ctx.state.trash(order)
        return ok(adminOrder(ctx, order))
    }
    return null
  }
})

/** `POST webhooks/:id/ping`: pings one webhook's URL as WooCommerce does on saving it. */
const byPath = async (ctx: AdminContext, method: string, parts: ReadonlyArray<string>, body: unknown): Promise<AdminAnswer | null> => {
  if (isRecordPath(parts, "orders")) return recordRoute(orderRoutes(ctx), method, parts[1], parts[2], body)
  if (parts[0] === "webhooks" && parts[1] !== undefined && /^\d+$/.test(parts[1]) && parts[2] === "ping" && method === "POST") {
    const hook = ctx.webhooks.find(Number(parts[1]))
    return hook === undefined ? bad(`webhook ${parts[1]} does not exist`, 404) : ok({ status: await ctx.webhooks.ping(hook) })
  }
  return null
}

const bulk = (ctx: AdminContext, b: Record<string, unknown>): AdminAnswer => {
  const count = bulkCount(b)
  if (typeof count !== "number") return count
  const spacing = typeof b.spacingSeconds === "number" && b.spacingSeconds >= 0 ? b.spacingSeconds : 0
  const template = asObject(b.template) as OrderSpec
  return attempt(() => {
    const ids: number[] = []
    for (let i = 0; i < count; i++) {
      if (i > 0 && spacing > 0) ctx.state.advanceClock(spacing)
      ids.push(ctx.state.createOrder(template).id)
    }
    return ok({ ids })
  })
}

export const handleAdmin = (ctx: AdminContext, method: string, path: string, body: unknown): Promise<AdminAnswer> =>
  routeAdmin(
    storeAdminParts(ctx, parseFaultRule, () => ctx.limiter.reset()),
    { fixed: (route, b, raw) => ownRoute(ctx, route, b, raw), byPath: (m, parts, b) => byPath(ctx, m, parts, b) }
  )(method, path, body)

const ownRoute = async (ctx: AdminContext, route: string, b: Record<string, unknown>, body: unknown): Promise<AdminAnswer | null> => {
  switch (route) {
    case "POST orders":
      return attempt(() => ok(adminOrder(ctx, ctx.state.createOrder(b as OrderSpec))))
    case "POST orders/bulk":
      return bulk(ctx, b)
    case "GET orders":
      return ok({ orders: [...ctx.state.orders.values()].map((o) => adminOrder(ctx, o)) })
    case "GET stats":
      return ok(stats(ctx))
    case "POST extensions":
      if (typeof b.shipmentTracking !== "boolean") return bad("shipmentTracking must be true or false")
      ctx.state.shipmentTracking = b.shipmentTracking
      return ok({ shipmentTracking: ctx.state.shipmentTracking })
    case "POST host": {
      if (b.stripsAuthorization !== undefined && typeof b.stripsAuthorization !== "boolean") {
        return bad("stripsAuthorization must be true or false")
      }
      if (b.homeUrl !== undefined && b.homeUrl !== null && (typeof b.homeUrl !== "string" || !/^https?:\/\//.test(b.homeUrl))) {
        return bad("homeUrl must be an http(s) URL or null")
      }
      if (typeof b.stripsAuthorization === "boolean") ctx.state.host.stripsAuthorization = b.stripsAuthorization
      if (b.homeUrl !== undefined) ctx.state.host.homeUrl = b.homeUrl as string | null
      return ok(ctx.state.host)
    }
    case "POST rate-limit": {
      const limit = parseHostLimit(body)
      if (typeof limit === "string") return bad(limit)
      ctx.limiter.limit = limit
      return ok({ limit })
    }
    case "POST webhooks/subscribe": {
      const topic = webhookTopics.find((t) => t === b.topic)
      if (!topic) return bad(`topic must be one of ${webhookTopics.join(", ")}`)
      if (typeof b.address !== "string" || !/^https?:\/\//.test(b.address)) return bad("address must be an http(s) URL")
      const secret = typeof b.secret === "string" ? b.secret : ctx.webhookSecret
      const apiVersion = b.apiVersion ?? "wp_api_v3"
      if (!webhookApiVersions.includes(apiVersion as WebhookApiVersion)) {
        return bad(`apiVersion must be one of ${webhookApiVersions.join(", ")}`)
      }
      const hook = await ctx.webhooks.create({
        topic: topic as OrderTopic,
        deliveryUrl: b.address,
        secret,
        apiVersion: apiVersion as WebhookApiVersion
      })
      return ok({ ...webhookView(ctx.view.siteUrl, hook), secret: hook.secret })
    }
    case "GET webhooks":
      return ok({
        webhooks: ctx.webhooks.list().map((h) => ({ ...webhookView(ctx.view.siteUrl, h), failure_count: h.failureCount })),
        settings: ctx.webhooks.settings,
        deliveries: ctx.webhooks.deliveries()
      })
    case "POST churn":
      return churnRoute(b, "perListQuery", (n) => (ctx.state.churnPerListQuery = n))
  }
  return null
}
