import { centsOf, decimalOf, quantityOf } from "../kit/amounts.js"

/** The simulator's stored shop state (numeric ids; global ids are built on the way out). */

export type FinancialStatus =
  | "AUTHORIZED"
  | "EXPIRED"
  | "PAID"
  | "PARTIALLY_PAID"
  | "PARTIALLY_REFUNDED"
  | "PENDING"
  | "REFUNDED"
  | "VOIDED"
export type FulfillmentOrderStatus = "OPEN" | "IN_PROGRESS" | "SCHEDULED" | "ON_HOLD" | "INCOMPLETE" | "CLOSED" | "CANCELLED"
export type CancelReason = "CUSTOMER" | "DECLINED" | "FRAUD" | "INVENTORY" | "OTHER" | "STAFF"

export interface Attribute {
  key: string
  value: string | null
}

export interface Address {
  firstName: string | null
  lastName: string | null
  company: string | null
  address1: string | null
  address2: string | null
  city: string | null
  province: string | null
  provinceCode: string | null
  zip: string | null
  country: string | null
  countryCodeV2: string | null
  phone: string | null
}

export interface StoredLineItem {
  id: number
  sku: string | null
  title: string
  variantTitle: string | null
  vendor: string
  quantity: number
  currentQuantity: number
  price: string
  variantId: string | null
  productId: string | null
  requiresShipping: boolean
  customAttributes: Attribute[]
}

export interface StoredFulfillmentOrderLine {
  id: number
  lineItemId: number
  totalQuantity: number
  remainingQuantity: number
}
export interface StoredHold {
  id: number
  reason: string
  reasonNotes: string | null
  handle: string | null
}

export interface StoredFulfillmentOrder {
  id: number
  status: FulfillmentOrderStatus
  createdAt: number
  updatedAt: number
  lines: StoredFulfillmentOrderLine[]
  holds: StoredHold[]
  /** The status to return to when the last hold is released. */
  statusBeforeHold: FulfillmentOrderStatus | null
  /** A SCHEDULED fulfillment order opens at this time (ms): a pre-order, a "fulfil at" date. */
  fulfillAt: number | null
  /** Closed by a move (or a merge): hidden from the merchant, so left out by `displayable: true`. */
  hidden: boolean
}

export interface StoredTracking {
  company: string | null
  number: string | null
  url: string | null
}

export interface StoredFulfillment {
  id: number
  name: string
  status: "SUCCESS" | "CANCELLED"
  createdAt: number
  updatedAt: number
  tracking: StoredTracking[]
  lines: Array<{ id: number; lineItemId: number; fulfillmentOrderLineId: number; quantity: number }>
  fulfillmentOrderIds: number[]
  notifyCustomer: boolean
}

export interface StoredMetafield {
  id: number
  namespace: string
  key: string
  type: string
  value: string
  createdAt: number
  updatedAt: number
}

export interface StoredOrder {
  id: number
  number: number
  name: string
  email: string | null
  phone: string | null
  /** Unix milliseconds, always whole seconds (Shopify's DateTime has second precision). */
  createdAt: number
  updatedAt: number
  processedAt: number
  cancelledAt: number | null
  cancelReason: CancelReason | null
  closedAt: number | null
  financialStatus: FinancialStatus
  currencyCode: string
  note: string | null
  tags: string[]
  customAttributes: Attribute[]
  customerId: number
  shippingAddress: Address | null
  billingAddress: Address | null
  shippingLine: { title: string; code: string | null; price: string } | null
  lineItems: StoredLineItem[]
  fulfillmentOrders: StoredFulfillmentOrder[]
  fulfillments: StoredFulfillment[]
  metafields: StoredMetafield[]
}

export const gid = (type: string, id: number | string): string => `gid://shopify/${type}/${id}`

/** Accepts `gid://shopify/<type>/<n>` (or a bare number) and returns n, or null for another type. */
export const parseGid = (value: string, type: string): number | null => {
  const match = /^gid:\/\/shopify\/([A-Za-z]+)\/(\d+)(\?.*)?$/.exec(value)
  if (match) return match[1] === type ? Number(match[2]) : null
  return /^\d+$/.test(value) ? Number(value) : null
}

export const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")

/** Cents as Shopify writes a money amount (`"24.50"`). */
export const formatCents = decimalOf

export const fulfilledQuantity = (order: StoredOrder, lineItemId: number): number =>
  quantityOf(order.fulfillments.filter((f) => f.status === "SUCCESS").flatMap((f) => f.lines), (l) => l.lineItemId === lineItemId)

export const unfulfilledQuantity = (order: StoredOrder, line: StoredLineItem): number =>
  Math.max(0, line.currentQuantity - fulfilledQuantity(order, line.id))

export const subtotalCents = (order: StoredOrder, current: boolean): number =>
  order.lineItems.reduce((sum, l) => sum + centsOf(l.price) * (current ? l.currentQuantity : l.quantity), 0)

export const shippingCents = (order: StoredOrder): number => (order.shippingLine ? centsOf(order.shippingLine.price) : 0)

export const displayFulfillmentStatus = (order: StoredOrder): string => {
  // Nothing to ship (digital items, services): Shopify says so instead of "unfulfilled".
  if (order.lineItems.every((l) => !l.requiresShipping)) return "FULFILLMENT_NOT_REQUIRED"
  const fulfilled = order.lineItems.reduce((sum, l) => sum + fulfilledQuantity(order, l.id), 0)
  const open = order.lineItems.reduce((sum, l) => sum + unfulfilledQuantity(order, l), 0)
  if (fulfilled > 0 && open === 0) return "FULFILLED"
  if (fulfilled > 0) return "PARTIALLY_FULFILLED"
  if (open > 0 && order.fulfillmentOrders.some((fo) => fo.status === "ON_HOLD")) return "ON_HOLD"
  if (open > 0 && order.fulfillmentOrders.some((fo) => fo.status === "SCHEDULED")) return "SCHEDULED"
  if (order.fulfillmentOrders.some((fo) => fo.status === "IN_PROGRESS")) return "IN_PROGRESS"
  return "UNFULFILLED"
}

/** REST/webhook `fulfillment_status`: null, "partial" or "fulfilled". */
export const restFulfillmentStatus = (order: StoredOrder): string | null => {
  const display = displayFulfillmentStatus(order)
  return display === "FULFILLED" ? "fulfilled" : display === "PARTIALLY_FULFILLED" ? "partial" : null
}
