/**
 * The parts of Etsy Open API v3 answers the connector reads (store-apis.md
 * §3.2–3.4), with Etsy's field names. Everything Etsy may send as null or
 * leave out is optional or nullable here; unknown fields are ignored (the raw
 * receipt is kept whole on the normalized order anyway).
 */
import { Schema } from "effect"

const Nullable = <A, I>(schema: Schema.Schema<A, I>) => Schema.optional(Schema.NullOr(schema))

/** `{amount, divisor, currency_code}`: the value is amount / divisor. */
export const EtsyMoney = Schema.Struct({
  amount: Schema.Number,
  divisor: Schema.Number,
  currency_code: Schema.String
})
export type EtsyMoney = typeof EtsyMoney.Type

export const EtsyVariation = Schema.Struct({
  property_id: Nullable(Schema.Number),
  value_id: Nullable(Schema.Number),
  formatted_name: Schema.String,
  formatted_value: Schema.String,
  /** Set when the variation is the buyer's answer to a personalisation question. */
  question_id: Nullable(Schema.Number)
})
export type EtsyVariation = typeof EtsyVariation.Type

export const EtsyTransaction = Schema.Struct({
  transaction_id: Schema.Number,
  title: Nullable(Schema.String),
  listing_id: Nullable(Schema.Number),
  product_id: Nullable(Schema.Number),
  sku: Nullable(Schema.String),
  quantity: Schema.Number,
  is_digital: Nullable(Schema.Boolean),
  shipping_method: Nullable(Schema.String),
  shipped_timestamp: Nullable(Schema.Number),
  variations: Nullable(Schema.Array(EtsyVariation))
})
export type EtsyTransaction = typeof EtsyTransaction.Type

export const EtsyShipment = Schema.Struct({
  receipt_shipping_id: Nullable(Schema.Number),
  shipment_notification_timestamp: Nullable(Schema.Number),
  carrier_name: Nullable(Schema.String),
  tracking_code: Nullable(Schema.String)
})
export type EtsyShipment = typeof EtsyShipment.Type

export const EtsyReceipt = Schema.Struct({
  receipt_id: Schema.Number,
  status: Nullable(Schema.String),
  is_paid: Schema.Boolean,
  is_shipped: Schema.Boolean,
  buyer_email: Nullable(Schema.String),
  name: Nullable(Schema.String),
  first_line: Nullable(Schema.String),
  second_line: Nullable(Schema.String),
  city: Nullable(Schema.String),
  state: Nullable(Schema.String),
  zip: Nullable(Schema.String),
  country_iso: Nullable(Schema.String),
  message_from_buyer: Nullable(Schema.String),
  is_gift: Nullable(Schema.Boolean),
  gift_message: Nullable(Schema.String),
  // Etsy sends both spellings; either may be the one present.
  create_timestamp: Nullable(Schema.Number),
  created_timestamp: Nullable(Schema.Number),
  update_timestamp: Nullable(Schema.Number),
  updated_timestamp: Nullable(Schema.Number),
  grandtotal: Nullable(EtsyMoney),
  shipments: Nullable(Schema.Array(EtsyShipment)),
  transactions: Nullable(Schema.Array(EtsyTransaction))
})
export type EtsyReceipt = typeof EtsyReceipt.Type

/** Enough of a receipt to place it in a walk, even when the rest cannot be read. */
export const EtsyReceiptIdentity = Schema.Struct({
  receipt_id: Schema.Number,
  update_timestamp: Nullable(Schema.Number),
  updated_timestamp: Nullable(Schema.Number)
})

export const EtsyReceiptList = Schema.Struct({
  count: Schema.Number,
  results: Schema.Array(Schema.Unknown)
})

export const EtsyTokenAnswer = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.optional(Schema.String),
  expires_in: Schema.Number,
  refresh_token: Schema.optional(Schema.String)
})

export const EtsyErrorBody = Schema.Struct({
  error: Schema.String,
  error_description: Schema.optional(Schema.String)
})

export const updatedSecondsOf = (receipt: {
  readonly update_timestamp?: number | null | undefined
  readonly updated_timestamp?: number | null | undefined
}): number | undefined => receipt.updated_timestamp ?? receipt.update_timestamp ?? undefined
