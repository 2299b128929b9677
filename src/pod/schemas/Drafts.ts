/** Order drafts as the service returns them (list, get, create, labeled create, patch, approve). */
import { Schema } from "effect"
import type * as E from "../../domain/PodEnums.js"
import {
  Address,
  BillingOption,
  CreatedMethod,
  DraftStatus,
  Envelope,
  flag,
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
  OrderStockLabel,
  PrintingOption,
  PrintLocation,
  ProductMatchingStatus,
  OriginSalesChannel,
  ShippingOption,
  ShippingSubstitution,
  ShippingVerificationStatus,
  Timestamp,
  type PagingQuery
} from "./Common.js"

export const DraftImage = Schema.Struct({
  url: opt(Schema.String),
  tag: opt(Schema.String)
}).annotations({ identifier: "DraftImage" })

/** Marketplace selections of a line item. */
export const OriginOption = Schema.Struct({
  name: opt(Schema.String),
  key: opt(Schema.String),
  value: opt(Schema.String)
}).annotations({ identifier: "OriginOption" })

export const DraftLineItemVariant = Schema.Struct({
  variant_id: opt(Schema.String),
  legacy_id: opt(IdLike),
  sku: opt(Schema.String),
  name: opt(Schema.String),
  description: opt(Schema.String),
  option_1: opt(Schema.String),
  option_2: opt(Schema.String),
  option_3: opt(Schema.String),
  option_1_name: opt(Schema.String),
  option_2_name: opt(Schema.String),
  price: opt(MoneyFromWire),
  /** Internal price. */
  price_gm: opt(MoneyFromWire),
  images: opt(Schema.Array(DraftImage)),
  stock_label: opt(OrderStockLabel)
}).annotations({ identifier: "DraftLineItemVariant" })

export const DraftLineItemProduct = Schema.Struct({
  product_id: opt(Schema.String),
  name: opt(Schema.String),
  description: opt(Schema.String),
  /** The spec gives no shape: image objects like the variant's, or plain URLs. */
  images: opt(Schema.Array(Schema.Union(DraftImage, Schema.String))),
  print_locations: opt(Schema.Array(PrintLocation)),
  sku: opt(Schema.String)
}).annotations({ identifier: "DraftLineItemProduct" })

/** A draft line as a whole-draft read carries it (`VendorLineItem`); list items and create answers carry the short form. */
export const DraftLineItem = Schema.Struct({
  id: opt(IdLike),
  line_item_id: opt(Schema.String),
  order_id: opt(Schema.String),
  quantity: opt(IntegerLike),
  printing_options: opt(Schema.Array(PrintingOption)),
  origin_options: opt(Schema.Array(OriginOption)),
  fulfillment_option: opt(LineItemFulfillmentOption),
  variant: opt(DraftLineItemVariant),
  product: opt(DraftLineItemProduct),
  ...LineMoneyFields
}).annotations({ identifier: "DraftLineItem" })
export type DraftLineItem = typeof DraftLineItem.Type

/** `VendorLineItem.Short`: no per-line prices but the total. */
export const DraftListLineItem = DraftLineItem.pick(
  "id",
  "line_item_id",
  "order_id",
  "quantity",
  "printing_options",
  "origin_options",
  "fulfillment_option",
  "variant",
  "product",
  "line_total"
).annotations({ identifier: "DraftListLineItem" })

