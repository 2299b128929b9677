import { placedAtMs } from "../kit/history.js"
/**
 * The simulated storefront's state: orders, their fulfilments, the clock, and
 * the seller-side operations (create, edit, cancel, hold) that bump
 * `updated_at`. The contract's rules for creating a fulfilment live in
 * fulfillments.ts; paging in paging.ts.
 */
import { StoreEvents, type OperationStats, type StoreListener } from "../kit/stats.js"
import { generateOrder, type OrderSpec, seededRandom, type Random } from "./fixtures.js"
import type { StoredLine, StoredOrder } from "./model.js"
import { financialStatuses, type FinancialStatus, type WireAddress, type WireAttribute } from "./wire.js"

export type OrderEvent = "order.created" | "order.updated" | "order.cancelled"

/** `requests`: authorised contract requests that were answered (not refused with 429). */
export interface FeedStats extends OperationStats {
  /** Requests refused with 429 by the rate limit (not by a fault). */
  rateLimited: number
  fulfillmentsByOrder: Record<string, number>
  /** Shipping-confirmation emails the storefront sent to buyers, per order. */
  buyerEmailsByOrder: Record<string, number>
  /** POSTs answered with an earlier fulfilment because their Idempotency-Key was known. */
  idempotentReplays: number
  /** POSTs answered 409 because a request with the same key was still running. */
  keysInUse: number
}

export interface OrderPatch {
  readonly email?: string | null
  readonly note?: string | null
  readonly tags?: ReadonlyArray<string>
  readonly financialStatus?: string
  readonly shipTo?: Partial<WireAddress> | null
  readonly attributes?: ReadonlyArray<WireAttribute>
  readonly lines?: ReadonlyArray<
    { readonly id: string; readonly currentQuantity?: number; readonly attributes?: ReadonlyArray<WireAttribute> }
  >
}

const emptyStats = (): FeedStats => ({
  requests: 0,
  requestsByOperation: {},
  rateLimited: 0,
  fulfillmentsByOrder: {},
  buyerEmailsByOrder: {},
  idempotentReplays: 0,
  keysInUse: 0,
  faultsInjected: {}
})

export class InvalidSpecError extends Error {}

const financialStatus = (value: string | undefined, fallback: FinancialStatus): FinancialStatus => {
  if (value === undefined) return fallback
  const found = financialStatuses.find((s) => s === value)
  if (found === undefined) throw new InvalidSpecError(`financialStatus must be one of ${financialStatuses.join(", ")}`)
  return found
}

export class FeedState {
  orders = new Map<string, StoredOrder>()
  stats: FeedStats = emptyStats()
  /** "Mutate during walk": orders edited after each answered page of `GET /orders`. */
  churnPerPage = 0
  private random: Random
  private counters = new Map<string, number>()
  private clockOffsetMs = 0
  private readonly events = new StoreEvents<OrderEvent, StoredOrder>()

  constructor(private readonly seed: number, private readonly wallClock: () => number = Date.now) {
    this.random = seededRandom(seed)
  }

  /** The storefront's now: the wall clock plus `/__sim/clock/advance`. */
  readonly now = (): number => this.wallClock() + this.clockOffsetMs
  advanceClock(seconds: number): void {
    this.clockOffsetMs += seconds * 1000
  }

  reset(): void {
    this.orders = new Map()
    this.stats = emptyStats()
    this.random = seededRandom(this.seed)
    this.counters = new Map()
    this.clockOffsetMs = 0
    this.churnPerPage = 0
  }

  nextNumber(kind: string, first: number): number {
    const n = this.counters.get(kind) ?? first
    this.counters.set(kind, n + 1)
    return n
  }

  onOrderEvent(listener: StoreListener<OrderEvent, StoredOrder>): void {
    this.events.subscribe(listener)
  }

  /**
   * Records a change: `updated_at` moves to now, and at least one millisecond
   * past its previous value, so every version of an order is distinct (the
   * contract's rule: podsync recognises versions by (id, updated_at)).
   */
  touch(order: StoredOrder, event: OrderEvent = "order.updated"): void {
    order.updatedAt = Math.max(this.now(), order.updatedAt + 1)
    this.events.emit(event, order)
  }

