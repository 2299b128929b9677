import { placedAtProblem } from "../kit/history.js"
import type { CostBucket } from "./cost.js"
import { asObject, attempt, bad, bulkCreate, churnRoute, isRecordPath, ok, recordRoute, webhookStats } from "../kit/admin.js"
import { routeAdmin, storeAdminParts, type AdminAnswer, type RecordRoutes } from "../kit/admin.js"
import { parseFaultRule, type Faults } from "./faults.js"
import type { OrderSpec } from "./fixtures.js"
import { shopPlans, type ShopPlan } from "./access.js"
import { gid, isoSeconds, type CancelReason, type StoredOrder } from "./model.js"
import { countryCodes, currencyCodes, financialStatuses } from "./schema.graphql.js"
import { shopStandings, type OrderPatch, type ShopSettings, type ShopStanding, type ShopState } from "./store.js"
import { webhookTopics, type Webhooks } from "./webhooks.js"
import type { AppTokens } from "./tokens.js"

/**
 * The simulator's own admin API under `/__sim/` (no auth, no query cost): create, edit, cancel and hold
 * orders, read statistics, set faults, drive webhooks and the clock.
 */

export interface AdminContext {
  readonly state: ShopState
  readonly bucket: CostBucket
  readonly faults: Faults
  readonly webhooks: Webhooks
  readonly appTokens?: AppTokens
}

export type { AdminAnswer } from "../kit/admin.js"

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
  metafields: order.metafields.map((m) => ({
    ...m,
    id: gid("Metafield", m.id),
    createdAt: isoSeconds(m.createdAt),
    updatedAt: isoSeconds(m.updatedAt)
  }))
})

const stats = (ctx: AdminContext) => {
  const tagsByOrder: Record<string, string[]> = {}
  // The tracking numbers the buyer is shown, across the order's fulfilments still standing.
  const trackingNumbersByOrder: Record<string, string[]> = {}
  for (const order of ctx.state.orders.values()) {
    if (order.tags.length > 0) tagsByOrder[String(order.id)] = [...order.tags]
    const numbers = order.fulfillments.filter((f) => f.status === "SUCCESS").flatMap((f) =>
      f.tracking.flatMap((t) => (t.number === null || t.number === undefined ? [] : [t.number]))
    )
    if (numbers.length > 0) trackingNumbersByOrder[String(order.id)] = numbers
  }
  return {
    ...ctx.state.stats,
    tagsByOrder,
    trackingNumbersByOrder,
    orders: ctx.state.orders.size,
    throttleStatus: ctx.bucket.status(),
    ...webhookStats(ctx.webhooks)
  }
}

/** Values the GraphQL enums could not serialise are refused here, with the allowed list. */
const invalidOrderFields = (b: Record<string, unknown>): string | null => {
  const placed = placedAtProblem(b.placedAt, Date.now() + 86_400_000)
  if (placed !== null) return placed
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
  "AWAITING_PAYMENT",
  "AWAITING_RETURN_ITEMS",
  "HIGH_RISK_OF_FRAUD",
  "INCORRECT_ADDRESS",
  "INVENTORY_OUT_OF_STOCK",
  "ONLINE_STORE_POST_PURCHASE_CROSS_SELL",
  "OTHER",
  "UNKNOWN_DELIVERY_DATE"
]

/** `POST /__sim/shop`: the plan (protected customer data), the shop's standing (402/423), the static token's scopes. */
const shopSettings = (b: Record<string, unknown>): Partial<ShopSettings> | string => {
  const settings: { -readonly [K in keyof ShopSettings]?: ShopSettings[K] } = {}
  if (b.plan !== undefined) {
    if (!shopPlans.includes(b.plan as ShopPlan)) return `plan must be one of ${shopPlans.join(", ")}`
    settings.plan = b.plan as ShopPlan
  }
  if (b.standing !== undefined) {
    if (!shopStandings.includes(b.standing as ShopStanding)) return `standing must be one of ${shopStandings.join(", ")}`
    settings.standing = b.standing as ShopStanding
  }
  if (b.scopes !== undefined) {
    if (!Array.isArray(b.scopes) || b.scopes.some((s) => typeof s !== "string")) return "scopes must be a list of scope handles"
    settings.scopes = b.scopes as Array<string>
  }
  return settings
}

const cancelReasons: ReadonlyArray<CancelReason> = ["CUSTOMER", "DECLINED", "FRAUD", "INVENTORY", "OTHER", "STAFF"]

const orderRoutes = (ctx: AdminContext): RecordRoutes<StoredOrder> => ({
  noun: "order",
  find: (legacyId) => ctx.state.findOrder(Number(legacyId)),
  view: adminOrder,
  invalid: invalidOrderFields,
  edit: (order, b) => attempt(() => ok(adminOrder(ctx.state.editOrder(order, b as OrderPatch)))),
  act: (action, order, b) => {
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
      case "move": {
        const times = b.times === undefined ? 1 : Number(b.times)
        if (!Number.isInteger(times) || times < 1 || times > 50) return bad("times must be a whole number from 1 to 50")
        ctx.state.moveFulfillmentOrders(order, times)
        return ok(adminOrder(order))
      }
    }
    return null
  }
})

const byPath = (ctx: AdminContext, method: string, parts: ReadonlyArray<string>, body: unknown): AdminAnswer | null =>
  isRecordPath(parts, "orders") ? recordRoute(orderRoutes(ctx), method, parts[1], parts[2], body) : null

export const handleAdmin = (ctx: AdminContext, method: string, path: string, body: unknown): Promise<AdminAnswer> =>
  routeAdmin(
    storeAdminParts(ctx, parseFaultRule, () => ctx.bucket.reset()),
    { fixed: (route, b) => ownRoute(ctx, route, b), byPath: (m, parts, b) => byPath(ctx, m, parts, b) }
  )(method, path, body)

const ownRoute = (ctx: AdminContext, route: string, b: Record<string, unknown>): AdminAnswer | null => {
  switch (route) {
    case "POST orders": {
      const invalid = invalidOrderFields(b)
      return invalid ? bad(invalid) : ok(adminOrder(ctx.state.createOrder(b as OrderSpec)))
    }
    case "POST orders/bulk":
      return bulkCreate(b, invalidOrderFields, (template) => gid("Order", ctx.state.createOrder(template as OrderSpec).id))
    case "GET orders":
      return ok({ orders: [...ctx.state.orders.values()].map(adminOrder) })
    case "GET stats":
      return ok(stats(ctx))
    case "POST webhooks/subscribe": {
      const topic = webhookTopics.find((t) => t === b.topic)
      if (!topic) return bad(`topic must be one of ${webhookTopics.join(", ")}`)
      if (typeof b.address !== "string" || !/^https?:\/\//.test(b.address)) return bad("address must be an http(s) URL")
      return ok(ctx.webhooks.subscribe(topic, b.address))
    }
    case "POST churn":
      return churnRoute(b, "perOrdersQuery", (n) => (ctx.state.churnPerOrdersQuery = n))
    case "POST bucket/drain":
      ctx.bucket.drain()
      return ok(ctx.bucket.status())
    case "GET shop":
      return ok(ctx.state.shop)
    case "POST tokens/expire":
      return ctx.appTokens === undefined
        ? bad("the app has a static token (no clientId and clientSecret)")
        : ok({ expired: ctx.appTokens.expireAll() })
    case "POST shop": {
      const settings = shopSettings(b)
      if (typeof settings === "string") return bad(settings)
      Object.assign(ctx.state.shop, settings)
      return ok(ctx.state.shop)
    }
  }
  return null
}