export const Draft = Schema.Struct({
  order_id: Schema.String,
  team_id: opt(Schema.String),
  store_id: opt(Schema.String),
  store_name: opt(Schema.String),
  reference_id: opt(Schema.String),
  /** Only on get-one; deprecated by the spec. */
  platform_ref: opt(Schema.String),
  order_platform: opt(MarketplacePlatform),
  import_id: opt(Schema.String),
  pull_id: opt(Schema.String),
  request_id: opt(Schema.String),
  created_method: opt(CreatedMethod),
  fulfillment_vendor: opt(FulfillmentVendor),
  priority: opt(FulfillmentPriority),
  fulfillment_option: opt(FulfillmentOption),
  shipping_option: opt(ShippingOption),
  billing_option: opt(BillingOption),
  /** When the draft was made: drafts carry no `created_at` (`filter.created_at_min` filters on this). */
  order_date: opt(Timestamp),
  status: opt(DraftStatus),
  shipping_labels: opt(Schema.Array(Schema.String)),
  is_label_attached: flag,
  shipping_verification_status: opt(ShippingVerificationStatus),
  product_matching_status: opt(ProductMatchingStatus),
  is_shipping_verification_bypassed: flag,
  is_approved: flag,
  approved_at: opt(Timestamp),
  /** Set when this draft is a revised version of another. */
  origin_draft_id: opt(Schema.String),
  /** The order this draft became, once checked out. */
  origin_order_id: opt(Schema.String),
  addresses: opt(Schema.Array(Address)),
  gift_messages: opt(Schema.Array(GiftMessage)),
  legacy_external_id: opt(Schema.String),
  line_items: opt(Schema.Array(DraftLineItem)),
  order_total: opt(MoneyFromWire),
  order_subtotal: opt(MoneyFromWire),
  order_shipping_fee: opt(MoneyFromWire),
  order_handle_fee: opt(MoneyFromWire),
  order_tax: opt(MoneyFromWire),
  order_fee: opt(MoneyFromWire),
  order_discount: opt(MoneyFromWire),
  origin_sales_channel: opt(OriginSalesChannel),
  /** Set when the service ships by another method than asked (Economy sent as Standard). */
  shipping_substitution: opt(ShippingSubstitution),
  auto_approve: flag
}).annotations({ identifier: "Draft" })
export type Draft = typeof Draft.Type

/** `VendorOrderDraft.Short`: list items and create answers; no `platform_ref`, short lines. */
export const DraftListItem = Schema.Struct({
  ...Draft.omit("platform_ref", "line_items").fields,
  line_items: opt(Schema.Array(DraftListLineItem))
}).annotations({ identifier: "DraftListItem" })
export type DraftListItem = typeof DraftListItem.Type

export const DraftListResponse = ListEnvelope(DraftListItem)
export const DraftResponse = Envelope(Draft)

/** Non-blocking problems the service found with a new draft (at-risk variants, the address): shown to the seller. */
const Warnings = opt(Schema.Array(Schema.String))

/** The create answer: the short draft plus `warnings[]`. */
export const CreatedDraftResponse = Schema.Struct({ ...Envelope(DraftListItem).fields, warnings: Warnings })
export type CreatedDraft = DraftListItem & { readonly warnings?: ReadonlyArray<string> }

/**
 * What the pipeline keeps of a draft it just made: its id, status, the order it became, when and
 * for whom, and what the service warned about. Decoding only these (the rest of the answer is
 * ignored, even in strict decoding) is a good part of the daemon's CPU per order saved.
 */
export const DraftSummary = Draft.pick("order_id", "reference_id", "status", "order_date", "origin_order_id", "shipping_substitution")
/** `warnings` only on a create answer. */
export type DraftSummary = typeof DraftSummary.Type & { readonly warnings?: ReadonlyArray<string> }
export const DraftSummaryResponse = Schema.Struct({ ...Envelope(DraftSummary).fields, warnings: Warnings })
/** A list of drafts, only what a look-up by reference id keeps of each (`DraftSummary`). */
export const DraftSummaryListResponse = ListEnvelope(DraftSummary)

/** PATCH /api/v3/orders/draft/line-items answers with the draft id only. */
export const PatchLineItemsResult = Schema.Struct({ order_id: Schema.String }).annotations({
  identifier: "PatchLineItemsResult"
})
export const PatchLineItemsResponse = Envelope(PatchLineItemsResult)

/**
 * POST /api/v3/orders/draft/{order_id}/approve (real service, not in the spec):
 * `{ status, is_approved, message }`; a `data` draft is read when present.
 */
export const ApproveDraftResponse = Schema.Struct({
  status: Envelope(Draft).fields.status,
  message: Envelope(Draft).fields.message,
  is_approved: flag,
  data: opt(Draft)
})

/** Query of GET /api/v3/orders/draft; `reference_ids` is the real service's filter (ARCHITECTURE.md). */
export interface DraftQuery {
  readonly filter?: {
    readonly created_at_min?: string
    readonly created_methods?: ReadonlyArray<E.CreatedMethod>
    /** Draft ids. */
    readonly order_ids?: ReadonlyArray<string>
    readonly statuses?: ReadonlyArray<E.DraftStatus>
    readonly reference_ids?: ReadonlyArray<string>
  }
  readonly paging?: PagingQuery
}
