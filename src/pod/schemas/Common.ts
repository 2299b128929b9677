/**
 * Shapes shared by several POD API v3 operations: the envelope, paging,
 * addresses, options, error bodies. Response schemas are lenient where the
 * spec is vague (fields optional, integers that may come as strings) but
 * typed, and named exactly as the spec names the fields: decoding with
 * `onExcessProperty: "error"` is how the conformance test checks that.
 */
import { Schema } from "effect"
import { MoneyFromWire } from "../../domain/Money.js"
import * as E from "../../domain/PodEnums.js"
import { OpenEnum } from "./OpenEnum.js"

export { MoneyFromWire }

/** An integer the service may send as a JSON number or as a string (int64 in proto JSON). */
export const IntegerLike = Schema.Union(Schema.Int, Schema.NumberFromString.pipe(Schema.int()))
  .annotations({ identifier: "IntegerLike" })

/** An id the spec types as "integer or string"; kept as text. */
export const IdLike = Schema.Union(
  Schema.String,
  Schema.transform(Schema.Number, Schema.String, {
    strict: true,
    decode: (n) => String(n),
    encode: (s) => Number(s)
  })
).annotations({ identifier: "IdLike" })

/** Timestamps are RFC 3339 text on the wire; kept as text (the pipeline parses what it uses). */
export const Timestamp = Schema.String.annotations({ identifier: "Timestamp" })

/**
 * A field the response may omit or send as null (both read as absent).
 * Every response field is optional unless the client cannot work without it.
 */
export const opt = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true, nullable: true })

// Numbers as the published contract gives them (most enums start at 2; a few at 1).
/** A boolean of an answer: protobuf JSON leaves `false` out, so an absent flag is false. */
export const flag = Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false })

export const CreatedMethod = OpenEnum("created_method", E.CreatedMethods)
export const OrderStatus = OpenEnum("order_status", E.OrderStatuses)
export const PaymentStatus = OpenEnum("payment_status", E.PaymentStatuses)
export const DraftStatus = OpenEnum("draft_status", E.DraftStatuses)
export const RefundStatus = OpenEnum("refund_status", E.RefundStatuses)
export const CancelStatus = OpenEnum("cancel_status", E.CancelStatuses)
export const ShippingMethod = OpenEnum("shipping_method", E.ShippingMethods)
export const PrintLocationCode = OpenEnum("print_location_code", E.PrintLocationCodes, 1)
export const PurchaseTrackingTime = OpenEnum("purchase_tracking_time", E.PurchaseTrackingTimes, 1)
export const FulfillmentVendor = OpenEnum("fulfillment_vendor", E.FulfillmentVendors, E.FulfillmentVendorNumbers)
export const FulfillmentPriority = OpenEnum("fulfillment_priority", E.FulfillmentPriorities)
export const ShippingVerificationStatus = OpenEnum("shipping_verification_status", E.ShippingVerificationStatuses)
export const ProductMatchingStatus = OpenEnum("product_matching_status", E.ProductMatchingStatuses)
export const TrackingType = OpenEnum("tracking_type", E.TrackingTypes, 1)
export const OrderStockLabel = OpenEnum("stock_label", E.OrderStockLabels, 1)
export const CatalogStockLabel = OpenEnum("catalog_stock_label", E.CatalogStockLabels, 1)
export const WebhookStatus = OpenEnum("webhook_status", E.WebhookStatuses)
export const WebhookTopic = OpenEnum("webhook_topic", E.WebhookTopics)
export const WebhookVersion = OpenEnum("webhook_version", E.WebhookVersions)
export const MarketplacePlatform = OpenEnum("marketplace_platform", E.MarketplacePlatforms)
export const AddressType = OpenEnum("address_type", E.AddressTypes)
export const GiftMessageType = OpenEnum("gift_message_type", E.GiftMessageTypes, 1)
export const EnvelopeStatus = OpenEnum("envelope_status", E.EnvelopeStatuses, [])
export const FileStorageType = OpenEnum("file_storage_type", E.FileStorageTypes, 1)
export const OriginSalesChannel = OpenEnum("origin_sales_channel", E.OriginSalesChannels, 1)

export const Paging = Schema.Struct({
  total: opt(IntegerLike),
  total_page: opt(IntegerLike),
  page: opt(IntegerLike),
  limit: opt(IntegerLike)
}).annotations({ identifier: "Paging" })
export type Paging = typeof Paging.Type

/** `addresses[]` in responses: every field optional, the type an open enum. */
export const Address = Schema.Struct({
  first_name: opt(Schema.String),
  last_name: opt(Schema.String),
  company: opt(Schema.String),
  contact_pronoun: opt(Schema.String),
  street_1: opt(Schema.String),
  street_2: opt(Schema.String),
  state_code: opt(Schema.String),
  state_name: opt(Schema.String),
  city: opt(Schema.String),
  zip_code: opt(Schema.String),
  country_code: opt(Schema.String),
  country_name: opt(Schema.String),
  phone_no: opt(Schema.String),
  email: opt(Schema.String),
  type: opt(AddressType)
}).annotations({ identifier: "Address" })
export type Address = typeof Address.Type

