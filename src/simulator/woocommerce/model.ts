/**
 * The WooCommerce simulator's stored state: orders with their items, meta, notes, refunds and the
 * buyer emails WooCommerce would have sent. Times are Unix milliseconds at whole seconds (MySQL
 * DATETIME has second precision); money is integer cents, written out with two decimals.
 */
import { quantityOf } from "../kit/amounts.js"

export const orderStatuses = [
  "pending",
  "processing",
  "on-hold",
  "completed",
  "cancelled",
  "refunded",
  "failed",
  "trash",
  "checkout-draft"
] as const
export type OrderStatus = (typeof orderStatuses)[number]

export const isOrderStatus = (value: unknown): value is OrderStatus =>
  typeof value === "string" && (orderStatuses as ReadonlyArray<string>).includes(value)

export interface MetaEntry {
  id: number
  key: string
  value: unknown
}

export interface Address {
  first_name: string
  last_name: string
  company: string
  address_1: string
  address_2: string
  city: string
  state: string
  postcode: string
  country: string
  phone: string
  /** Billing only. */
  email?: string
}

export interface StoredLineItem {
  id: number
  name: string
  productId: number
  variationId: number
  quantity: number
  taxClass: string
  /** Line totals before and after discounts, in cents. */
  subtotalCents: number
  totalCents: number
  sku: string
  /** Title of the parent product when the item is a variation, else null. */
  parentName: string | null
  imageId: number
  meta: MetaEntry[]
}

export interface StoredShippingLine {
  id: number
  methodTitle: string
  methodId: string
  instanceId: string
  totalCents: number
}

export interface StoredRefund {
  id: number
  createdAt: number
  amountCents: number
  reason: string
  lines: Array<{ id: number; refundedItemId: number; quantity: number; totalCents: number; metaId: number }>
}

export interface StoredNote {
  id: number
  createdAt: number
  note: string
  customerNote: boolean
  /** "system" for notes WooCommerce (or an API client not flagged as a user) added. */
  author: string
  seq: number
}

/** A customer email WooCommerce sends (the simulator records instead of sending). */
export type CustomerEmail =
  | "customer_processing_order"
  | "customer_completed_order"
  | "customer_on_hold_order"
  | "customer_refunded_order"
  | "customer_note"

/** A Shipment Tracking item as the extension prints it in an email: provider, number, and the link (empty: none). */
export interface EmailedTracking {
  provider: string
  number: string
  link: string
}

export interface StoredEmail {
  type: CustomerEmail
  to: string
  at: number
  seq: number
  /** Shipment Tracking items on the order when the email left (the extension prints them in it). */
  trackingNumbers: string[]
  /** The same items as the buyer reads them. */
  tracking: EmailedTracking[]
  /** A `customer_note` email's text: the note, as the buyer reads it. */
  note?: string
}

export interface StoredOrder {
  id: number
  number: string
  orderKey: string
  status: OrderStatus
  currency: string
  createdVia: string
  createdAt: number
  modifiedAt: number
  paidAt: number | null
  completedAt: number | null
  customerId: number
  customerNote: string
  billing: Address
  shipping: Address
  paymentMethod: string
  paymentMethodTitle: string
  transactionId: string
  meta: MetaEntry[]
  lineItems: StoredLineItem[]
  shippingLines: StoredShippingLine[]
  refunds: StoredRefund[]
  notes: StoredNote[]
  emails: StoredEmail[]
}

/** Meta key under which the Shipment Tracking extension keeps an order's tracking items. */
export const TRACKING_META_KEY = "_wc_shipment_tracking_items"

/** One item of `_wc_shipment_tracking_items`, as the extension stores it. */
export interface TrackingItem {
  tracking_provider: string
  custom_tracking_provider: string
  custom_tracking_link: string
  tracking_number: string
  /** Unix seconds, as a string (the extension stores a timestamp). */
  date_shipped: string
  tracking_id: string
}

export const trackingItems = (order: StoredOrder): TrackingItem[] => {
  const entry = order.meta.find((m) => m.key === TRACKING_META_KEY)
  return Array.isArray(entry?.value) ? (entry.value as TrackingItem[]) : []
}

export const money = (cents: number): string => (cents / 100).toFixed(2)

/** `2026-03-01T09:30:00`: WordPress's REST date format, without a zone designator. */
export const wallTime = (ms: number): string => new Date(ms).toISOString().slice(0, 19)

/** The order's GMT time as the site's local wall clock (WordPress `gmt_offset` is in hours). */
export const localTime = (ms: number, gmtOffsetHours: number): string => wallTime(ms + gmtOffsetHours * 3_600_000)

export const refundedQuantity = (order: StoredOrder, lineItemId: number): number =>
  quantityOf(order.refunds.flatMap((r) => r.lines), (l) => l.refundedItemId === lineItemId)

export const itemsTotalCents = (order: StoredOrder): number =>
  order.lineItems.reduce((sum, l) => sum + l.totalCents, 0) + order.shippingLines.reduce((sum, s) => sum + s.totalCents, 0)

export const refundedCents = (order: StoredOrder): number => order.refunds.reduce((sum, r) => sum + r.amountCents, 0)

/**
 * What stands between the client and WordPress: a host that strips the `Authorization` header (Apache
 * with CGI/FastCGI), and the site's home URL (`home_url('/')`, what webhooks name as their source),
 * which may differ from the address the REST API answers at; null: the same.
 */
export interface HostSettings {
  stripsAuthorization: boolean
  homeUrl: string | null
}

export interface OrderPatch {
  status?: string
  customer_note?: string
  billing?: Partial<Address>
  shipping?: Partial<Address>
  meta_data?: Array<{ key: string; value: unknown; id?: number }>
  line_items?: Array<{ id: number; meta_data?: Array<{ key: string; value: unknown }> }>
}

export const statusLabels: Record<OrderStatus, string> = {
  pending: "Pending payment",
  processing: "Processing",
  "on-hold": "On hold",
  completed: "Completed",
  cancelled: "Cancelled",
  refunded: "Refunded",
  failed: "Failed",
  trash: "Trash",
  "checkout-draft": "Draft"
}
