/**
 * What the Etsy simulator stores: receipts as Etsy models them (store-apis.md §3.2), in plain text (the
 * HTML-entity encoding Etsy applies to text is done on the way out, in views.ts), with timestamps in
 * Unix seconds.
 */

export interface EtsyMoney {
  readonly amount: number
  readonly divisor: number
  readonly currency_code: string
}

export const money = (cents: number, currency: string): EtsyMoney => ({ amount: cents, divisor: 100, currency_code: currency })

export const receiptStatuses = [
  "paid",
  "completed",
  "open",
  "payment processing",
  "canceled",
  "fully refunded",
  "partially refunded"
] as const
export type ReceiptStatus = (typeof receiptStatuses)[number]

export interface StoredVariation {
  property_id: number
  value_id: number | null
  formatted_name: string
  formatted_value: string
  /** Set for buyer personalisation answers. */
  question_id?: number | null
}

export interface StoredTransaction {
  transaction_id: number
  title: string
  listing_id: number
  product_id: number
  sku: string | null
  quantity: number
  /** Unit price, in cents of the receipt currency. */
  priceCents: number
  shippingCents: number
  is_digital: boolean
  shipping_method: string | null
  variations: StoredVariation[]
  create_timestamp: number
  paid_timestamp: number | null
  shipped_timestamp: number | null
  expected_ship_date: number
}

export interface StoredShipment {
  receipt_shipping_id: number
  shipment_notification_timestamp: number
  carrier_name: string | null
  tracking_code: string | null
}

export interface StoredRefund {
  amountCents: number
  created_timestamp: number
  reason: string
  note_from_issuer: string | null
  status: string
}

/** Address fields exactly as Etsy names them; the lines null when withheld (no partnership in the buyer's region), the name never. */
export interface AddressFields {
  name: string | null
  first_line: string | null
  second_line: string | null
  city: string | null
  state: string | null
  zip: string | null
  country_iso: string | null
}

/** An email Etsy sent the buyer about a shipment (the simulator records it): what the buyer read. */
export interface StoredBuyerEmail {
  readonly at: number
  readonly carrier_name: string | null
  readonly tracking_code: string | null
  /** The link Etsy put in the email: a carrier it knows gets one, `other` none. */
  readonly tracking_link: string | null
  readonly note_to_buyer: string | null
}

export interface StoredReceipt extends AddressFields {
  receipt_id: number
  receipt_type: number
  seller_user_id: number
  buyer_user_id: number
  buyer_email: string
  status: ReceiptStatus
  is_paid: boolean
  is_shipped: boolean
  is_gift: boolean
  gift_message: string
  message_from_buyer: string
  payment_method: string
  create_timestamp: number
  update_timestamp: number
  currency: string
  discountCents: number
  taxCents: number
  vatCents: number
  transactions: StoredTransaction[]
  shipments: StoredShipment[]
  refunds: StoredRefund[]
  buyerEmails: StoredBuyerEmail[]
  /** When set, createReceiptShipment on this receipt is refused 403 with this message (one receipt, not the app). */
  shipmentRefusal: string | null
}

export const subtotalCents = (r: StoredReceipt): number => r.transactions.reduce((sum, t) => sum + t.priceCents * t.quantity, 0)
export const shippingCents = (r: StoredReceipt): number => r.transactions.reduce((sum, t) => sum + t.shippingCents, 0)
export const grandtotalCents = (r: StoredReceipt): number => subtotalCents(r) - r.discountCents + shippingCents(r) + r.taxCents + r.vatCents

export const isCanceled = (r: StoredReceipt): boolean => r.status === "canceled"
