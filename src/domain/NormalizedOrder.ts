/**
 * One store order in the shape the pipeline works on, whatever the platform.
 *
 * Normalization is faithful, not judgemental: cancelled, unpaid, held and
 * refunded orders come through with their status so the pipeline decides what
 * to produce (`stores[].eligible`). Quantities are split three ways because
 * they answer different questions: what was bought (`quantity`), what the
 * buyer still has after refunds and removals (`currentQuantity`), and what is
 * still to ship (`fulfillableQuantity`, the number to draft).
 *
 * Encoded with `Schema.encode(NormalizedOrder)` it is plain JSON (money in the
 * POD wire form), so it can be stored next to the raw payload.
 */
import { Schema } from "effect"
import { CurrencyCode, MoneyFromWire } from "./Money.js"
import { StoreKind } from "./StoreTypes.js"

export const FinancialStatus = Schema.Literal(
  "pending",
  "authorized",
  "paid",
  "partially_paid",
  "partially_refunded",
  "refunded",
  "voided",
  "expired",
  "unknown"
)
export type FinancialStatus = typeof FinancialStatus.Type

export const FulfillmentStatus = Schema.Literal(
  "unfulfilled",
  "partial",
  "fulfilled",
  "in_progress",
  "on_hold",
  "scheduled",
  "restocked",
  /** Nothing in the order needs shipping (Shopify's FULFILLMENT_NOT_REQUIRED). */
  "not_required",
  "unknown"
)
export type FulfillmentStatus = typeof FulfillmentStatus.Type

export const Attribute = Schema.Struct({ key: Schema.String, value: Schema.String })
export type Attribute = typeof Attribute.Type

/** A shipping address as the store gave it; absent parts stay absent so validation can name them. */
export const ShipTo = Schema.Struct({
  name: Schema.String,
  firstName: Schema.optional(Schema.String),
  lastName: Schema.optional(Schema.String),
  company: Schema.optional(Schema.String),
  line1: Schema.optional(Schema.String),
  line2: Schema.optional(Schema.String),
  city: Schema.optional(Schema.String),
  /** Province/state name as written by the store ("Bayern", "Roma"). */
  region: Schema.optional(Schema.String),
  /** Subdivision code without the country prefix ("BY", "RM"), when the store has one. */
  regionCode: Schema.optional(Schema.String),
  postalCode: Schema.optional(Schema.String),
  /** ISO 3166-1 alpha-2. */
  countryCode: Schema.optional(Schema.String),
  country: Schema.optional(Schema.String),
  phone: Schema.optional(Schema.String)
})
export type ShipTo = typeof ShipTo.Type

export const NormalizedLine = Schema.Struct({
  /** The store's line id (Shopify LineItem gid); fulfilment pushes name lines by it. */
  lineId: Schema.String,
  sku: Schema.optional(Schema.String),
  /** Numeric store variant id (Shopify `legacyResourceId`), as the variant-matching table names it. */
  variantId: Schema.optional(Schema.String),
  productId: Schema.optional(Schema.String),
  title: Schema.String,
  variantTitle: Schema.optional(Schema.String),
  /** Units ordered. */
  quantity: Schema.Int,
  /** Units the buyer still has: ordered minus refunded and removed. */
  currentQuantity: Schema.Int,
  /** Units still to ship: current units not yet fulfilled. This is what a draft takes. */
  fulfillableQuantity: Schema.Int,
  /** Buyer customisation (Shopify customAttributes, Woo meta_data, Etsy variations), in store order. */
  attributes: Schema.Array(Attribute),
  requiresShipping: Schema.Boolean
})
export type NormalizedLine = typeof NormalizedLine.Type

/**
 * Data the store would not give podsync (the app lacks an access scope, or the level of protected
 * customer data the buyer's details need). The order is still stored, and held until it comes.
 */
export const WithheldData = Schema.Struct({
  /**
   * What is missing, in this shape's terms: `email`, `shipTo.<field>` (`shipTo.name`, `shipTo.line1`,
   * `shipTo.postalCode`, `shipTo.phone`…), `lines.<lineId>.variantId`, `lines.<lineId>.productId`.
   */
  fields: Schema.Array(Schema.String),
  /** Why, and what the seller does about it, in their words (the connector knows its platform). */
  reason: Schema.String
})
export type WithheldData = typeof WithheldData.Type

export const OrderHold = Schema.Struct({
  heldId: Schema.String,
  reason: Schema.optional(Schema.String)
})
export type OrderHold = typeof OrderHold.Type

export const NormalizedOrder = Schema.Struct({
  storeKey: Schema.String,
  platform: StoreKind,
  /** The platform's stable order id (Shopify numeric `legacyResourceId`); reference id = `<storeKey>:<storeOrderId>`. */
  storeOrderId: Schema.String,
  /** What the seller calls it ("#1001"). */
  name: Schema.String,
  createdAt: Schema.String,
  /** ISO-8601 UTC; with `storeOrderId` it identifies this version of the order. */
  updatedAt: Schema.String,
  currency: CurrencyCode,
  financialStatus: FinancialStatus,
  fulfillmentStatus: FulfillmentStatus,
  cancelled: Schema.Boolean,
  cancelledAt: Schema.optional(Schema.String),
  cancelReason: Schema.optional(Schema.String),
  /** Held fulfilments (Shopify ON_HOLD fulfillment orders); empty when nothing is held. */
  holds: Schema.Array(OrderHold),
  email: Schema.optional(Schema.String),
  shipTo: Schema.NullOr(ShipTo),
  shippingMethod: Schema.optional(Schema.Struct({ title: Schema.String, code: Schema.optional(Schema.String) })),
  lines: Schema.Array(NormalizedLine),
  note: Schema.optional(Schema.String),
  tags: Schema.Array(Schema.String),
  /** Order-level custom attributes (Shopify note attributes). */
  attributes: Schema.Array(Attribute),
  total: Schema.optional(MoneyFromWire),
  /** What the store withheld from podsync in this version (absent: nothing). */
  withheld: Schema.optional(Schema.Array(WithheldData)),
  /** The store's payload as fetched (all line item pages merged), kept for audit and replay. */
  raw: Schema.Unknown
})
export type NormalizedOrder = typeof NormalizedOrder.Type
/** The stored (JSON) form. */
export type NormalizedOrderEncoded = typeof NormalizedOrder.Encoded

/** The identity of one version of an order, used to hand each version out once. */
export const orderVersionKey = (order: Pick<NormalizedOrder, "storeOrderId" | "updatedAt">): string =>
  `${order.storeOrderId}@${order.updatedAt}`

/** Lines with units left to ship. */
export const linesToFulfil = (order: NormalizedOrder): ReadonlyArray<NormalizedLine> =>
  order.lines.filter((line) => line.fulfillableQuantity > 0)
