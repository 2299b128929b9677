import { placedAtMs } from "../kit/history.js"
import { StoreEvents, type RequestStats, type StoreListener } from "../kit/stats.js"
import type { ShopPlan } from "./access.js"
import { generateOrder, seededRandom, type OrderSpec, type Random } from "./fixtures.js"
import { fulfilledQuantity, parseGid } from "./model.js"
import type { Address, CancelReason, FinancialStatus, StoredFulfillmentOrder, StoredOrder } from "./model.js"

/** The shop's state, its clock, and the admin operations on orders (create, edit, cancel, hold). */

export type OrderTopic = "orders/create" | "orders/updated" | "orders/cancelled"

/** A shop's standing: a frozen shop (its bill unpaid) answers 402, a locked one 423, to every API request. */
export const shopStandings = ["active", "frozen", "locked"] as const
export type ShopStanding = (typeof shopStandings)[number]

/** What the shop is, beyond its orders (`POST /__sim/shop` changes it; reset restores the options'). */
export interface ShopSettings {
  plan: ShopPlan
  standing: ShopStanding
  /** The scopes of the simulator's static access token. */
  scopes: ReadonlyArray<string>
  /** The shop currency: every order's money is in it (an order may name another only when a test says so). */
  currencyCode: string
}

export interface ShopStats extends RequestStats {
  throttled: number
  requestsWhileShort: number
  costSpent: number
  fulfillmentsByOrder: Record<string, number>
  notificationsByOrder: Record<string, number>
  mutations: Record<string, number>
  /** Requests by operation name (`PodsyncOrdersPage`, …; "(anonymous)" without one). */
  operations: Record<string, number>
  /** Client credentials grants answered with a token, and refused. */
  tokenGrants: number
  tokenRefusals: number
  /** Admin API requests answered 401 (unknown or expired token). */
  unauthorized: number
}

export interface OrderPatch {
  email?: string | null
  phone?: string | null
  note?: string | null
  tags?: string[] | string
  financialStatus?: FinancialStatus
  shippingAddress?: Partial<Address> | null
  customAttributes?: Array<{ key: string; value: string | null }>
  lineItems?: Array<{ id: string | number; currentQuantity?: number; customAttributes?: Array<{ key: string; value: string | null }> }>
}

const emptyStats = (): ShopStats => ({
  requests: 0,
  throttled: 0,
  requestsWhileShort: 0,
  costSpent: 0,
  fulfillmentsByOrder: {},
  notificationsByOrder: {},
  mutations: {},
  operations: {},
  faultsInjected: {},
  tokenGrants: 0,
  tokenRefusals: 0,
  unauthorized: 0
})

const firstIds: Record<string, number> = {
  Order: 5610000001,
  LineItem: 13980000001,
  FulfillmentOrder: 6720000001,
  FulfillmentOrderLineItem: 14310000001,
  Fulfillment: 5090000001,
  FulfillmentLineItem: 11200000001,
  FulfillmentHold: 3010000001,
  Metafield: 26700000001,
  Customer: 7450000001
}

export const splitTags = (tags: string[] | string): string[] =>
  (Array.isArray(tags) ? tags : [tags]).flatMap((t) => t.split(",")).map((t) => t.trim()).filter((t) => t.length > 0)

export class ShopState {
  orders = new Map<number, StoredOrder>()
  stats: ShopStats = emptyStats()
  private counters = new Map<string, number>()
  private nextOrderNumber = 1001
  private clockOffsetMs = 0
  private random: Random
  private readonly events = new StoreEvents<OrderTopic, StoredOrder>()
  /** "Mutate during walk": orders edited after each answered `orders` query (see `churn`). */
  churnPerOrdersQuery = 0
  shop: ShopSettings

  constructor(
    private readonly seed: number,
    private readonly wallClock: () => number = Date.now,
    private readonly initialShop: ShopSettings = { plan: "shopify", standing: "active", scopes: [], currencyCode: "USD" }
  ) {
    this.random = seededRandom(seed)
    this.shop = { ...initialShop }
  }

  reset(): void {
    this.shop = { ...this.initialShop }
    this.orders = new Map()
    this.stats = emptyStats()
    this.counters = new Map()
    this.nextOrderNumber = 1001
    this.clockOffsetMs = 0
    this.random = seededRandom(this.seed)
    this.churnPerOrdersQuery = 0
  }

