import { placedAtProblem } from "../kit/history.js"
import type { EtsyAuth } from "./auth.js"
import {
  adminPathParts,
  attempt,
  bad,
  bulkCreate,
  churnRoute,
  isRecordPath,
  ok,
  recordRoute,
  routeAdmin,
  webhookStats
} from "../kit/admin.js"
import type { AdminAnswer, RecordRoutes } from "../kit/admin.js"
import { parseFaultRule, type Faults } from "./faults.js"
import type { ReceiptSpec } from "./fixtures.js"
import { receiptStatuses, type StoredReceipt } from "./model.js"
import type { Quota } from "./quota.js"
import type { EtsyShop, ReceiptEvent, ReceiptPatch } from "./store.js"
import { receiptView } from "./views.js"
import type { AppParts, SimShops, Switches } from "./shops.js"
import { envelopeEventType, webhookEvents, type Webhooks } from "./webhooks.js"

/**
 * The simulator's own admin API under `/__sim/` (no auth, no quota). `orders` is an alias of
 * `receipts` in every route. `/__sim/shops/<shop_id>/…` is the same API for another shop of the
 * simulator (shops.ts); without that prefix, the first shop. Reset, the clock, faults, webhooks and
 * settings are the app's, whichever prefix.
 */

export type { Switches } from "./shops.js"

export interface AdminContext {
  readonly shop: EtsyShop
  readonly auth: EtsyAuth
  readonly quota: Quota
  readonly faults: Faults
  readonly webhooks: Webhooks
  readonly switches: Switches
  readonly defaultSwitches: Switches
  readonly shops: SimShops
  readonly appQuota: Quota
}

export type { AdminAnswer } from "../kit/admin.js"

/**
 * The receipt in Etsy's shape, plain text (no HTML entities) and with the buyer's email; and what only
 * the admin sees: the shipping emails Etsy sent the buyer (with their tracking links), and a shipment
 * refusal set on it.
 */
export const adminReceipt = (r: StoredReceipt) => ({
  ...receiptView(r, { htmlEntities: false, buyerEmailVisible: true }),
  buyer_emails: r.buyerEmails,
  shipment_refusal: r.shipmentRefusal
})

const invalidSpec = (b: Record<string, unknown>): string | null => {
  const placed = placedAtProblem(b.placedAt, Date.now() + 86_400_000)
  if (placed !== null) return placed
  if (b.status !== undefined && !receiptStatuses.includes(b.status as never)) return `status must be one of ${receiptStatuses.join(", ")}`
  if (b.country_iso !== undefined && b.country_iso !== null && !/^[A-Z]{2}$/.test(String(b.country_iso))) {
    return "country_iso must be two upper-case letters or null"
  }
  if (b.currency !== undefined && !/^[A-Z]{3}$/.test(String(b.currency))) return "currency must be an ISO 4217 code"
  if (b.transactions !== undefined && !Array.isArray(b.transactions)) return "transactions must be an array"
  return null
}

const stats = (ctx: AdminContext) => ({
  ...ctx.shop.stats,
  receipts: ctx.shop.receipts.size,
  quota: ctx.quota.status(),
  appQuota: ctx.appQuota.status(),
  ...webhookStats(ctx.webhooks)
})

const receiptRoutes = (ctx: AdminContext): RecordRoutes<StoredReceipt> => ({
  noun: "receipt",
  find: (id) => ctx.shop.find(Number(id)),
  view: adminReceipt,
  invalid: invalidSpec,
  edit: (receipt, b) => attempt(() => ok(adminReceipt(ctx.shop.editReceipt(receipt, b as ReceiptPatch)))),
  act: (action, receipt, b) => {
    switch (action) {
      case "cancel":
        return ok(adminReceipt(ctx.shop.cancel(receipt, typeof b.reason === "string" ? b.reason : undefined)))
      case "pay":
        return ok(adminReceipt(ctx.shop.pay(receipt)))
      case "refund":
        return ok(adminReceipt(ctx.shop.refund(receipt, typeof b.amount_cents === "number" ? b.amount_cents : null)))
      case "ship": {
        // The seller ships in Etsy's own UI (not through the API): same effects, buyer emailed.
        const tracking = typeof b.tracking_code === "string" && typeof b.carrier_name === "string"
          ? { tracking_code: b.tracking_code, carrier_name: b.carrier_name } :
          null
        ctx.shop.ship(receipt, tracking)
        return ok(adminReceipt(receipt))
      }
      case "refuse-shipments":
        // createReceiptShipment on this receipt answers 403 from now on (null lifts it).
        receipt.shipmentRefusal = b.error === null
          ? null
          : typeof b.error === "string"
          ? b.error
          : `You do not have permission to submit tracking for receipt ${receipt.receipt_id}`
        return ok(adminReceipt(receipt))
    }
    return null
  }
})