export const BillingOption = Schema.Struct({
  ioss_number: opt(Schema.String),
  ioss_value: opt(MoneyFromWire),
  tax_number: opt(Schema.String),
  tax_value: opt(MoneyFromWire)
}).annotations({ identifier: "BillingOption" })
export type BillingOption = typeof BillingOption.Type

export const FulfillmentOption = Schema.Struct({
  purchase_tracking_config: opt(PurchaseTrackingTime)
}).annotations({ identifier: "FulfillmentOption" })

export const LineItemFulfillmentOption = Schema.Struct({
  barcode_url: opt(Schema.String)
}).annotations({ identifier: "LineItemFulfillmentOption" })

export const ShippingOption = Schema.Struct({
  method: opt(ShippingMethod)
}).annotations({ identifier: "ShippingOption" })

export const GiftMessage = Schema.Struct({
  order_id: opt(Schema.String),
  gift_message_id: opt(Schema.String),
  type: opt(GiftMessageType),
  content: opt(Schema.String),
  avatar_url: opt(Schema.String),
  gift_message_name: opt(Schema.String)
}).annotations({ identifier: "GiftMessage" })

/** `shipping_substitution`: the service sent the order by another method than asked (Economy as Standard). */
export const ShippingSubstitution = Schema.Struct({
  from: opt(Schema.String),
  to: opt(Schema.String),
  reason: opt(Schema.String)
}).annotations({ identifier: "ShippingSubstitution" })
export type ShippingSubstitution = typeof ShippingSubstitution.Type

/** The money of one line, as both order and draft lines carry it. */
export const LineMoneyFields = {
  item_price: opt(MoneyFromWire),
  line_tax: opt(MoneyFromWire),
  line_fee: opt(MoneyFromWire),
  line_discount: opt(MoneyFromWire),
  line_subtotal: opt(MoneyFromWire),
  line_total: opt(MoneyFromWire)
}

/** A printing option as responses carry it. */
export const PrintingOption = Schema.Struct({
  print_location_code: opt(PrintLocationCode),
  design_url: opt(Schema.String)
}).annotations({ identifier: "PrintingOption" })

export const PrintLocation = Schema.Struct({
  code: opt(Schema.String),
  name: opt(Schema.String),
  location_id: opt(IntegerLike)
}).annotations({ identifier: "PrintLocation" })

/** The v3 envelope around one object (`status` = error never gets this far: see EnvelopeHead). */
export const Envelope = <A, I, R>(data: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    status: opt(EnvelopeStatus),
    message: opt(Schema.String),
    data
  })

/**
 * The v3 envelope around one page of a list. Protobuf JSON leaves an empty
 * list out, so an answer with no matches has no `data`: it decodes as `[]`.
 */
export const ListEnvelope = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    status: opt(EnvelopeStatus),
    message: opt(Schema.String),
    data: Schema.optionalWith(Schema.Array(item), { nullable: true, default: (): ReadonlyArray<A> => [] }),
    paging: opt(Paging)
  })

/** What every envelope has, read first to tell `status = error` apart before the full decode. */
export const EnvelopeHead = Schema.Struct({
  status: opt(Schema.Union(Schema.String, Schema.Boolean)),
  message: opt(Schema.String)
})

/** Error body of 400/401/403/404/500. */
export const ErrorDetail = Schema.Struct({
  field: opt(Schema.String),
  issue: opt(Schema.String)
}).annotations({ identifier: "ErrorDetail" })

export const ErrorBody = Schema.Struct({
  code: opt(Schema.Union(Schema.String, Schema.Number)),
  message: opt(Schema.String),
  details: opt(Schema.Array(ErrorDetail)),
  /** Legacy v2 answers also carry the envelope and name the details `errors`. */
  status: opt(Schema.String),
  errors: opt(Schema.Array(ErrorDetail))
}).annotations({ identifier: "ErrorBody" })

/** Error body of 429: `{ "error": { "code": 429, "message": … } }`. */
export const RateLimitBody = Schema.Struct({
  error: Schema.Struct({
    code: opt(Schema.Union(Schema.Number, Schema.String)),
    message: opt(Schema.String)
  })
}).annotations({ identifier: "RateLimitBody" })

/** One page of a list operation, as the client returns it. */
export interface PodPage<A> {
  readonly data: ReadonlyArray<A>
  readonly paging: Paging | undefined
}

/** `paging.limit` / `paging.page` of every list operation (the simulator: default 20, max 100, first page 1). */
export interface PagingQuery {
  readonly limit?: number
  readonly page?: number
}
