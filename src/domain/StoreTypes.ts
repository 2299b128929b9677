/**
 * Store-neutral shapes that travel between the store connectors and the
 * pipeline: the persisted pull cursor, fulfilment requests and their outcomes,
 * annotations and verified webhooks. Every shape is a Schema so the pipeline
 * can store it (cursor row, order event data, webhook inbox) and read it back.
 */
import { DateTime, Option, Schema } from "effect"

export const StoreKind = Schema.Literal("shopify", "woocommerce", "etsy", "jsonfeed")
export type StoreKind = typeof StoreKind.Type

/**
 * A connector's position in a store's order history. The pipeline persists it
 * verbatim after it has stored the page that carried it; only the connector
 * interprets it.
 *
 * - `watermark`: ISO-8601 UTC; every order updated before it has been handed
 *   out (the next walk starts at `watermark − overlap`).
 * - `continuation`: where an unfinished walk resumes (page token, frozen upper
 *   bound, offset…), absent between walks.
 * - `seen`: identities (`<order id>@<updatedAt>`) already handed out near the
 *   watermark, so the overlap re-read does not hand them out again.
 */
export const StoreCursor = Schema.Struct({
  watermark: Schema.String,
  continuation: Schema.optional(Schema.String),
  seen: Schema.optional(Schema.Array(Schema.String)),
  /** When the last walk that re-read the whole overlap started (platforms that re-read a short one in between). */
  sweptAt: Schema.optional(Schema.String)
})
export type StoreCursor = typeof StoreCursor.Type

/** One package of a shipment: which store lines, how many units, with which tracking. */
export const FulfillmentLine = Schema.Struct({
  /** The store's line id as given in `NormalizedOrder.lines[].lineId`. */
  lineId: Schema.String,
  quantity: Schema.Int.pipe(Schema.positive())
})
export type FulfillmentLine = typeof FulfillmentLine.Type

export const Tracking = Schema.Struct({
  /** Carrier name; for Shopify it should be a carrier name Shopify knows (case matters) to get auto tracking. */
  company: Schema.String,
  number: Schema.String,
  url: Schema.optional(Schema.String)
})
export type Tracking = typeof Tracking.Type

/** Whether two tracking numbers are the same package's: spaces and case do not count (carriers print both ways). */
export const sameTrackingNumber = (a: string, b: string): boolean =>
  a.replace(/\s+/g, "").toUpperCase() === b.replace(/\s+/g, "").toUpperCase()

export const FulfillmentPush = Schema.Struct({
  storeOrderId: Schema.String,
  /** The order's POD lines in this package. Never empty: ignored (non-POD) lines are never fulfilled by us. */
  lines: Schema.NonEmptyArray(FulfillmentLine),
  tracking: Tracking,
  /** Overrides the store's configured `fulfillment.notifyCustomer` for this push. */
  notifyCustomer: Schema.optional(Schema.Boolean),
  /**
   * The tracking numbers of this order's packages already pushed. When the lines are already
   * fulfilled (the POD service shipped them in several boxes and does not say which holds what),
   * the connector adds this package's tracking to the fulfilment carrying one of these, where the
   * platform can (`TrackingAdded`), instead of answering `NothingToFulfil`.
   */
  earlierTrackingNumbers: Schema.optional(Schema.Array(Schema.String))
})
export type FulfillmentPush = typeof FulfillmentPush.Type

export const FulfillmentHold = Schema.Struct({
  /** The store's id of what is held (Shopify: the fulfillment order gid). */
  heldId: Schema.String,
  reason: Schema.optional(Schema.String),
  notes: Schema.optional(Schema.String)
})
export type FulfillmentHold = typeof FulfillmentHold.Type

/**
 * What a fulfilment push did. Only `Created` changed the store; every other
 * outcome is final for this tracking number until a person or the store acts.
 */
