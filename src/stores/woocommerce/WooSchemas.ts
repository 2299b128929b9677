/**
 * Schemas of what the connector reads from WooCommerce REST v3 and the Shipment Tracking extension,
 * with their field names. Only the fields podsync uses are declared (the rest is kept in `raw`);
 * fields that plugins or older versions leave out or null are optional / nullable.
 */
import { Schema } from "effect"

/** Ids and quantities are integers; some plugins send them as numeric strings. */
const IntLike = Schema.Union(Schema.Int, Schema.NumberFromString.pipe(Schema.int()))

/** A text field that may be absent, null or a number in the wild; read as a string when present. */
const Text = Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number)))

export const WooMeta = Schema.Struct({
  id: Schema.optional(Schema.Unknown),
  key: Schema.String,
  value: Schema.Unknown,
  display_key: Schema.optional(Schema.Unknown),
  display_value: Schema.optional(Schema.Unknown)
})
export type WooMeta = typeof WooMeta.Type

export const WooAddress = Schema.Struct({
  first_name: Text,
  last_name: Text,
  company: Text,
  address_1: Text,
  address_2: Text,
  city: Text,
  state: Text,
  postcode: Text,
  country: Text,
  email: Text,
  phone: Text
})
export type WooAddress = typeof WooAddress.Type

export const WooLineItem = Schema.Struct({
  id: IntLike,
  name: Schema.String,
  product_id: Schema.optional(Schema.NullOr(IntLike)),
  variation_id: Schema.optional(Schema.NullOr(IntLike)),
  quantity: IntLike,
  sku: Text,
  parent_name: Schema.optional(Schema.NullOr(Schema.String)),
  meta_data: Schema.optionalWith(Schema.Array(WooMeta), { default: () => [] })
})
export type WooLineItem = typeof WooLineItem.Type

export const WooShippingLine = Schema.Struct({
  method_title: Schema.String,
  method_id: Text
})

/** A refund line from `/orders/<id>/refunds`: negative quantity, `_refunded_item_id` in its meta. */
export const WooRefundLine = Schema.Struct({
  id: IntLike,
  quantity: IntLike,
  meta_data: Schema.optionalWith(Schema.Array(WooMeta), { default: () => [] })
})
export type WooRefundLine = typeof WooRefundLine.Type

/** An order's `refunds[]` entry; `line_items` is merged in by the connector from `/refunds`. */
export const WooRefundSummary = Schema.Struct({
  id: IntLike,
  reason: Schema.optional(Schema.NullOr(Schema.String)),
  total: Schema.optional(Schema.String),
  line_items: Schema.optional(Schema.Array(WooRefundLine))
})

export const WooOrder = Schema.Struct({
  id: IntLike,
  number: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  status: Schema.String,
  currency: Schema.String,
  date_created_gmt: Schema.String,
  date_modified_gmt: Schema.String,
  date_paid_gmt: Schema.optional(Schema.NullOr(Schema.String)),
  date_completed_gmt: Schema.optional(Schema.NullOr(Schema.String)),
  customer_note: Schema.optional(Schema.NullOr(Schema.String)),
  billing: Schema.optionalWith(WooAddress, { default: () => ({}) }),
  shipping: Schema.optionalWith(WooAddress, { default: () => ({}) }),
  total: Schema.optional(Schema.String),
  meta_data: Schema.optionalWith(Schema.Array(WooMeta), { default: () => [] }),
  line_items: Schema.Array(WooLineItem),
  shipping_lines: Schema.optionalWith(Schema.Array(WooShippingLine), { default: () => [] }),
  refunds: Schema.optionalWith(Schema.Array(WooRefundSummary), { default: () => [] })
})
export type WooOrder = typeof WooOrder.Type

export const WooRefund = Schema.Struct({
  id: IntLike,
  line_items: Schema.optionalWith(Schema.Array(WooRefundLine), { default: () => [] })
})
export const WooRefunds = Schema.Array(WooRefund)

export const WooNote = Schema.Struct({
  id: IntLike,
  note: Schema.String,
  customer_note: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export type WooNote = typeof WooNote.Type
export const WooNotes = Schema.Array(WooNote)

export const WooTrackingItem = Schema.Struct({
  tracking_id: Schema.String,
  tracking_number: Schema.String,
  tracking_provider: Schema.optional(Schema.NullOr(Schema.String)),
  tracking_link: Schema.optional(Schema.NullOr(Schema.String))
})
export type WooTrackingItem = typeof WooTrackingItem.Type
export const WooTrackingItems = Schema.Array(WooTrackingItem)

/** `/orders/<id>/shipment-trackings/providers`: `{ "<country>": { "<provider name>": "<link template>" } }`. */
export const WooProviders = Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.String }) })

/** Our own record of pushed packages, kept in the order meta `_podsync_shipments`. */
export const PodsyncPackage = Schema.Struct({
  number: Schema.String,
  company: Schema.String,
  url: Schema.optional(Schema.String),
  lines: Schema.Array(Schema.Struct({ lineId: Schema.String, quantity: Schema.Int })),
  /** Shipment Tracking item id or order note id that carries the tracking. */
  trackingRecordId: Schema.optional(Schema.String)
})
export type PodsyncPackage = typeof PodsyncPackage.Type
export const PodsyncPackages = Schema.Array(PodsyncPackage)
