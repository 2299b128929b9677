/** Orders (GET /api/v3/orders, GET /api/v3/orders/{order_id}). List items carry a subset of the fields. */
import { Schema } from "effect"
import type * as E from "../../domain/PodEnums.js"
import {
  Address,
  BillingOption,
  CancelStatus,
  CreatedMethod,
  Envelope,
  flag,
  FileStorageType,
  FulfillmentOption,
  FulfillmentPriority,
  FulfillmentVendor,
  GiftMessage,
  IdLike,
  IntegerLike,
  LineItemFulfillmentOption,
  LineMoneyFields,
  ListEnvelope,
  MarketplacePlatform,
  MoneyFromWire,
  opt,
  OrderStatus,
  OrderStockLabel,
  OriginSalesChannel,
  PaymentStatus,
  PrintingOption,
  RefundStatus,
  ShippingOption,
  ShippingSubstitution,
  Timestamp,
  TrackingType,
  type PagingQuery
} from "./Common.js"

/** The `variant` object of an order line item in list results. */
export const OrderLineItemVariant = Schema.Struct({
  variant_id: opt(Schema.String),
  variant_name: opt(Schema.String),
  legacy_id: opt(IdLike),
  sku: opt(Schema.String),
  name: opt(Schema.String),
  description: opt(Schema.String),
  option_1: opt(Schema.String),
  option_2: opt(Schema.String),
  option_3: opt(Schema.String),
  option_1_name: opt(Schema.String),
  option_2_name: opt(Schema.String),
  option_3_name: opt(Schema.String),
  stock_label: opt(OrderStockLabel)
}).annotations({ identifier: "OrderLineItemVariant" })

/** An order line item as a whole-order read carries it (`VendorOrderLineItem`); the spec's list-only `variant` is accepted too. */
export const OrderLineItem = Schema.Struct({
  id: opt(IdLike),
  line_item_id: opt(Schema.String),
  order_id: opt(Schema.String),
  variant_id: opt(Schema.String),
  quantity: opt(IntegerLike),
  printing_options: opt(Schema.Array(PrintingOption)),
  seller_variant_id: opt(Schema.String),
  product_id: opt(Schema.String),
  product_name: opt(Schema.String),
  product_url: opt(Schema.String),
  product_sku: opt(Schema.String),
  variant_sku: opt(Schema.String),
  variant_name: opt(Schema.String),
  product_type_name: opt(Schema.String),
  option_1: opt(Schema.String),
  option_2: opt(Schema.String),
  ...LineMoneyFields,
  fulfillment_option: opt(LineItemFulfillmentOption),
  variant: opt(OrderLineItemVariant)
}).annotations({ identifier: "OrderLineItem" })
export type OrderLineItem = typeof OrderLineItem.Type

/**
 * An order line item as a list item carries it (`VendorOrderLineItem.Short`):
 * the variant in a `variant` object, no `variant_id`/`variant_sku` of its own.
 */
export const OrderListLineItem = OrderLineItem.pick(
  "id",
  "line_item_id",
  "order_id",
  "quantity",
  "printing_options",
  "seller_variant_id",
  "product_id",
  "product_name",
  "product_url",
  "product_sku",
  "item_price",
  "line_tax",
  "line_fee",
  "line_discount",
  "line_subtotal",
  "line_total",
  "fulfillment_option",
  "variant"
).annotations({ identifier: "OrderListLineItem" })
export type OrderListLineItem = typeof OrderListLineItem.Type

export const OrderStage = Schema.Struct({
  stage_id: opt(IdLike),
  stage_name: opt(Schema.String),
  stage_started_at: opt(Timestamp),
  stage_completed_at: opt(Timestamp),
  is_completed: flag
}).annotations({ identifier: "OrderStage" })

export const LabelFile = Schema.Struct({
  file_name: opt(Schema.String),
  file_path: opt(Schema.String),
  file_url: opt(Schema.String),
  file_id: opt(IdLike),
  storage_type: opt(FileStorageType)
}).annotations({ identifier: "LabelFile" })

