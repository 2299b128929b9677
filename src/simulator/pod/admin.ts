// /__sim/ admin endpoints: drive the lifecycle, set faults and the rate limit,
// read statistics and the webhook delivery log. No auth, not rate limited, not counted.
import { CATALOG_STOCK_LABELS, CATALOG_STOCK_PREFIX, ORDER_STATUS_PREFIX, ORDER_STATUSES, parseSuffix } from "./enums.js"
import type { FaultBoard } from "./faults.js"
import type { RateLimitConfig } from "./limiter.js"
import type { LifecycleResult, OrderLifecycle, TrackingInput } from "./orders.js"
import type { Route, RouteContext } from "./routes.js"
import type { OrderRecord, SimState } from "./state.js"
import type { SimStats } from "./stats.js"
import type { WebhookDelivery } from "./webhookDelivery.js"
import type { Json, SimResponse } from "./wire.js"
import { isRecord } from "./wire.js"

export interface AdminTargets {
  readonly state: SimState
  readonly lifecycle: OrderLifecycle
  readonly faults: FaultBoard
  readonly stats: SimStats
  readonly delivery: WebhookDelivery
  readonly apiRouteKeys: () => ReadonlyArray<string>
  readonly rateLimit: () => RateLimitConfig | false
  readonly setRateLimit: (config: RateLimitConfig | false) => void
  readonly blockedUntil: () => number | null
  readonly resetAll: () => void
}

const json = (status: number, body: Json): SimResponse => ({ status, body })
const bad = (message: string, status = 400): SimResponse => json(status, { error: message })
const bodyOf = (context: RouteContext): Readonly<Record<string, unknown>> => (isRecord(context.body) ? context.body : {})

const orderResult = (result: LifecycleResult<OrderRecord>): SimResponse =>
  result.ok
    ? json(200, {
      order_id: result.value.id,
      order_status: ORDER_STATUS_PREFIX + result.value.status,
      trackings: result.value.trackings.map((t) => t.trackingNo)
    })
    : bad(result.message, result.status)

const readTrackings = (value: unknown): ReadonlyArray<TrackingInput> | string => {
  if (value === undefined) return []
  if (!Array.isArray(value)) return "trackings must be an array"
  const out: Array<TrackingInput> = []
  for (const item of value) {
    if (!isRecord(item) || typeof item["tracking_no"] !== "string" || item["tracking_no"] === "") return "each tracking needs tracking_no"
    const carrier = typeof item["carrier"] === "string" ? item["carrier"] : "USPS"
    out.push({
      tracking_no: item["tracking_no"],
      carrier,
      tracking_url: typeof item["tracking_url"] === "string" ? item["tracking_url"] : `https://track.pod-sim.test/${item["tracking_no"]}`,
      ...(typeof item["service"] === "string" ? { service: item["service"] } : {})
    })
  }
  return out
}

const readRateLimit = (body: Readonly<Record<string, unknown>>): RateLimitConfig | false | string => {
  if (body["enabled"] === false) return false
  const { requests, windowSeconds, blockSeconds } = body
  if (typeof requests !== "number" || !Number.isInteger(requests) || requests < 1) return "requests must be a positive integer"
  if (typeof windowSeconds !== "number" || windowSeconds <= 0) return "windowSeconds must be positive"
  if (typeof blockSeconds !== "number" || blockSeconds < 0) return "blockSeconds must be zero or more"
  return { requests, windowSeconds, blockSeconds }
}

