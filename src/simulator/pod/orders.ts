// Orders: the draft → order lifecycle (driven by admin calls or by a clock) and
// the v3 list/read operations.
import { CREATED_METHODS, ORDER_PATH, ORDER_STATUS_PREFIX, ORDER_STATUSES, PAYMENT_STATUS_PREFIX, PAYMENT_STATUSES } from "./enums.js"
import type { CatalogStockLabel, OrderStatus } from "./enums.js"
import { listAnswer, matchesAny, matchesFilters, readListFilters } from "./listing.js"
import type { Route, RouteContext } from "./routes.js"
import type { DraftRecord, OrderRecord, SimState, TrackingRecord } from "./state.js"
import { Issues } from "./validation.js"
import { orderView } from "./views.js"
import type { SimResponse } from "./wire.js"
import { invalidArgument, notFound, success } from "./wire.js"

export type LifecycleResult<A> = { readonly ok: true; readonly value: A } | {
  readonly ok: false
  readonly status: number
  readonly message: string
}

const fail = (status: number, message: string): LifecycleResult<never> => ({ ok: false, status, message })
const TERMINAL: ReadonlyArray<OrderStatus> = ["SHIPPED", "CANCELLED"]
/** Orders whose blanks are already taken (or that will never need them): a stock change is not their concern. */
const NOT_WAITING_FOR_STOCK: ReadonlyArray<OrderStatus> = ["IN_PRODUCTION", "PACKED", "SHIPPED", "CANCELLED"]

export interface TrackingInput {
  readonly tracking_no: string
  readonly carrier: string
  readonly tracking_url: string
  readonly service?: string
}

const CARRIERS = [
  {
    carrier: "USPS",
    service: "First-Class Package",
    prefix: "9400",
    digits: 22,
    url: "https://tools.usps.com/go/TrackConfirmAction?tLabels="
  },
  { carrier: "UPS", service: "UPS Ground", prefix: "1Z", digits: 18, url: "https://www.ups.com/track?tracknum=" },
  { carrier: "FedEx", service: "FedEx Home Delivery", prefix: "", digits: 12, url: "https://www.fedex.com/fedextrack/?trknbr=" },
  { carrier: "DHL", service: "DHL eCommerce", prefix: "GM", digits: 16, url: "https://www.dhl.com/en/express/tracking.html?AWB=" }
] as const

export class OrderLifecycle {
  /** `packagesFor`: how many boxes an order shipped with generated tracking goes in (the fault board's `splitPackages`). */
  constructor(private readonly state: SimState, private readonly packagesFor: () => number = () => 1) {}

  checkout(draftId: string, paid: boolean): LifecycleResult<OrderRecord> {
    const draft = this.state.drafts.get(draftId)
    if (draft === undefined) return fail(404, `draft ${draftId} not found`)
    if (draft.status === "CHECKED_OUT" || draft.originOrderId !== null) return fail(409, `draft ${draftId} is already checked out`)
    if (draft.status === "DELETED" || draft.status === "ARCHIVED") return fail(409, `draft ${draftId} is ${draft.status.toLowerCase()}`)
    if (!draft.addressVerified) return fail(409, `the shipping address of draft ${draftId} is not verified: correct or verify it first`)
    const now = this.state.now()
    const status: OrderStatus = paid ? "AWAITING_FULFILLMENT" : "AWAITING_PAYMENT"
    const order: OrderRecord = {
      id: this.state.newId(),
      draft,
      status,
      paymentStatus: paid ? "SUCCESS" : "PENDING",
      createdAt: now,
      updatedAt: now,
      paidAt: paid ? now : null,
      shippedAt: null,
      trackings: [],
      stages: [{ id: this.state.newId(), name: status, startedAt: now, completedAt: null }],
      heldFrom: null,
      cancelReason: null
    }
    if (!draft.isApproved) {
      draft.isApproved = true
      draft.approvedAt = now
    }
    draft.status = "CHECKED_OUT"
    draft.originOrderId = order.id
    draft.updatedAt = now
    this.state.orders.set(order.id, order)
    if (draft.address !== null) this.state.emit({ topic: "TOPIC_SHIPPING_ADDRESS_VERIFIED", draft, order })
    return { ok: true, value: order }
  }

  /** One step along AWAITING_PAYMENT → … → SHIPPED, back from ON_HOLD, or straight to `to`. */
  advance(orderId: string, to: OrderStatus | undefined): LifecycleResult<OrderRecord> {
    const order = this.state.orders.get(orderId)
    if (order === undefined) return fail(404, `order ${orderId} not found`)
    let next = to
    if (next === undefined) {
      if (TERMINAL.includes(order.status) || order.status === "PAYMENT_FAILED") {
        return fail(409, `order ${orderId} is ${order.status} and cannot advance`)
      }
      if (order.status === "ON_HOLD") next = order.heldFrom ?? "AWAITING_FULFILLMENT"
      else next = ORDER_PATH[ORDER_PATH.indexOf(order.status) + 1] ?? "SHIPPED"
    }
    if (order.status === "CANCELLED" && next !== "CANCELLED") return fail(409, `order ${orderId} is cancelled`)
    switch (next) {
      case "SHIPPED":
        return this.ship(orderId, [])
      case "CANCELLED":
        return this.cancel(orderId)
      case "ON_HOLD":
        return this.hold(orderId)
      default:
        this.moveTo(order, next)
        return { ok: true, value: order }
    }
  }