  /** Edits `count` orders picked at random (a merchant at work while a client pages through orders). */
  churn(count: number): void {
    const open = [...this.orders.values()].filter((o) => o.cancelledAt === null)
    for (let i = 0; i < count && open.length > 0; i++) {
      const [order] = open.splice(Math.floor(this.random() * open.length), 1)
      if (order) this.editOrder(order, { note: `Edited while being paged (${order.name})` })
    }
  }

  /** The simulator's notion of now (wall clock plus any `/__sim/clock/advance`), in ms. */
  readonly now = (): number => this.wallClock() + this.clockOffsetMs
  private nowSeconds = (): number => Math.floor(this.now() / 1000) * 1000
  advanceClock(seconds: number): void {
    this.clockOffsetMs += seconds * 1000
  }
  randomValue(): number {
    return this.random()
  }

  nextId(type: string): number {
    const id = this.counters.get(type) ?? firstIds[type] ?? 1000000001
    this.counters.set(type, id + 1)
    return id
  }

  onOrderEvent(listener: StoreListener<OrderTopic, StoredOrder>): void {
    this.events.subscribe(listener)
  }

  /**
   * Marks an order changed: `updatedAt` moves to now, and at least one second past its previous value so
   * that every version of an order has a distinct `updatedAt` (Shopify's DateTime has second precision).
   */
  touch(order: StoredOrder): void {
    order.updatedAt = Math.max(this.nowSeconds(), order.updatedAt + 1000)
    this.events.emit("orders/updated", order)
  }

  createOrder(spec: OrderSpec = {}): StoredOrder {
    const generated = generateOrder(this.random)
    const id = this.nextId("Order")
    const number = this.nextOrderNumber++
    const createdAt = placedAtMs(spec.placedAt, this.nowSeconds())
    const address: Address | null = spec.shippingAddress === null ? null : { ...generated.shippingAddress, ...spec.shippingAddress }
    const lineItems = (spec.lineItems ?? generated.lineItems).map((l, index) => {
      const base = generated.lineItems[index % generated.lineItems.length]!
      const quantity = l.quantity ?? base.quantity
      return {
        id: this.nextId("LineItem"),
        sku: l.sku === undefined ? base.sku : l.sku,
        title: l.title ?? base.title,
        variantTitle: l.variantTitle === undefined ? base.variantTitle : l.variantTitle,
        vendor: "Acme Prints",
        quantity,
        currentQuantity: quantity,
        price: l.price ?? base.price,
        variantId: l.variantId === undefined ? base.variantId : l.variantId,
        productId: l.productId === undefined ? base.productId : l.productId,
        requiresShipping: l.requiresShipping ?? true,
        customAttributes: l.customAttributes ?? base.customAttributes
      }
    })
    const order: StoredOrder = {
      id,
      number,
      name: `#${number}`,
      email: spec.email === undefined ? generated.email : spec.email,
      phone: spec.phone === undefined ? generated.phone : spec.phone,
      createdAt,
      updatedAt: createdAt,
      processedAt: createdAt,
      cancelledAt: null,
      cancelReason: null,
      closedAt: null,
      financialStatus: spec.financialStatus ?? generated.financialStatus,
      currencyCode: spec.currencyCode ?? this.shop.currencyCode,
      note: spec.note === undefined ? generated.note : spec.note,
      tags: spec.tags === undefined ? [] : splitTags(spec.tags),
      customAttributes: spec.customAttributes ?? [],
      customerId: this.nextId("Customer"),
      shippingAddress: address,
      billingAddress: address,
      shippingLine: spec.shippingLine === null ? null : { ...generated.shippingLine, ...spec.shippingLine },
      lineItems,
      fulfillments: [],
      metafields: [],
      fulfillmentOrders: []
    }
    // One fulfillment order per location that ships some of the lines, in the order the lines name them.
    const byLocation = new Map<string | null, StoredOrder["lineItems"]>()
    lineItems.forEach((l, index) => {
      if (!l.requiresShipping) return
      const location = spec.lineItems?.[index]?.location ?? null
      byLocation.set(location, [...(byLocation.get(location) ?? []), l])
    })
    const fulfillAt = spec.fulfillAt === undefined ? null : Math.floor(Date.parse(spec.fulfillAt) / 1000) * 1000
    for (const shippable of byLocation.values()) {
      order.fulfillmentOrders.push({
        id: this.nextId("FulfillmentOrder"),
        status: fulfillAt !== null && fulfillAt > createdAt ? "SCHEDULED" : "OPEN",
        createdAt,
        updatedAt: createdAt,
        holds: [],
        statusBeforeHold: null,
        fulfillAt,
        hidden: false,
        lines: shippable.map((l) => ({
          id: this.nextId("FulfillmentOrderLineItem"),
          lineItemId: l.id,
          totalQuantity: l.quantity,
          remainingQuantity: l.quantity
        }))
      })
    }
    this.orders.set(id, order)
    this.events.emit("orders/create", order)
    return order
  }