export const adminRoutes = (t: AdminTargets): ReadonlyArray<Route> => {
  const route = (method: Route["method"], pattern: string, handle: Route["handle"]): Route => ({ method, pattern, auth: "admin", handle })
  return [
    route("POST", "/__sim/reset", () => {
      t.resetAll()
      return json(200, { ok: true })
    }),
    route("GET", "/__sim/stats", () => json(200, { ...t.stats.snapshot(t.state, t.blockedUntil()), webhooksQueued: t.delivery.queued() })),
    route("GET", "/__sim/faults", () => json(200, { faults: t.faults.list().map((f) => ({ ...f, latencyMs: [...f.latencyMs] })) })),
    route("POST", "/__sim/faults", (context) => {
      const added = t.faults.add(context.body, t.apiRouteKeys())
      return "id" in added
        ? json(200, { id: added.id })
        : json(400, { error: "invalid fault", details: added.issues.map((i) => ({ ...i })) })
    }),
    route("DELETE", "/__sim/faults", () => {
      t.faults.clear()
      return json(200, { ok: true })
    }),
    route(
      "GET",
      "/__sim/rate-limit",
      () => json(200, t.rateLimit() === false ? { enabled: false } : { enabled: true, ...(t.rateLimit() as RateLimitConfig) })
    ),
    route("POST", "/__sim/rate-limit", (context) => {
      const config = readRateLimit(bodyOf(context))
      if (typeof config === "string") return bad(config)
      t.setRateLimit(config)
      return json(200, config === false ? { enabled: false } : { enabled: true, ...config })
    }),
    route("POST", "/__sim/drafts/:order_id/checkout", (context) => {
      const result = t.lifecycle.checkout(context.params["order_id"] ?? "", bodyOf(context)["paid"] === true)
      return orderResult(result)
    }),
    // The seller deletes or archives a draft in the service's dashboard: `{ status: "DELETED" | "ARCHIVED" }`
    // (not one that was checked out). Listed with that status from then on; it never checks out.
    route("POST", "/__sim/drafts/:order_id/status", (context) => {
      const draft = t.state.drafts.get(context.params["order_id"] ?? "")
      if (draft === undefined) return bad(`draft ${context.params["order_id"] ?? ""} not found`, 404)
      const given = bodyOf(context)["status"]
      const status = typeof given === "string" ? given.replace(/^VENDOR_ORDER_DRAFT_STATUS_/, "") : undefined
      if (status !== "DELETED" && status !== "ARCHIVED") return bad("status must be DELETED or ARCHIVED")
      if (draft.originOrderId !== null) return bad(`draft ${draft.id} is already checked out`, 409)
      draft.status = status
      draft.updatedAt = t.state.now()
      return json(200, { order_id: draft.id, status: `VENDOR_ORDER_DRAFT_STATUS_${status}` })
    }),
    route("POST", "/__sim/orders/:order_id/advance", (context) => {
      const to = bodyOf(context)["to"]
      const target = typeof to === "string" ? parseSuffix(ORDER_STATUSES, ORDER_STATUS_PREFIX, to) : undefined
      if (to !== undefined && target === undefined) return bad(`unknown order status ${String(to)}`)
      return orderResult(t.lifecycle.advance(context.params["order_id"] ?? "", target))
    }),
    route("POST", "/__sim/orders/:order_id/ship", (context) => {
      // `{ trackings: [...] }` ships those boxes; `{ packages: N }` ships N boxes with generated numbers.
      const body = bodyOf(context)
      const trackings = readTrackings(body["trackings"])
      if (typeof trackings === "string") return bad(trackings)
      const packages = body["packages"]
      if (packages !== undefined && (typeof packages !== "number" || !Number.isInteger(packages) || packages < 1 || packages > 20)) {
        return bad("packages must be a whole number from 1 to 20")
      }
      return orderResult(t.lifecycle.ship(context.params["order_id"] ?? "", trackings, packages))
    }),
    route("POST", "/__sim/orders/:order_id/cancel", (context) => {
      const reason = bodyOf(context)["reason"]
      return orderResult(t.lifecycle.cancel(context.params["order_id"] ?? "", typeof reason === "string" ? reason : undefined))
    }),
    route("POST", "/__sim/orders/:order_id/hold", (context) => orderResult(t.lifecycle.hold(context.params["order_id"] ?? ""))),
    // The service (re)checks a draft's address (the draft's id or its order's): `{ verified: false }` makes it
    // unverifiable (shipping_address_unverified; checkout refused), `{ verified: true }` verifies it.
    route("POST", "/__sim/drafts/:order_id/address-verification", (context) => {
      const verified = bodyOf(context)["verified"]
      if (typeof verified !== "boolean") return bad("verified must be true or false")
      const result = t.lifecycle.verifyAddress(context.params["order_id"] ?? "", verified)
      return result.ok
        ? json(200, {
          order_id: result.value.id,
          origin_order_id: result.value.originOrderId ?? "",
          address_verified: result.value.addressVerified
        })
        : bad(result.message, result.status)
    }),
    // A variant's stock changes: `{ label: "OUT_OF_STOCK" }` sends product_out_of_stock for each open draft and order carrying it.
    route("POST", "/__sim/variants/:variant_id/stock", (context) => {
      const given = bodyOf(context)["label"]
      const label = typeof given === "string" ? parseSuffix(CATALOG_STOCK_LABELS, CATALOG_STOCK_PREFIX, given) : undefined
      if (label === undefined) return bad(`label must be one of ${CATALOG_STOCK_LABELS.join(", ")}`)
      const result = t.lifecycle.setStock(context.params["variant_id"] ?? "", label)
      return result.ok
        ? json(200, {
          variant_id: context.params["variant_id"] ?? "",
          stock_label: CATALOG_STOCK_PREFIX + label,
          affected: result.value.map((d) => ({ draft_id: d.id, order_id: d.originOrderId ?? "" }))
        })
        : bad(result.message, result.status)
    }),
    route("POST", "/__sim/checkout-all", (context) => {
      const paid = bodyOf(context)["paid"] === true
      const ids: Array<string> = []
      for (const draft of [...t.state.drafts.values()]) {
        if (draft.originOrderId !== null) continue
        const result = t.lifecycle.checkout(draft.id, paid)
        if (result.ok) ids.push(result.value.id)
      }
      return json(200, { order_ids: ids })
    }),
    route("POST", "/__sim/ship-all", () => {
      const ids: Array<string> = []
      for (const order of [...t.state.orders.values()]) {
        if (t.lifecycle.shipNextPackage(order)) ids.push(order.id)
        if (order.status === "SHIPPED" || order.status === "CANCELLED") continue
        const result = t.lifecycle.ship(order.id, [])
        if (result.ok) ids.push(result.value.id)
      }
      return json(200, { order_ids: ids })
    }),
    route("POST", "/__sim/tick", () => {
      t.lifecycle.tick()
      return json(200, { ok: true })
    }),
    route("POST", "/__sim/webhooks/deliver", async (context) => {
      const body = bodyOf(context)
      const duplicates = typeof body["duplicates"] === "number" && body["duplicates"] >= 0 ? Math.floor(body["duplicates"]) : 0
      const sent = await t.delivery.flush(duplicates, body["reorder"] === true)
      return json(200, { sent })
    }),
    route("POST", "/__sim/webhooks/auto", (context) => {
      t.delivery.autoDeliver = bodyOf(context)["enabled"] !== false
      return json(200, { enabled: t.delivery.autoDeliver })
    }),
    route("GET", "/__sim/webhooks/deliveries", () => json(200, t.delivery.attempts().map((a) => ({ ...a })))),
    route("GET", "/__sim/webhooks/queue", () => json(200, { queued: t.delivery.queued(), autoDeliver: t.delivery.autoDeliver }))
  ]
}