  createOrder(spec: OrderSpec = {}): StoredOrder {
    const generated = generateOrder(this.random)
    const seq = this.nextNumber("order", 1001)
    const id = `ord_${seq}`
    const now = placedAtMs(spec.placedAt, this.now())
    const lines: Array<StoredLine> = (spec.lines ?? generated.lines).map((l, index) => {
      const base = generated.lines[index % generated.lines.length]!
      const quantity = l.quantity ?? base.quantity
      if (!Number.isInteger(quantity) || quantity < 1) throw new InvalidSpecError("lines[].quantity must be a positive whole number")
      return {
        id: `li_${this.nextNumber("line", 50001)}`,
        sku: l.sku === undefined ? base.sku : l.sku,
        variantId: l.variantId === undefined ? base.variantId : l.variantId,
        productId: l.productId === undefined ? base.productId : l.productId,
        title: l.title ?? base.title,
        variantTitle: l.variantTitle === undefined ? base.variantTitle : l.variantTitle,
        quantity,
        currentQuantity: quantity,
        requiresShipping: l.requiresShipping ?? true,
        unitPrice: l.unitPrice ?? base.unitPrice,
        attributes: [...(l.attributes ?? base.attributes)]
      }
    })
    const shipping = spec.shippingMethod
    const order: StoredOrder = {
      seq,
      id,
      name: `#${seq}`,
      createdAt: now,
      updatedAt: now,
      currency: spec.currency ?? generated.currency,
      financialStatus: financialStatus(spec.financialStatus, generated.financialStatus),
      cancelledAt: null,
      cancelReason: null,
      holds: [],
      email: spec.email === undefined ? generated.email : spec.email,
      shipTo: spec.shipTo === null ? null : { ...generated.shipTo, ...spec.shipTo },
      shippingMethod: shipping === null
        ? null
        : shipping === undefined
        ? { ...generated.shippingMethod }
        : { title: shipping.title, code: shipping.code ?? null, price: shipping.price ?? "0.00" },
      lines,
      note: spec.note === undefined ? generated.note : spec.note,
      tags: [...(spec.tags ?? [])],
      attributes: [...(spec.attributes ?? [])],
      fulfillments: []
    }
    this.orders.set(id, order)
    this.events.emit("order.created", order)
    return order
  }

  editOrder(order: StoredOrder, patch: OrderPatch): StoredOrder {
    if (patch.email !== undefined) order.email = patch.email
    if (patch.note !== undefined) order.note = patch.note
    if (patch.tags !== undefined) order.tags = [...patch.tags]
    if (patch.financialStatus !== undefined) order.financialStatus = financialStatus(patch.financialStatus, order.financialStatus)
    if (patch.shipTo !== undefined) order.shipTo = patch.shipTo === null ? null : { ...(order.shipTo ?? emptyAddress), ...patch.shipTo }
    if (patch.attributes !== undefined) order.attributes = [...patch.attributes]
    for (const change of patch.lines ?? []) {
      const line = order.lines.find((l) => l.id === change.id)
      if (line === undefined) throw new InvalidSpecError(`order ${order.id} has no line ${change.id}`)
      if (change.currentQuantity !== undefined) {
        if (!Number.isInteger(change.currentQuantity) || change.currentQuantity < 0 || change.currentQuantity > line.quantity) {
          throw new InvalidSpecError(`currentQuantity of ${change.id} must be a whole number from 0 to ${line.quantity}`)
        }
        line.currentQuantity = change.currentQuantity
      }
      if (change.attributes !== undefined) line.attributes = [...change.attributes]
    }
    this.touch(order)
    return order
  }

  cancelOrder(order: StoredOrder, reason: string, refund: boolean): StoredOrder {
    order.cancelledAt = this.now()
    order.cancelReason = reason
    if (refund) order.financialStatus = order.financialStatus === "paid" ? "refunded" : "voided"
    this.touch(order, "order.cancelled")
    return order
  }

  hold(order: StoredOrder, reason: string | null): StoredOrder {
    order.holds.push({ id: `hold_${this.nextNumber("hold", 701)}`, reason })
    this.touch(order)
    return order
  }

  release(order: StoredOrder): StoredOrder {
    order.holds = []
    this.touch(order)
    return order
  }

  /** Edits `count` open orders picked at random (a seller at work while podsync pages). */
  churn(count: number): void {
    const open = [...this.orders.values()].filter((o) => o.cancelledAt === null)
    for (let i = 0; i < count && open.length > 0; i++) {
      const [order] = open.splice(Math.floor(this.random() * open.length), 1)
      if (order) this.editOrder(order, { note: `Edited while podsync was paging (${order.name})` })
    }
  }
}

const emptyAddress: WireAddress = { name: "", line1: null, city: null, country_code: null }
