import { placedAtMs } from "../kit/history.js"
import { StoreEvents, type OperationStats, type StoreListener } from "../kit/stats.js"
import { generateOrder, paymentMethods, randomHex, seededRandom } from "./fixtures.js"
import type { LineItemSpec, OrderSpec, Random } from "./fixtures.js"
import { isOrderStatus, itemsTotalCents, refundedCents, refundedQuantity, trackingItems, TRACKING_META_KEY } from "./model.js"
import { statusLabels } from "./model.js"
import type {
  CustomerEmail,
  EmailedTracking,
  HostSettings,
  OrderPatch,
  OrderStatus,
  StoredNote,
  StoredOrder,
  StoredRefund,
  TrackingItem
} from "./model.js"

/**
 * The shop's state and clock, and what WooCommerce does when an order is saved: `date_modified` moves to
 * now (second precision, so two saves in one second share it, as on a real site), status transitions
 * add a system note and send the customer emails WooCommerce core sends, and every save raises
 * `order.updated` for the webhooks.
 */

export type OrderTopic = "order.created" | "order.updated" | "order.deleted"

export { statusLabels } from "./model.js"
export type { HostSettings, OrderPatch } from "./model.js"

export interface WooStats extends OperationStats {
  rateLimited: number
  authFailures: number
  /** Smallest gap between two consecutive API requests on the simulator's clock, in ms (null before two). */
  minGapMs: number | null
}

const emptyStats = (): WooStats => ({
  requests: 0,
  requestsByOperation: {},
  rateLimited: 0,
  authFailures: 0,
  faultsInjected: {},
  minGapMs: null
})

const cents = (decimal: string): number => Math.round(Number(decimal) * 100)

export class WooState {
  orders = new Map<number, StoredOrder>()
  stats: WooStats = emptyStats()
  /** "Mutate during walk": orders edited after each answered order list (see `churn`). */
  churnPerListQuery = 0
  shipmentTracking: boolean
  host: HostSettings
  private random: Random
  private clockOffsetMs = 0
  private nextPostId = 4021
  private nextItemId = 187
  private nextMetaId = 9120
  private nextNoteId = 730
  private seq = 0
  private lastArrival: number | null = null
  private readonly events = new StoreEvents<OrderTopic, StoredOrder>()

  constructor(
    private readonly seed: number,
    private readonly wallClock: () => number,
    readonly gmtOffsetHours: number,
    private readonly shipmentTrackingDefault: boolean,
    private readonly hostDefault: HostSettings = { stripsAuthorization: false, homeUrl: null },
    /** A tracking item as the extension prints it (trackingApi.ts), for the emails. */
    private readonly formatTracking: (item: TrackingItem) => { provider: string; link: string } = (t) => ({
      provider: t.custom_tracking_provider || t.tracking_provider,
      link: t.custom_tracking_link
    })
  ) {
    this.random = seededRandom(seed)
    this.shipmentTracking = shipmentTrackingDefault
    this.host = { ...hostDefault }
  }

  reset(): void {
    this.orders = new Map()
    this.stats = emptyStats()
    this.churnPerListQuery = 0
    this.shipmentTracking = this.shipmentTrackingDefault
    this.host = { ...this.hostDefault }
    this.random = seededRandom(this.seed)
    this.clockOffsetMs = 0
    this.nextPostId = 4021
    this.nextItemId = 187
    this.nextMetaId = 9120
    this.nextNoteId = 730
    this.seq = 0
    this.lastArrival = null
  }

  /** The simulator's notion of now (wall clock plus `/__sim/clock/advance`), in ms. */
  readonly now = (): number => this.wallClock() + this.clockOffsetMs
  nowSeconds(): number {
    return Math.floor(this.now() / 1000) * 1000
  }
  advanceClock(seconds: number): void {
    this.clockOffsetMs += seconds * 1000
  }
  randomValue(): number {
    return this.random()
  }
  nextSeq(): number {
    return ++this.seq
  }
  metaId(): number {
    return this.nextMetaId++
  }

  recordArrival(): void {
    const at = this.now()
    if (this.lastArrival !== null) {
      const gap = at - this.lastArrival
      this.stats.minGapMs = this.stats.minGapMs === null ? gap : Math.min(this.stats.minGapMs, gap)
    }
    this.lastArrival = at
  }

  onOrderEvent(listener: StoreListener<OrderTopic, StoredOrder>): void {
    this.events.subscribe(listener)
  }

  /** `$order->save()`: date_modified moves to now and `order.updated` fires. */
  save(order: StoredOrder): void {
    order.modifiedAt = this.nowSeconds()
    this.events.emit("order.updated", order)
  }