  findOrder(idOrGid: string | number): StoredOrder | undefined {
    const id = typeof idOrGid === "number" ? idOrGid : parseGid(idOrGid, "Order")
    return id === null ? undefined : this.orders.get(id)
  }

  findFulfillmentOrder(foId: number): { order: StoredOrder; fo: StoredFulfillmentOrder } | undefined {
    for (const order of this.orders.values()) {
      const fo = order.fulfillmentOrders.find((f) => f.id === foId)
      if (fo) return { order, fo }
    }
    return undefined
  }

  editOrder(order: StoredOrder, patch: OrderPatch): StoredOrder {
    if (patch.email !== undefined) order.email = patch.email
    if (patch.phone !== undefined) order.phone = patch.phone
    if (patch.note !== undefined) order.note = patch.note
    if (patch.tags !== undefined) order.tags = splitTags(patch.tags)
    if (patch.financialStatus !== undefined) order.financialStatus = patch.financialStatus
    if (patch.customAttributes !== undefined) order.customAttributes = patch.customAttributes
    if (patch.shippingAddress !== undefined) {
      order.shippingAddress = patch.shippingAddress === null
        ? null
        : { ...emptyAddress, ...order.shippingAddress, ...patch.shippingAddress }
    }
    for (const change of patch.lineItems ?? []) {
      const lineId = typeof change.id === "number" ? change.id : parseGid(change.id, "LineItem")
      const line = order.lineItems.find((l) => l.id === lineId)
      if (!line) throw new Error(`line item ${change.id} is not in order ${order.name}`)
      if (change.customAttributes !== undefined) line.customAttributes = change.customAttributes
      if (change.currentQuantity !== undefined) {
        // A refund or removal: units already fulfilled cannot be removed.
        line.currentQuantity = Math.min(line.quantity, Math.max(change.currentQuantity, fulfilledQuantity(order, line.id)))
        this.shrinkFulfillmentOrders(order, line.id, line.currentQuantity - fulfilledQuantity(order, line.id))
      }
    }
    this.touch(order)
    return order
  }

  /** Caps the remaining quantity of a line across its fulfillment orders; closes emptied ones. */
  private shrinkFulfillmentOrders(order: StoredOrder, lineItemId: number, unfulfilled: number): void {
    let allowed = unfulfilled
    for (const fo of order.fulfillmentOrders) {
      for (const line of fo.lines.filter((l) => l.lineItemId === lineItemId)) {
        line.remainingQuantity = Math.min(line.remainingQuantity, allowed)
        allowed -= line.remainingQuantity
      }
      if (fo.status !== "CLOSED" && fo.status !== "CANCELLED" && fo.lines.every((l) => l.remainingQuantity === 0)) {
        fo.status = "CLOSED"
        fo.holds = []
        fo.updatedAt = this.nowSeconds()
      }
    }
  }

