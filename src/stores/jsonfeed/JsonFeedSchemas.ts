/**
 * The contract's JSON (docs/jsonfeed.md §3–§7) as podsync reads it. Lenient
 * where leniency costs nothing: `null` counts as absent for optional fields,
 * ids may be numbers (read as their decimal text), unknown fields are
 * ignored. Strict where a guess would be wrong: ids, timestamps, quantities.
 */
import { Schema } from "effect"

/** An id: non-empty text, or a whole number read as its decimal text. */
export const IdText = Schema.Union(
  Schema.NonEmptyTrimmedString,
  Schema.transform(Schema.Int, Schema.String, { strict: true, decode: (n) => String(n), encode: (s) => Number(s) })
)

const optionalNullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(Schema.NullOr(schema))
const Text = optionalNullable(Schema.String)
const Count = Schema.Int.pipe(Schema.nonNegative())

export const JsonFeedAttribute = Schema.Struct({ key: Schema.String, value: Schema.NullOr(Schema.String) })
export type JsonFeedAttribute = typeof JsonFeedAttribute.Type

export const JsonFeedAddress = Schema.Struct({
  name: Text,
  first_name: Text,
  last_name: Text,
  company: Text,
  line1: Text,
  line2: Text,
  city: Text,
  region: Text,
  region_code: Text,
  postal_code: Text,
  country_code: Text,
  country: Text,
  phone: Text
})
export type JsonFeedAddress = typeof JsonFeedAddress.Type

export const JsonFeedLine = Schema.Struct({
  id: IdText,
  title: Schema.String,
  quantity: Count,
  current_quantity: optionalNullable(Count),
  fulfilled_quantity: optionalNullable(Count),
  sku: Text,
  variant_id: optionalNullable(IdText),
  product_id: optionalNullable(IdText),
  variant_title: Text,
  requires_shipping: optionalNullable(Schema.Boolean),
  unit_price: optionalNullable(Schema.Union(Schema.String, Schema.Number)),
  attributes: optionalNullable(Schema.Array(JsonFeedAttribute))
})
export type JsonFeedLine = typeof JsonFeedLine.Type

export const JsonFeedOrder = Schema.Struct({
  id: IdText,
  name: Text,
  created_at: Schema.String,
  updated_at: Schema.String,
  currency: Schema.String,
  financial_status: Schema.String,
  fulfillment_status: Text,
  cancelled_at: Text,
  cancel_reason: Text,
  holds: optionalNullable(Schema.Array(Schema.Struct({ id: IdText, reason: Text }))),
  email: Text,
  ship_to: optionalNullable(JsonFeedAddress),
  shipping_method: optionalNullable(Schema.Struct({ title: Schema.String, code: Text })),
  lines: Schema.Array(JsonFeedLine),
  note: Text,
  tags: optionalNullable(Schema.Array(Schema.String)),
  attributes: optionalNullable(Schema.Array(JsonFeedAttribute)),
  total: optionalNullable(Schema.Union(Schema.String, Schema.Number))
})
export type JsonFeedOrder = typeof JsonFeedOrder.Type

export const decodeJsonFeedOrder = Schema.decodeUnknownEither(JsonFeedOrder)

/** A page of `GET <base>/orders`; orders are decoded one by one so one bad order spoils nothing else. */
export const JsonFeedOrdersPage = Schema.Struct({
  orders: Schema.Array(Schema.Unknown),
  next_cursor: Text,
  upper_bound: Text
})

export const JsonFeedFulfillment = Schema.Struct({
  id: IdText,
  status: Text,
  lines: optionalNullable(Schema.Array(Schema.Struct({ line_id: IdText, quantity: Count }))),
  tracking: optionalNullable(Schema.Struct({ company: Text, number: Text, url: Text })),
  notify_customer: optionalNullable(Schema.Boolean),
  idempotency_key: Text
})
export type JsonFeedFulfillment = typeof JsonFeedFulfillment.Type

export const JsonFeedFulfillmentList = Schema.Struct({ fulfillments: Schema.Array(JsonFeedFulfillment) })

export const JsonFeedErrorBody = Schema.Struct({
  error: Schema.Struct({ code: Schema.String, message: Text })
})

/** docs/jsonfeed.md §8: the signed body of a webhook delivery. */
export const JsonFeedWebhookEnvelope = Schema.Struct({
  delivery_id: Schema.NonEmptyTrimmedString,
  timestamp: Schema.Int,
  type: Schema.NonEmptyTrimmedString,
  order_id: optionalNullable(IdText),
  updated_at: Text
})
export type JsonFeedWebhookEnvelope = typeof JsonFeedWebhookEnvelope.Type