  createOrder(spec: OrderSpec = {}): StoredOrder {
    const generated = generateOrder(this.random)
    const id = this.nextPostId
    this.nextPostId += 1 + Math.floor(this.random() * 3) // posts of other types take ids in between
    const createdAt = placedAtMs(spec.placedAt, this.nowSeconds())
    const specs: LineItemSpec[] = spec.lineItems ?? generated.lineItems.map(() => ({}))
    const lineItems = specs.map((l, index) => {
      const base = generated.lineItems[index % generated.lineItems.length]!
      const quantity = l.quantity ?? base.quantity
      const priceCents = l.price === undefined ? base.priceCents : cents(l.price)
      return {
        id: this.nextItemId++,
        name: l.name ?? base.name,
        productId: l.productId ?? base.productId,
        variationId: l.variationId ?? (l.productId === undefined ? base.variationId : 0),
        quantity,
        taxClass: "",
        subtotalCents: priceCents * quantity,
        totalCents: priceCents * quantity,
        sku: l.sku ?? base.sku,
        parentName: l.parentName === undefined ? (l.name === undefined ? base.parentName : null) : l.parentName,
        imageId: 0,
        meta: (l.meta ?? base.meta).map((m) => ({ id: this.nextMetaId++, key: m.key, value: m.value }))
      }
    })
    const shippingLine = spec.shippingLine === null ? null : { ...generated.shippingLine, ...spec.shippingLine }
    const [paymentMethod, paymentMethodTitle] = paymentMethods[Math.floor(this.random() * paymentMethods.length)]!
    const order: StoredOrder = {
      id,
      number: spec.number ?? String(id),
      orderKey: `wc_order_${randomHex(this.random, 13)}`,
      status: "pending",
      currency: spec.currency ?? generated.currency,
      createdVia: "checkout",
      createdAt,
      modifiedAt: createdAt,
      paidAt: null,
      completedAt: null,
      customerId: this.random() < 0.6 ? 12 + Math.floor(this.random() * 400) : 0,
      customerNote: spec.customerNote ?? generated.customerNote,
      billing: { ...generated.billing, ...spec.billing },
      shipping: { ...generated.shipping, ...spec.shipping },
      paymentMethod: spec.paymentMethod ?? paymentMethod,
      paymentMethodTitle: spec.paymentMethodTitle ?? paymentMethodTitle,
      transactionId: "",
      meta: (spec.meta ?? [{ key: "is_vat_exempt", value: "no" }]).map((m) => ({ id: this.nextMetaId++, key: m.key, value: m.value })),
      lineItems,
      shippingLines: shippingLine === null ? [] : [{
        id: this.nextItemId++,
        methodTitle: shippingLine.methodTitle,
        methodId: shippingLine.methodId,
        instanceId: "1",
        totalCents: "total" in shippingLine && typeof shippingLine.total === "string"
          ? cents(shippingLine.total)
          : generated.shippingLine.totalCents
      }],
      refunds: [],
      notes: [],
      emails: []
    }
    this.orders.set(id, order)
    const status = spec.status ?? "processing"
    if (!isOrderStatus(status)) throw new Error(`status must be one of the order statuses, got ${status}`)
    if (status !== "pending") this.setStatus(order, status)
    if (order.paidAt !== null) order.transactionId = order.paymentMethod === "bacs" ? "" : `txn_${randomHex(this.random, 16)}`
    this.events.emit("order.created", order)
    return order
  }

  /** A status transition as `WC_Order::status_transition` does it: dates, a system note, customer emails. */
  setStatus(order: StoredOrder, to: OrderStatus): void {
    const from = order.status
    if (from === to) return
    order.status = to
    const at = this.nowSeconds()
    if ((to === "processing" || to === "completed") && order.paidAt === null) order.paidAt = at
    if (to === "completed") order.completedAt = at
    if (to === "processing" || to === "completed" || to === "on-hold") this.reduceStock(order)
    this.addNote(order, `Order status changed from ${statusLabels[from]} to ${statusLabels[to]}.`, false, "system")
    if (to === "processing" && ["pending", "on-hold", "failed", "checkout-draft"].includes(from)) {
      this.sendEmail(order, "customer_processing_order")
    }
    if (to === "on-hold" && ["pending", "failed", "cancelled", "checkout-draft"].includes(from)) {
      this.sendEmail(order, "customer_on_hold_order")
    }
    if (to === "completed") this.sendEmail(order, "customer_completed_order")
    if (to === "refunded") this.sendEmail(order, "customer_refunded_order")
  }

  /**
   * `wc_maybe_reduce_stock_levels`: once per order, each product line's stock is reduced and the line
   * gets the internal meta `_reduced_stock` (the units taken), which the REST answer shows with the
   * line's other meta (store-apis.md §0).
   */
  private reduceStock(order: StoredOrder): void {
    if (order.meta.some((m) => m.key === "_order_stock_reduced")) return
    order.meta.push({ id: this.nextMetaId++, key: "_order_stock_reduced", value: "yes" })
    for (const line of order.lineItems) {
      if (line.productId > 0) line.meta.push({ id: this.nextMetaId++, key: "_reduced_stock", value: String(line.quantity) })
    }
  }

  private sendEmail(order: StoredOrder, type: CustomerEmail, note?: string): void {
    const items = this.shipmentTracking ? trackingItems(order) : []
    const tracking: EmailedTracking[] = items.map((t) => ({ ...this.formatTracking(t), number: t.tracking_number }))
    order.emails.push({
      type,
      to: order.billing.email ?? "",
      at: this.now(),
      seq: this.nextSeq(),
      trackingNumbers: items.map((t) => t.tracking_number),
      tracking,
      ...(note === undefined ? {} : { note })
    })
  }