  cancelOrder(order: StoredOrder, reason: CancelReason = "CUSTOMER", refund = true): StoredOrder {
    if (order.cancelledAt !== null) return order
    const at = this.nowSeconds()
    order.cancelledAt = at
    order.cancelReason = reason
    order.closedAt = at
    if (refund) {
      order.financialStatus = ["PAID", "PARTIALLY_PAID", "PARTIALLY_REFUNDED"].includes(order.financialStatus) ? "REFUNDED" : "VOIDED"
    }
    for (const line of order.lineItems) line.currentQuantity = fulfilledQuantity(order, line.id)
    for (const fo of order.fulfillmentOrders) {
      if (fo.status === "CLOSED" || fo.status === "CANCELLED") continue
      fo.status = "CLOSED"
      fo.holds = []
      for (const line of fo.lines) line.remainingQuantity = 0
      fo.updatedAt = at
    }
    this.touch(order)
    this.events.emit("orders/cancelled", order)
    return order
  }

  holdFulfillmentOrder(order: StoredOrder, fo: StoredFulfillmentOrder, reason: string, reasonNotes: string | null, handle: string | null) {
    const hold = { id: this.nextId("FulfillmentHold"), reason, reasonNotes, handle }
    if (fo.status !== "ON_HOLD") fo.statusBeforeHold = fo.status
    fo.status = "ON_HOLD"
    fo.holds.push(hold)
    fo.updatedAt = this.nowSeconds()
    this.touch(order)
    return hold
  }

  releaseHolds(order: StoredOrder, fo: StoredFulfillmentOrder, holdIds: number[] | null): void {
    fo.holds = holdIds === null ? [] : fo.holds.filter((h) => !holdIds.includes(h.id))
    if (fo.holds.length === 0 && fo.status === "ON_HOLD") {
      fo.status = fo.statusBeforeHold ?? "OPEN"
      fo.statusBeforeHold = null
    }
    fo.updatedAt = this.nowSeconds()
    this.touch(order)
  }

  /** A SCHEDULED fulfillment order opens (its date came, or `fulfillmentOrderOpen`). */
  openScheduled(order: StoredOrder, fo: StoredFulfillmentOrder): void {
    fo.status = "OPEN"
    fo.updatedAt = this.nowSeconds()
    this.touch(order)
  }

  /** Opens every SCHEDULED fulfillment order whose date has come (Shopify does it at that time). */
  openDueScheduled(): void {
    const now = this.now()
    for (const order of this.orders.values()) {
      for (const fo of order.fulfillmentOrders) {
        if (fo.status === "SCHEDULED" && fo.fulfillAt !== null && fo.fulfillAt <= now) this.openScheduled(order, fo)
      }
    }
  }

  /**
   * Moves each open fulfillment order of the order to another location `times` times, as a merchant
   * does (`fulfillmentOrderMove`): the moved one is CLOSED (shown only without `displayable: true`)
   * and a new one takes what remained.
   */
  moveFulfillmentOrders(order: StoredOrder, times: number): void {
    const now = this.nowSeconds()
    for (let i = 0; i < times; i++) {
      for (const fo of order.fulfillmentOrders.filter((f) => f.status === "OPEN")) {
        order.fulfillmentOrders.push({
          ...fo,
          id: this.nextId("FulfillmentOrder"),
          createdAt: now,
          updatedAt: now,
          holds: [],
          lines: fo.lines.map((l) => ({ ...l, id: this.nextId("FulfillmentOrderLineItem") }))
        })
        fo.status = "CLOSED"
        fo.hidden = true
        fo.updatedAt = now
        for (const line of fo.lines) line.remainingQuantity = 0
      }
    }
    this.touch(order)
  }

  /** Admin shortcut: every open fulfillment order of the order goes ON_HOLD (or is released). */
  holdOrder(order: StoredOrder, reason = "OTHER"): void {
    for (const fo of order.fulfillmentOrders.filter((f) => f.status === "OPEN" || f.status === "IN_PROGRESS")) {
      this.holdFulfillmentOrder(order, fo, reason, "Held from the simulator admin", null)
    }
  }

  releaseOrder(order: StoredOrder): void {
    for (const fo of order.fulfillmentOrders.filter((f) => f.status === "ON_HOLD")) this.releaseHolds(order, fo, null)
  }

  stampNow(): number {
    return this.nowSeconds()
  }
}

const emptyAddress: Address = {
  firstName: null,
  lastName: null,
  company: null,
  address1: null,
  address2: null,
  city: null,
  province: null,
  provinceCode: null,
  zip: null,
  country: null,
  countryCodeV2: null,
  phone: null
}