export const FulfillmentOutcome = Schema.Union(
  Schema.TaggedStruct("Created", {
    /** One per store fulfilment made (Shopify: one per fulfillment order touched). */
    fulfillmentIds: Schema.NonEmptyArray(Schema.String),
    /** What was fulfilled; may be less than asked when the store had fewer units left. */
    lines: Schema.Array(FulfillmentLine),
    notifiedCustomer: Schema.Boolean
  }),
  /**
   * A later package of lines an earlier package already fulfilled: its tracking number was added
   * to that fulfilment (Shopify) or recorded as a tracking-only fulfilment (JSON feed).
   */
  Schema.TaggedStruct("TrackingAdded", {
    fulfillmentIds: Schema.NonEmptyArray(Schema.String),
    notifiedCustomer: Schema.Boolean
  }),
  /** A fulfilment with this tracking number already exists (an earlier attempt reached the store). */
  Schema.TaggedStruct("AlreadyPushed", { fulfillmentIds: Schema.NonEmptyArray(Schema.String) }),
  /** Lines sit in a held fulfilment: reported, never forced. */
  Schema.TaggedStruct("OnHold", { holds: Schema.Array(FulfillmentHold) }),
  /**
   * Lines wait in a fulfilment the store schedules for later (a pre-order, a "fulfil at" date):
   * the push waits until then; `fulfillAt` (ISO-8601) when the store says when.
   */
  Schema.TaggedStruct("Scheduled", {
    scheduled: Schema.Array(Schema.Struct({ heldId: Schema.String, fulfillAt: Schema.optional(Schema.String) }))
  }),
  /** None of the asked lines has units left to fulfil (fulfilled elsewhere, refunded, removed). */
  Schema.TaggedStruct("NothingToFulfil", { reason: Schema.String }),
  /** The store refused (cancelled order, closed fulfilment order, unknown line…): needs a person. */
  Schema.TaggedStruct("Rejected", { reason: Schema.String, messages: Schema.Array(Schema.String) })
)
export type FulfillmentOutcome = typeof FulfillmentOutcome.Type

/**
 * A mark on the store order a seller can see. Each connector applies what its
 * platform has (`StoreCapabilities.annotations`) and ignores the rest.
 */
export const Annotation = Schema.Struct({
  tag: Schema.optional(Schema.String),
  /** A private key/value on the order (Shopify metafield in namespace `podsync`, Woo meta_data). */
  field: Schema.optional(Schema.Struct({ key: Schema.String, value: Schema.String })),
  /** A private note (never emailed to the buyer). */
  note: Schema.optional(Schema.String)
})
export type Annotation = typeof Annotation.Type

export const DRAFTED_TAG = "podsync:drafted"

/** The annotation written once a POD draft exists for the order. */
export const draftedAnnotation = (draftId: string): Annotation => ({
  tag: DRAFTED_TAG,
  field: { key: "draft", value: draftId },
  note: `podsync created POD draft ${draftId}`
})

/** A webhook delivery as received: header names in any case, the body untouched. */
export interface WebhookDelivery {
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly rawBody: Uint8Array
}

/** A webhook whose signature checked out. It is a hint: the order is re-read from the API. */
export const VerifiedWebhook = Schema.Struct({
  storeKey: Schema.String,
  topic: Schema.String,
  /**
   * Inbox key: two deliveries with the same key are the same event (a retry or
   * a duplicate); store it unique and ignore the second.
   */
  dedupKey: Schema.String,
  deliveryId: Schema.optional(Schema.String),
  eventId: Schema.optional(Schema.String),
  /** The order the event is about, in the same id form as `NormalizedOrder.storeOrderId`. */
  storeOrderId: Schema.optional(Schema.String),
  /** The order version in the payload (ISO-8601 UTC), when the payload is full. */
  orderUpdatedAt: Schema.optional(Schema.String),
  triggeredAt: Schema.optional(Schema.String),
  payload: Schema.Unknown
})
export type VerifiedWebhook = typeof VerifiedWebhook.Type

/**
 * One text form for store timestamps, so versions compare as strings:
 * ISO-8601 UTC, milliseconds only when not zero ("2026-03-01T09:30:00Z").
 * Offsets ("…-05:00", as REST webhooks send) are converted. Undefined when
 * the text is not a date.
 */
export const canonicalTimestamp = (text: string): string | undefined =>
  Option.getOrUndefined(
    Option.map(DateTime.make(text), (dateTime) => DateTime.formatIso(dateTime).replace(/\.000Z$/, "Z"))
  )

/** The first value of a header, whatever the case of its name. */
export const headerValue = (delivery: WebhookDelivery, name: string): string | undefined => {
  const wanted = name.toLowerCase()
  for (const [key, value] of Object.entries(delivery.headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue
    const first = typeof value === "string" ? value : value[0]
    if (first !== undefined && first.trim() !== "") return first.trim()
  }
  return undefined
}