export const OrderTracking = Schema.Struct({
  tracking_no: opt(Schema.String),
  tracking_updated_at: opt(Timestamp),
  carrier: opt(Schema.String),
  service: opt(Schema.String),
  /** Deprecated by the spec: use `tracking_type`. */
  type: opt(Schema.String),
  tracking_type: opt(TrackingType),
  tracking_url: opt(Schema.String),
  label_file: opt(LabelFile)
}).annotations({ identifier: "OrderTracking" })
export type OrderTracking = typeof OrderTracking.Type

export const InvoiceDetail = Schema.Struct({
  invoice_id: opt(IdLike),
  order_id: opt(Schema.String),
  variant_name: opt(Schema.String),
  quantity: opt(IntegerLike),
  shipping_service: opt(Schema.String),
  tracking_number: opt(Schema.String),
  product_image_url: opt(Schema.String),
  line_total: opt(MoneyFromWire)
}).annotations({ identifier: "InvoiceDetail" })

export const TransactionInfo = Schema.Struct({
  txn_id: opt(IdLike),
  team_id: opt(Schema.String),
  method_code: opt(Schema.String),
  method_icon_urls: opt(Schema.Union(Schema.Array(Schema.String), Schema.String)),
  list_invoice_detail: opt(Schema.Array(InvoiceDetail))
}).annotations({ identifier: "TransactionInfo" })

export const OrderRefund = Schema.Struct({
  refund_request_id: opt(Schema.String),
  order_refund_id: opt(Schema.String),
  type: opt(Schema.Union(Schema.String, Schema.Number)),
  amount: opt(MoneyFromWire),
  transaction_id: opt(Schema.String),
  transaction_ref: opt(Schema.String),
  status: opt(Schema.Union(Schema.String, Schema.Number)),
  reasons: opt(Schema.Array(Schema.Unknown)),
  created_at: opt(Timestamp),
  updated_at: opt(Timestamp),
  expired_at: opt(Timestamp)
}).annotations({ identifier: "OrderRefund" })

export const CancelReason = Schema.Struct({
  reason_id: opt(IdLike),
  display_name: opt(Schema.String),
  custom_reason: opt(Schema.String)
}).annotations({ identifier: "CancelReason" })

/**
 * A whole order (`VendorOrder`, GET /api/v3/orders/{order_id}): every package
 * in `order_trackings`, the primary one in `tracking_no`. The spec's list-item
 * fields (`tracking_link`, …) are accepted too.
 */
export const Order = Schema.Struct({
  order_id: Schema.String,
  store_id: opt(Schema.String),
  store_name: opt(Schema.String),
  team_id: opt(Schema.String),
  created_method: opt(CreatedMethod),
  order_platform: opt(MarketplacePlatform),
  /** Deprecated by the spec, to be removed. */
  platform_ref: opt(Schema.String),
  fulfillment_vendor: opt(FulfillmentVendor),
  priority: opt(FulfillmentPriority),
  vendor_ref: opt(Schema.String),
  fulfillment_option: opt(FulfillmentOption),
  shipping_option: opt(ShippingOption),
  billing_option: opt(BillingOption),
  shipping_labels: opt(Schema.Array(Schema.String)),
  order_date: opt(Timestamp),
  approved_at: opt(Timestamp),
  paid_at: opt(Timestamp),
  created_at: opt(Timestamp),
  updated_at: opt(Timestamp),
  shipped_at: opt(Timestamp),
  order_status: opt(OrderStatus),
  payment_status: opt(PaymentStatus),
  primary_package_id: opt(Schema.String),
  primary_shipment_id: opt(Schema.String),
  is_label_attached: flag,
  order_subtotal: opt(MoneyFromWire),
  order_tax: opt(MoneyFromWire),
  order_fee: opt(MoneyFromWire),
  order_discount: opt(MoneyFromWire),
  order_total: opt(MoneyFromWire),
  order_redeem: opt(MoneyFromWire),
  paid_total: opt(MoneyFromWire),
  paid_needed: opt(MoneyFromWire),
  order_gift_message_fee: opt(MoneyFromWire),
  order_shipping_fee: opt(MoneyFromWire),
  order_handle_fee: opt(MoneyFromWire),
  order_surcharge: opt(MoneyFromWire),
  order_rush_fee: opt(MoneyFromWire),
  order_thank_card_fee: opt(MoneyFromWire),
  refunded_total: opt(MoneyFromWire),
  tracking_no: opt(Schema.String),
  tracking_link: opt(Schema.String),
  tracking_company: opt(Schema.String),
  tracking_product_type: opt(Schema.String),
  tracking_date_created: opt(Schema.String),
  tracking_type: opt(Schema.String),
  line_items: opt(Schema.Array(OrderLineItem)),
  addresses: opt(Schema.Array(Address)),
  stages: opt(Schema.Array(OrderStage)),
  order_trackings: opt(Schema.Array(OrderTracking)),
  gift_messages: opt(Schema.Array(GiftMessage)),
  refund_status: opt(RefundStatus),
  cancel_status: opt(CancelStatus),
  order_priority: opt(Schema.String),
  transaction_info: opt(TransactionInfo),
  cancel_reason: opt(CancelReason),
  legacy_external_id: opt(Schema.String),
  reference_id: opt(Schema.String),
  refunds: opt(Schema.Array(OrderRefund)),
  origin_sales_channel: opt(OriginSalesChannel),
  shipping_substitution: opt(ShippingSubstitution)
}).annotations({ identifier: "Order" })
export type Order = typeof Order.Type