  /**
   * SHIPPED with these trackings; a second call adds packages. Without trackings: `packages` boxes
   * with generated numbers now, or, on the first shipment, one box now and the rest of a split
   * shipment (the fault board's `splitPackages`) one by one at later ticks or ship-alls.
   */
  ship(orderId: string, trackings: ReadonlyArray<TrackingInput>, packages?: number): LifecycleResult<OrderRecord> {
    const order = this.state.orders.get(orderId)
    if (order === undefined) return fail(404, `order ${orderId} not found`)
    if (order.status === "CANCELLED") return fail(409, `order ${orderId} is cancelled`)
    const now = this.state.now()
    const firstBox = order.status !== "SHIPPED" || order.trackings.length === 0
    if (trackings.length === 0 && packages === undefined && firstBox) order.pendingPackages = Math.max(0, this.packagesFor() - 1)
    const given = trackings.length > 0
      ? trackings
      : packages !== undefined
      ? Array.from({ length: packages }, () => this.generateTracking())
      : firstBox
      ? [this.generateTracking()]
      : []
    const added: Array<TrackingRecord> = []
    for (const input of given) {
      const tracking: TrackingRecord = {
        trackingNo: input.tracking_no,
        carrier: input.carrier,
        service: input.service ?? "",
        url: input.tracking_url,
        type: order.trackings.some((t) => t.type === "TRACKING_TYPE_PRIMARY") ? "TRACKING_TYPE_SECONDARY" : "TRACKING_TYPE_PRIMARY",
        updatedAt: now
      }
      order.trackings.push(tracking)
      added.push(tracking)
    }
    const firstTime = order.status !== "SHIPPED"
    if (firstTime) {
      if (order.paymentStatus !== "SUCCESS") {
        order.paymentStatus = "SUCCESS"
        order.paidAt = now
      }
      order.shippedAt = now
      this.moveTo(order, "SHIPPED")
    } else {
      order.updatedAt = now
    }
    // One tracking event per package; the completed event carries the primary package.
    for (const tracking of added) this.state.emit({ topic: "TOPIC_TRACKING_ORDER_UPDATED", draft: order.draft, order, tracking })
    const primary = order.trackings.find((t) => t.type === "TRACKING_TYPE_PRIMARY")
    if (firstTime) {
      this.state.emit({
        topic: "TOPIC_ORDER_COMPLETED",
        draft: order.draft,
        order,
        ...(primary === undefined ? {} : { tracking: primary })
      })
    }
    return { ok: true, value: order }
  }

  cancel(orderId: string, reason = "Cancelled by the simulator"): LifecycleResult<OrderRecord> {
    const order = this.state.orders.get(orderId)
    if (order === undefined) return fail(404, `order ${orderId} not found`)
    if (order.status === "SHIPPED") return fail(409, `order ${orderId} has shipped and cannot be cancelled`)
    if (order.status === "CANCELLED") return { ok: true, value: order }
    order.cancelReason = reason
    this.moveTo(order, "CANCELLED")
    this.state.emit({ topic: "TOPIC_ORDER_CANCELLED", draft: order.draft, order })
    return { ok: true, value: order }
  }

  hold(orderId: string): LifecycleResult<OrderRecord> {
    const order = this.state.orders.get(orderId)
    if (order === undefined) return fail(404, `order ${orderId} not found`)
    if (TERMINAL.includes(order.status)) return fail(409, `order ${orderId} is ${order.status} and cannot be held`)
    if (order.status === "ON_HOLD") return { ok: true, value: order }
    order.heldFrom = order.status
    this.moveTo(order, "ON_HOLD")
    this.state.emit({ topic: "TOPIC_ORDER_ON_HOLD", draft: order.draft, order })
    return { ok: true, value: order }
  }

  /**
   * The service (re)checks the shipping address of a draft (named by its id or by its order's):
   * an unverified draft cannot be checked out; either way a shipping address event is sent.
   */
  verifyAddress(id: string, verified: boolean): LifecycleResult<DraftRecord> {
    const draft = this.state.drafts.get(id) ?? this.state.orders.get(id)?.draft
    if (draft === undefined) return fail(404, `no draft or order ${id}`)
    if (draft.address === null) return fail(409, `draft ${draft.id} ships on a pre-purchased label and has no address to verify`)
    draft.addressVerified = verified
    draft.updatedAt = this.state.now()
    const order = draft.originOrderId === null ? undefined : this.state.orders.get(draft.originOrderId)
    this.state.emit({
      topic: verified ? "TOPIC_SHIPPING_ADDRESS_VERIFIED" : "TOPIC_SHIPPING_ADDRESS_UNVERIFIED",
      draft,
      ...(order === undefined ? {} : { order })
    })
    return { ok: true, value: draft }
  }