  /** `$order->update_meta_data()`: updates the entry with that id, else the first with that key, else adds one. */
  updateMeta(order: StoredOrder, key: string, value: unknown, id?: number): void {
    const existing = (id === undefined ? undefined : order.meta.find((m) => m.id === id)) ?? order.meta.find((m) => m.key === key)
    if (existing) {
      existing.key = key
      existing.value = value
    } else {
      order.meta.push({ id: this.nextMetaId++, key, value })
    }
  }

  /** Notes are comments: adding one does not save the order (date_modified stays). */
  addNote(order: StoredOrder, text: string, customerNote: boolean, author: string): StoredNote {
    const note: StoredNote = { id: this.nextNoteId++, createdAt: this.nowSeconds(), note: text, customerNote, author, seq: this.nextSeq() }
    order.notes.push(note)
    if (customerNote) this.sendEmail(order, "customer_note", text)
    return note
  }

  editOrder(order: StoredOrder, patch: OrderPatch): StoredOrder {
    if (patch.customer_note !== undefined) order.customerNote = patch.customer_note
    if (patch.billing !== undefined) order.billing = { ...order.billing, ...patch.billing }
    if (patch.shipping !== undefined) order.shipping = { ...order.shipping, ...patch.shipping }
    for (const meta of patch.meta_data ?? []) this.updateMeta(order, meta.key, meta.value, meta.id)
    for (const change of patch.line_items ?? []) {
      const line = order.lineItems.find((l) => l.id === change.id)
      if (!line) throw new Error(`line item ${change.id} is not in order ${order.id}`)
      if (change.meta_data !== undefined) line.meta = change.meta_data.map((m) => ({ id: this.nextMetaId++, key: m.key, value: m.value }))
    }
    if (patch.status !== undefined) {
      if (!isOrderStatus(patch.status)) throw new Error(`status is not one of ${Object.keys(statusLabels).join(", ")}.`)
      this.setStatus(order, patch.status)
    }
    this.save(order)
    return order
  }

  /** `wc_create_refund`: a refund post with negative line items; a full refund moves the order to refunded. */
  addRefund(
    order: StoredOrder,
    spec: { amount?: string; reason?: string; line_items?: Array<{ id: number; quantity: number }> }
  ): StoredRefund {
    const lines = (spec.line_items ?? []).map((l) => {
      const item = order.lineItems.find((i) => i.id === l.id)
      if (!item) throw new Error(`line item ${l.id} is not in order ${order.id}`)
      const left = item.quantity - refundedQuantity(order, item.id)
      if (!(l.quantity >= 1 && l.quantity <= left)) throw new Error(`line item ${l.id} has ${left} units left to refund`)
      return {
        id: this.nextItemId++,
        refundedItemId: item.id,
        quantity: l.quantity,
        totalCents: Math.round((item.totalCents / item.quantity) * l.quantity),
        metaId: this.nextMetaId++
      }
    })
    const amountCents = spec.amount === undefined ? lines.reduce((sum, l) => sum + l.totalCents, 0) : cents(spec.amount)
    if (amountCents <= 0 || amountCents > itemsTotalCents(order) - refundedCents(order)) throw new Error("Invalid refund amount.")
    const refund: StoredRefund = { id: this.nextPostId++, createdAt: this.nowSeconds(), amountCents, reason: spec.reason ?? "", lines }
    order.refunds.push(refund)
    if (refundedCents(order) >= itemsTotalCents(order)) this.setStatus(order, "refunded")
    else this.sendEmail(order, "customer_refunded_order")
    this.save(order)
    return refund
  }

  addTracking(order: StoredOrder, item: Omit<TrackingItem, "tracking_id">): TrackingItem {
    const tracking: TrackingItem = { ...item, tracking_id: randomHex(this.random, 32) }
    this.updateMeta(order, TRACKING_META_KEY, [...trackingItems(order), tracking])
    this.save(order)
    return tracking
  }

  deleteTracking(order: StoredOrder, trackingId: string): TrackingItem | undefined {
    const items = trackingItems(order)
    const found = items.find((t) => t.tracking_id === trackingId)
    if (!found) return undefined
    this.updateMeta(order, TRACKING_META_KEY, items.filter((t) => t !== found))
    this.save(order)
    return found
  }

  trash(order: StoredOrder): void {
    this.setStatus(order, "trash")
    this.save(order)
    this.events.emit("order.deleted", order)
  }

  /** Edits `count` orders picked at random (a shop at work while a client pages through orders). */
  churn(count: number): void {
    const open = [...this.orders.values()].filter((o) => o.status !== "trash")
    for (let i = 0; i < count && open.length > 0; i++) {
      const [order] = open.splice(Math.floor(this.random() * open.length), 1)
      if (!order) continue
      const current = order.meta.find((m) => m.key === "_sim_edits")
      this.updateMeta(order, "_sim_edits", String(Number(current?.value ?? 0) + 1))
      this.save(order)
    }
  }
}