/**
 * An order as a list item carries it (`VendorOrder.Short`): no `created_at`,
 * no `order_trackings`; the primary tracking as `tracking_number` (the spec's
 * `tracking_no` is accepted too) with its `tracking_*` companions.
 */
export const OrderListItem = Schema.Struct({
  ...Order.pick(
    "order_id",
    "store_id",
    "store_name",
    "team_id",
    "created_method",
    "order_platform",
    "platform_ref",
    "shipping_labels",
    "order_date",
    "approved_at",
    "paid_at",
    "order_status",
    "order_subtotal",
    "order_shipping_fee",
    "order_gift_message_fee",
    "order_tax",
    "order_total",
    "fulfillment_option",
    "shipping_option",
    "billing_option",
    "tracking_no",
    "tracking_link",
    "tracking_company",
    "tracking_product_type",
    "tracking_type",
    "payment_status",
    "shipped_at",
    "legacy_external_id",
    "reference_id",
    "gift_messages",
    "addresses",
    "order_handle_fee",
    "order_rush_fee",
    "order_surcharge",
    "origin_sales_channel",
    "shipping_substitution"
  ).fields,
  tracking_number: opt(Schema.String),
  tracking_date_created: opt(Timestamp),
  line_items: opt(Schema.Array(OrderListLineItem))
}).annotations({ identifier: "OrderListItem" })
export type OrderListItem = typeof OrderListItem.Type

export const OrderListResponse = ListEnvelope(OrderListItem)

/**
 * What following an order needs of it, from either form: its status and trackings (a list item
 * carries the primary tracking, a whole-order read all of them). Reconciliation lists hundreds of
 * orders a call; decoding only these fields (the rest is ignored, even in strict decoding) keeps
 * that cheap. `order_date` (when the draft was made) orders duplicates: list items have no `created_at`.
 */
export const OrderProgress = Schema.Struct({
  ...Order.pick(
    "order_id",
    "reference_id",
    "order_date",
    "order_status",
    "tracking_no",
    "tracking_link",
    "tracking_company",
    "order_trackings",
    "shipping_substitution"
  ).fields,
  tracking_number: opt(Schema.String)
})
export type OrderProgress = typeof OrderProgress.Type
export const OrderProgressListResponse = ListEnvelope(OrderProgress)
export const OrderResponse = Envelope(Order)

/** The primary tracking number of either form: `tracking_number` (published list items) or `tracking_no`. */
export const primaryTrackingNumber = (
  order: { readonly tracking_number?: string | undefined; readonly tracking_no?: string | undefined }
): string | undefined => order.tracking_number || order.tracking_no || undefined

/** Query of GET /api/v3/orders; `reference_ids` is the real service's filter (ARCHITECTURE.md). */
export interface OrderQuery {
  readonly filter?: {
    readonly created_at_min?: string
    readonly created_methods?: ReadonlyArray<E.CreatedMethod>
    readonly order_ids?: ReadonlyArray<string>
    readonly payment_status?: ReadonlyArray<E.PaymentStatus>
    readonly statuses?: ReadonlyArray<E.OrderStatus>
    readonly reference_ids?: ReadonlyArray<string>
  }
  readonly paging?: PagingQuery
}