const quotaSettings = (ctx: AdminContext, b: Record<string, unknown>): AdminAnswer => {
  const s = ctx.quota.settings
  if (typeof b.perSecond === "number" && b.perSecond >= 1) s.perSecond = Math.floor(b.perSecond)
  if (typeof b.perDay === "number" && b.perDay >= 1) s.perDay = Math.floor(b.perDay)
  if (typeof b.limitHeadersOn429 === "boolean") s.limitHeadersOn429 = b.limitHeadersOn429
  if (typeof b.retryAfterOn429 === "boolean") s.retryAfterOn429 = b.retryAfterOn429
  if (typeof b.usedToday === "number") ctx.quota.setUsedToday(Math.floor(b.usedToday))
  return ok({ ...s, ...ctx.quota.status() })
}

/** The admin context of the shop a path names (`/__sim/shops/<id>/…`, else the first), and the path without the prefix. */
export const adminTarget = (
  app: AppParts,
  shops: SimShops,
  path: string
): { readonly ctx: AdminContext; readonly path: string } | undefined => {
  const prefixed = /^\/__sim\/shops\/(\d+)(\/.*)?$/.exec(path)
  const target = prefixed === null ? shops.primary : shops.byShopId(Number(prefixed[1]))
  if (target === undefined) return undefined
  return {
    ctx: { ...app, shop: target.shop, auth: target.auth, quota: target.quota, shops },
    path: prefixed === null ? path : `/__sim${prefixed[2] ?? "/"}`
  }
}

export const handleAdmin = (ctx: AdminContext, method: string, path: string, body: unknown): Promise<AdminAnswer> =>
  routeAdmin(
    {
      reset: () => {
        ctx.shops.reset()
        ctx.appQuota.reset()
        Object.assign(ctx.switches, ctx.defaultSwitches)
      },
      faults: ctx.faults,
      parseFaultRule,
      webhooks: ctx.webhooks,
      moreWebhookSettings: (next, b) => {
        if (typeof b.previousSecret === "string" || b.previousSecret === null) next.previousSecret = b.previousSecret
        if (b.payload === "envelope" || b.payload === "thin") next.payload = b.payload
      },
      clock: ctx.shops.clock,
      clockExtras: () => ({ nowSeconds: ctx.shop.nowSeconds() })
    },
    {
      segments: (p) => adminPathParts(p).map((part) => (part === "orders" ? "receipts" : part)),
      fixed: (route, b) => ownRoute(ctx, route, b),
      byPath: (m, parts, b) => (isRecordPath(parts, "receipts") ? recordRoute(receiptRoutes(ctx), m, parts[1], parts[2], b) : null)
    }
  )(method, path, body)

const ownRoute = (ctx: AdminContext, route: string, b: Record<string, unknown>): AdminAnswer | null => {
  switch (route) {
    case "POST receipts": {
      const invalid = invalidSpec(b)
      return invalid ? bad(invalid) : ok(adminReceipt(ctx.shop.createReceipt(b as ReceiptSpec)))
    }
    case "POST receipts/bulk":
      return bulkCreate(b, invalidSpec, (template) => ctx.shop.createReceipt(template as ReceiptSpec).receipt_id)
    case "GET receipts":
      return ok({ receipts: [...ctx.shop.receipts.values()].map(adminReceipt) })
    case "GET stats":
      return ok(stats(ctx))
    case "POST webhooks/subscribe": {
      const url = b.url ?? b.address
      if (typeof url !== "string" || !/^https?:\/\//.test(url)) return bad("url must be an http(s) URL")
      // Either spelling: the envelope's (ORDER_PAID) or the flat form's (order.paid).
      const named = Array.isArray(b.events)
        ? b.events.map((e) => (typeof e === "string" ? e.toLowerCase().replace("_", ".") : e))
        : b.events
      const events = named ?? webhookEvents
      if (!Array.isArray(events) || !events.every((e) => webhookEvents.includes(e as ReceiptEvent))) {
        return bad(`events must be a list of ${webhookEvents.join(", ")} (or ${webhookEvents.map(envelopeEventType).join(", ")})`)
      }
      return ok(ctx.webhooks.subscribe(url, events as ReceiptEvent[]))
    }
    case "POST churn":
      return churnRoute(b, "perListQuery", (n) => (ctx.shop.churnPerListQuery = n))
    case "POST quota":
      return quotaSettings(ctx, b)
    case "POST authorize":
      return ok({ refresh_token: ctx.auth.authorizeAgain() })
    case "POST tokens/expire":
      return ok({ expired: ctx.auth.expireAccessTokens() })
    case "POST settings": {
      for (const key of ["htmlEntities", "buyerEmailVisible", "acceptJson", "acceptForm"] as const) {
        if (typeof b[key] === "boolean") ctx.switches[key] = b[key]
      }
      return ok(ctx.switches)
    }
  }
  return null
}