  /**
   * A variant's stock changes. Going out of stock sends a product_out_of_stock event for every
   * draft and order that carries the variant and is not yet in production.
   */
  setStock(variantId: string, label: CatalogStockLabel): LifecycleResult<ReadonlyArray<DraftRecord>> {
    const variant = this.state.catalog.variantById.get(variantId)
    if (variant === undefined) return fail(404, `no variant ${variantId}`)
    this.state.setStockLabel(variant, label)
    if (label !== "OUT_OF_STOCK") return { ok: true, value: [] }
    const affected: Array<DraftRecord> = []
    for (const draft of this.state.drafts.values()) {
      if (!draft.lineItems.some((line) => line.variant === variant)) continue
      const order = draft.originOrderId === null ? undefined : this.state.orders.get(draft.originOrderId)
      const open = order === undefined
        ? draft.status === "DRAFT" || draft.status === "AWAITING_CHECKOUT"
        : !NOT_WAITING_FOR_STOCK.includes(order.status)
      if (!open) continue
      affected.push(draft)
      this.state.emit({ topic: "TOPIC_PRODUCT_OUT_OF_STOCK", draft, variant, ...(order === undefined ? {} : { order }) })
    }
    return { ok: true, value: affected }
  }

  /** The next box of a split shipment, if one is still to ship; true when one shipped. */
  shipNextPackage(order: OrderRecord): boolean {
    if (order.status !== "SHIPPED" || (order.pendingPackages ?? 0) <= 0) return false
    order.pendingPackages = (order.pendingPackages ?? 1) - 1
    return this.ship(order.id, [this.generateTracking()]).ok
  }

  /** One tick of the clock: approved drafts are checked out, open orders move one step, split shipments ship a box more. */
  tick(): void {
    for (const order of [...this.state.orders.values()]) {
      if (this.shipNextPackage(order)) continue
      if (ORDER_PATH.includes(order.status) && order.status !== "SHIPPED") this.advance(order.id, undefined)
    }
    for (const draft of [...this.state.drafts.values()]) {
      if (draft.isApproved && draft.status === "AWAITING_CHECKOUT") this.checkout(draft.id, false)
    }
  }

  private moveTo(order: OrderRecord, status: OrderStatus): void {
    const now = this.state.now()
    for (const stage of order.stages) if (stage.completedAt === null) stage.completedAt = now
    order.stages.push({
      id: this.state.newId(),
      name: status,
      startedAt: now,
      completedAt: status === "SHIPPED" || status === "CANCELLED" ? now : null
    })
    if (order.status === "AWAITING_PAYMENT" && status !== "PAYMENT_FAILED" && status !== "CANCELLED" && status !== "ON_HOLD") {
      order.paymentStatus = "SUCCESS"
      order.paidAt = now
    }
    if (status === "PAYMENT_FAILED") order.paymentStatus = "FAILED"
    if (status !== "ON_HOLD") order.heldFrom = null
    order.status = status
    order.updatedAt = now
  }

  private generateTracking(): TrackingInput {
    const carrier = CARRIERS[this.state.randomInt(CARRIERS.length)] ?? CARRIERS[0]
    let digits = ""
    while (digits.length < carrier.digits - carrier.prefix.length) digits += String(this.state.randomInt(10))
    const trackingNo = carrier.prefix + digits
    return { tracking_no: trackingNo, carrier: carrier.carrier, tracking_url: carrier.url + trackingNo, service: carrier.service }
  }
}

const listHandler = (state: SimState) => (context: RouteContext): SimResponse => {
  const issues = new Issues()
  const filters = readListFilters(issues, context.query, CREATED_METHODS, ORDER_STATUSES.map((s) => ORDER_STATUS_PREFIX + s), {
    "filter.payment_status": PAYMENT_STATUSES.map((s) => PAYMENT_STATUS_PREFIX + s)
  })
  if (!issues.empty) return invalidArgument(issues.list)
  const payments = filters.extra["filter.payment_status"]
  const matching = [...state.orders.values()].filter((o) =>
    matchesAny(payments, PAYMENT_STATUS_PREFIX + o.paymentStatus) &&
    matchesFilters(filters, {
      createdAt: o.createdAt,
      createdMethod: o.draft.createdMethod,
      id: o.id,
      status: ORDER_STATUS_PREFIX + o.status,
      referenceId: o.draft.referenceId
    })
  )
  return listAnswer(matching, filters, state.seed, (o) => orderView(state.catalog, state.seed, o, true))
}

const getHandler = (state: SimState) => (context: RouteContext): SimResponse => {
  const id = context.params["order_id"] ?? ""
  const order = state.orders.get(id)
  return order === undefined ? notFound("order", "order_id", id) : success(orderView(state.catalog, state.seed, order, false))
}

export const orderRoutes = (state: SimState): ReadonlyArray<Route> => [
  { method: "GET", pattern: "/api/v3/orders", auth: "v3", handle: listHandler(state) },
  { method: "GET", pattern: "/api/v3/orders/:order_id", auth: "v3", handle: getHandler(state) }
]
