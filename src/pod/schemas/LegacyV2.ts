/**
 * Legacy v2 operations (compatibility layer): flat field names, credentials
 * (`api_key`, `api_signature`) in the body, amounts as JSON numbers. The
 * client adds the credentials; these bodies are what the caller supplies.
 */
import { Either, Schema } from "effect"
import * as Money from "../../domain/Money.js"
import { EnvelopeStatus, opt } from "./Common.js"

const optional = Schema.optional
const Text = Schema.String
const Num = Schema.Number
/** Fields the spec names without a type: a string or a number, as sent. */
const Scalar = Schema.Union(Schema.String, Schema.Number, Schema.Boolean)

const ShippingFields = {
  shipping_email: optional(Text),
  shipping_name: optional(Text),
  shipping_phone: optional(Text),
  shipping_company_name: optional(Text),
  shipping_address1: optional(Text),
  shipping_address2: optional(Text),
  shipping_province_code: optional(Text),
  shipping_city: optional(Text),
  shipping_zipcode: optional(Text),
  shipping_country_code: optional(Text),
  shipping_method: optional(Schema.Int)
}

export const PriceV2Input = Schema.Struct({
  store_id: optional(Text),
  ...ShippingFields,
  line_items: Schema.Array(
    Schema.Struct({
      variant_id: Schema.Int,
      quantity: Schema.Int.pipe(Schema.between(1, 1000)),
      side: optional(Text),
      design_link: optional(Text),
      design_link_back: optional(Text)
    })
  ).pipe(Schema.minItems(1), Schema.maxItems(1000))
}).annotations({ identifier: "PriceV2Input" })
export type PriceV2Input = typeof PriceV2Input.Type

export const DraftLineItemV2 = Schema.Struct({
  variant_id: Schema.Int,
  product_name: optional(Text),
  product_style: optional(Text),
  product_sku: optional(Text),
  quantity: Schema.Int.pipe(Schema.between(1, 1000)),
  barcode_link: optional(Text),
  designs: optional(
    Schema.Struct({
      front: optional(Text),
      pocket: optional(Text),
      back: optional(Text),
      whole: optional(Text),
      left_sleeve: optional(Text),
      right_sleeve: optional(Text)
    })
  )
}).annotations({ identifier: "DraftLineItemV2" })

const DraftLinesV2 = Schema.Array(DraftLineItemV2).pipe(Schema.minItems(1), Schema.maxItems(1000))

export const DraftV2Input = Schema.Struct({
  order_id: optional(Schema.Union(Text, Num)),
  external_id: optional(Text),
  store_id: Text,
  agree_at_risk: optional(Schema.Boolean),
  ...ShippingFields,
  gift_message_body: optional(Text.pipe(Schema.maxLength(1000))),
  ioss_number: optional(Text),
  ioss_number_total: optional(Num),
  tax_number: optional(Text),
  order_tax_number: optional(Num),
  line_items: DraftLinesV2
}).annotations({ identifier: "DraftV2Input" })
export type DraftV2Input = typeof DraftV2Input.Type

export const LabeledDraftV2Input = Schema.Struct({
  order_id: optional(Schema.Union(Text, Num)),
  store_id: Text,
  agree_at_risk: optional(Schema.Boolean),
  shipping_service_type: optional(Text),
  shipping_label_link: Text,
  gift_message_body: optional(Text.pipe(Schema.maxLength(1000))),
  line_items: DraftLinesV2
}).annotations({ identifier: "LabeledDraftV2Input" })
export type LabeledDraftV2Input = typeof LabeledDraftV2Input.Type

export const LineItemsV2Input = Schema.Struct({
  order_id: Schema.Int,
  line_items: Schema.Array(
    Schema.Struct({
      order_item_id: Schema.Union(Text, Num),
      variant_id: optional(Schema.Int),
      quantity: optional(Schema.Int.pipe(Schema.between(1, 1000))),
      design_link: optional(Text),
      design_link_back: optional(Text)
    })
  ).pipe(Schema.minItems(1), Schema.maxItems(1000))
}).annotations({ identifier: "LineItemsV2Input" })
export type LineItemsV2Input = typeof LineItemsV2Input.Type

const V2Envelope = { status: opt(EnvelopeStatus), message: opt(Text) }

export const PriceV2 = Schema.Struct({
  total: opt(Num),
  sub_total: opt(Num),
  tax: opt(Num),
  shipping_fee: opt(Num),
  gift_message_fee: opt(Num),
  handle_fee: opt(Num),
  total_discount: opt(Num),
  currency: opt(Text)
}).annotations({ identifier: "PriceV2" })
export type PriceV2 = typeof PriceV2.Type
export const PriceV2Response = Schema.Struct({ ...V2Envelope, data: PriceV2 })

export const DraftV2Result = Schema.Struct({ id: Schema.Int, name: opt(Text) }).annotations({ identifier: "DraftV2Result" })
export const DraftV2Response = Schema.Struct({ ...V2Envelope, result: DraftV2Result })

export const LineItemsV2Response = Schema.Struct({
  ...V2Envelope,
  result: Schema.Struct({ id: Schema.Int })
})

export const OrderV2 = Schema.Struct({
  ord_id: Schema.Union(Schema.Int, Text),
  order_number: opt(Scalar),
  external_id: opt(Scalar),
  ord_time: opt(Scalar),
  ord_payment_at: opt(Scalar),
  ord_subtotal: opt(Scalar),
  ord_fee_shipping: opt(Scalar),
  ord_tax: opt(Scalar),
  ord_total: opt(Scalar),
  verify_address: opt(Scalar),
  fulfillment_notes: opt(Scalar),
  ord_status: opt(Scalar),
  ord_completed_time: opt(Scalar),
  is_approve: opt(Scalar),
  ord_archive: opt(Scalar),
  ord_payment_status: opt(Scalar),
  ord_ioss_number: opt(Scalar),
  ord_ioss_number_total: opt(Scalar),
  /** Shape not given by the spec. */
  trackings: opt(Schema.Unknown),
  /** Item shape not given by the spec. */
  items: opt(Schema.Array(Schema.Unknown))
}).annotations({ identifier: "OrderV2" })
export type OrderV2 = typeof OrderV2.Type
export const OrderV2Response = Schema.Struct({ ...V2Envelope, result: OrderV2 })

/**
 * A v2 amount (a JSON number of whole units) as exact Money: read to nine
 * decimals, the precision Money keeps, so 12.3 becomes exactly 12.300000000.
 */
export const legacyAmount = (currency: string, amount: number): Either.Either<Money.Money, Money.InvalidMoneyError> =>
  Number.isFinite(amount)
    ? Money.fromDecimalString(currency, amount.toFixed(9))
    : Either.left(new Money.InvalidMoneyError({ reason: `amount ${amount} is not finite` }))
