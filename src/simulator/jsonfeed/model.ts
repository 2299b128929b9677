/**
 * What the simulated storefront stores, and how an order looks on the wire
 * (docs/jsonfeed.md §3). Times are Unix milliseconds inside, ISO-8601 with
 * milliseconds outside; amounts are decimal strings with two places.
 */
import { centsOf, decimalOf, quantityOf } from "../kit/amounts.js"
import type {
  FinancialStatus,
  FulfillmentStatus,
  WireAddress,
  WireAttribute,
  WireFulfillment,
  WireLine,
  WireOrder,
  WireTracking
} from "./wire.js"

export interface StoredLine {
  readonly id: string
  sku: string | null
  variantId: string | null
  productId: string | null
  title: string
  variantTitle: string | null
  readonly quantity: number
  /** Units the buyer still has (quantity minus refunded and removed units). */
  currentQuantity: number
  requiresShipping: boolean
  unitPrice: string
  attributes: Array<WireAttribute>
}

export interface StoredFulfillment {
  readonly id: string
  readonly orderId: string
  status: "success" | "cancelled"
  readonly lines: ReadonlyArray<{ readonly lineId: string; readonly quantity: number }>
  readonly tracking: WireTracking
  readonly notifyCustomer: boolean
  readonly idempotencyKey: string | null
  readonly createdAt: number
}

export interface StoredOrder {
  /** Insertion number: the tie-breaker of the (updated_at, seq) keyset order. */
  readonly seq: number
  readonly id: string
  readonly name: string
  readonly createdAt: number
  /** Moves on every change, strictly: no two versions of an order share an updated_at. */
  updatedAt: number
  currency: string
  financialStatus: FinancialStatus
  cancelledAt: number | null
  cancelReason: string | null
  holds: Array<{ id: string; reason: string | null }>
  email: string | null
  shipTo: WireAddress | null
  shippingMethod: { title: string; code: string | null; price: string } | null
  lines: Array<StoredLine>
  note: string | null
  tags: Array<string>
  attributes: Array<WireAttribute>
  fulfillments: Array<StoredFulfillment>
}

export const iso = (ms: number): string => new Date(ms).toISOString()

export const fulfilledQuantity = (order: StoredOrder, lineId: string): number =>
  quantityOf(order.fulfillments.filter((f) => f.status === "success").flatMap((f) => f.lines), (l) => l.lineId === lineId)

/** Units of a line still to ship. */
export const fulfillableQuantity = (order: StoredOrder, line: StoredLine): number =>
  line.requiresShipping ? Math.max(0, line.currentQuantity - fulfilledQuantity(order, line.id)) : 0

export const fulfillmentStatusOf = (order: StoredOrder): FulfillmentStatus => {
  const shipped = order.lines.reduce((sum, l) => sum + fulfilledQuantity(order, l.id), 0)
  const open = order.lines.reduce((sum, l) => sum + fulfillableQuantity(order, l), 0)
  if (shipped > 0 && open === 0) return "fulfilled"
  if (shipped > 0) return "partial"
  if (open > 0 && order.holds.length > 0) return "on_hold"
  return "unfulfilled"
}

const totalOf = (order: StoredOrder): string =>
  decimalOf(
    order.lines.reduce((sum, l) => sum + centsOf(l.unitPrice) * l.currentQuantity, 0) +
      (order.shippingMethod === null ? 0 : centsOf(order.shippingMethod.price))
  )

const wireLine = (order: StoredOrder, line: StoredLine): WireLine => ({
  id: line.id,
  sku: line.sku,
  variant_id: line.variantId,
  product_id: line.productId,
  title: line.title,
  variant_title: line.variantTitle,
  quantity: line.quantity,
  current_quantity: line.currentQuantity,
  fulfilled_quantity: fulfilledQuantity(order, line.id),
  requires_shipping: line.requiresShipping,
  unit_price: line.unitPrice,
  attributes: line.attributes.map((a) => ({ ...a }))
})

/** The order as `GET <base>/orders` and `GET <base>/orders/{id}` return it. */
export const wireOrder = (order: StoredOrder): WireOrder => ({
  id: order.id,
  name: order.name,
  created_at: iso(order.createdAt),
  updated_at: iso(order.updatedAt),
  currency: order.currency,
  financial_status: order.financialStatus,
  fulfillment_status: fulfillmentStatusOf(order),
  cancelled_at: order.cancelledAt === null ? null : iso(order.cancelledAt),
  cancel_reason: order.cancelReason,
  holds: order.holds.map((h) => ({ ...h })),
  email: order.email,
  ship_to: order.shipTo === null ? null : { ...order.shipTo },
  shipping_method: order.shippingMethod === null ? null : { title: order.shippingMethod.title, code: order.shippingMethod.code },
  lines: order.lines.map((line) => wireLine(order, line)),
  note: order.note,
  tags: [...order.tags],
  attributes: order.attributes.map((a) => ({ ...a })),
  total: totalOf(order)
})

export const wireFulfillment = (f: StoredFulfillment): WireFulfillment => ({
  id: f.id,
  order_id: f.orderId,
  status: f.status,
  lines: f.lines.map((l) => ({ line_id: l.lineId, quantity: l.quantity })),
  tracking: { ...f.tracking },
  notify_customer: f.notifyCustomer,
  idempotency_key: f.idempotencyKey,
  created_at: iso(f.createdAt)
})
