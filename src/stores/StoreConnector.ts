/**
 * The store port: what the pipeline needs from any shop platform. One value
 * per configured store (the pipeline holds them in `StoreConnectors`, keyed by
 * store key); one adapter per platform builds it (`shopify/`, later
 * `woocommerce/`, `etsy/`, `jsonfeed/`).
 *
 * Platform differences the pipeline must know about are stated in
 * `capabilities`, not discovered by trying.
 */
import { Context, Effect, type Either, type Option, type Stream } from "effect"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import type {
  Annotation,
  FulfillmentOutcome,
  FulfillmentPush,
  StoreCursor,
  StoreKind,
  VerifiedWebhook,
  WebhookDelivery
} from "../domain/StoreTypes.js"
import type { StoreError, WebhookRejectedError } from "./StoreErrors.js"

export interface StoreCapabilities {
  /**
   * What a fulfilment is made of: the whole order (Etsy, Woo), store lines
   * (eBay, Wix) or lines of the store's own fulfilment orders (Shopify).
   */
  readonly fulfillmentGranularity: "order" | "line" | "fulfillmentOrderLine"
  /** Whether a push may cover only some lines or units. */
  readonly partialFulfillment: boolean
  /** Whether one order may get several fulfilments, one per package / tracking number. */
  readonly multiplePackages: boolean
  /** Whether a push emails the buyer: never, when `notifyCustomer` asks, or every time (so never push twice). */
  readonly pushNotifiesBuyer: "never" | "optional" | "always"
  /** Which parts of an `Annotation` the platform keeps; the rest is ignored. */
  readonly annotations: ReadonlyArray<"tag" | "field" | "note">
  /** Whether the store can hold fulfilment (reported as `OnHold`, never forced). */
  readonly holds: boolean
  /** Webhook body: the whole order, only a pointer to it, or no webhooks at all. Either way it is a hint. */
  readonly webhookPayload: "full" | "thin" | "none"
}

/** An order the store returned that could not be normalized; stored as failed so a person can look. */
export interface UnreadableOrder {
  readonly storeOrderId: string | undefined
  readonly raw: unknown
  readonly problem: string
}

export interface PulledPage {
  /** New versions of orders, each (storeOrderId, updatedAt) handed out once per walk. */
  readonly orders: ReadonlyArray<NormalizedOrder>
  readonly unreadable: ReadonlyArray<UnreadableOrder>
  /** Persist this after the page's orders are stored; pulling again from it repeats nothing needed. */
  readonly cursor: StoreCursor
  /** True on the walk's last page. */
  readonly done: boolean
}

export interface PullOptions {
  /** Where a first pull (no cursor) starts, ISO-8601; without it the store's whole history is walked. */
  readonly since?: string
}

export interface StoreConnector {
  readonly storeKey: string
  readonly platform: StoreKind
  /** Where the store's API is (its base address), to say where a connection failed. */
  readonly apiAddress: string
  readonly capabilities: StoreCapabilities

  /**
   * Orders changed since the cursor, page by page, oldest change first. The
   * stream asks for a page only when the previous one has been consumed, so
   * a caller that stores each page and then persists `page.cursor` resumes
   * exactly there after a crash (at-least-once: a page may come again, an
   * order version is never skipped).
   */
  readonly pull: (cursor: StoreCursor | null, options?: PullOptions) => Stream.Stream<PulledPage, StoreError>

  /** The order as it is now (all line items), or none if the store does not know it. */
  readonly getOrder: (storeOrderId: string) => Effect.Effect<Option.Option<NormalizedOrder>, StoreError>

  /**
   * One package's fulfilment with tracking, idempotent on the tracking number:
   * the connector reads the order's fulfilments first and answers
   * `AlreadyPushed` when one carries it. After an ambiguous error, calling it
   * again is the recovery.
   */
  readonly pushFulfillment: (push: FulfillmentPush) => Effect.Effect<FulfillmentOutcome, StoreError>

  /** Marks the order for the seller (tag, private field, note); repeatable without harm. */
  readonly annotate: (storeOrderId: string, annotation: Annotation) => Effect.Effect<void, StoreError>

  /**
   * Optional: the pushes of several orders at once, in as few requests as the platform allows,
   * each with `pushFulfillment`'s guarantees. One result per push, in order: an error that
   * concerns the whole request (a timeout, a 5xx) is every push's. Without it the pipeline calls
   * `pushFulfillment` for each (see `pushAll`).
   */
  readonly pushFulfillments?: (
    pushes: ReadonlyArray<FulfillmentPush>
  ) => Effect.Effect<ReadonlyArray<Either.Either<FulfillmentOutcome, StoreError>>>

  /** Optional: annotates several orders at once; one result per item, in order. Without it, `annotate` each. */
  readonly annotateMany?: (
    items: ReadonlyArray<{ readonly storeOrderId: string; readonly annotation: Annotation }>
  ) => Effect.Effect<ReadonlyArray<Either.Either<void, StoreError>>>

  /**
   * Optional: what the store's access lacks, in a seller's words, found with a few cheap reads
   * (`podsync check` prints each; an `error` fails the check).
   */
  readonly checkAccess?: () => Effect.Effect<ReadonlyArray<AccessFinding>, StoreError>

  /** Pure: checks a delivery's signature and shape; no network, no clock. */
  readonly verifyWebhook: (delivery: WebhookDelivery) => Either.Either<VerifiedWebhook, WebhookRejectedError>

  /** Pure, given the Clock: whether a verified delivery is taken in, ignored (answered 200) or refused (answered 401). */
  readonly admitWebhook: (webhook: VerifiedWebhook, nowMillis: number) => WebhookAdmission
}

/**
 * One thing `podsync check` says about a store's access: `error`, something will not work (a
 * required scope missing, buyer data withheld); `warning`, a loss podsync works around; `note`,
 * what could not be told yet.
 */
export interface AccessFinding {
  readonly severity: "error" | "warning" | "note"
  readonly message: string
}

/**
 * What the receiver does with a verified delivery: store it and tell the
 * pipeline; answer 200 without storing it, saying why (`{ ignored: reason }`:
 * a platform's test delivery that names no order); or answer 401 with
 * `{ error, detail }` (a replay outside the signed timestamp's window).
 */
export type WebhookAdmission =
  | { readonly _tag: "Accept" }
  | { readonly _tag: "Ignore"; readonly reason: string }
  | { readonly _tag: "Refuse"; readonly error: string; readonly detail: string }

/** Several orders' pushes through one connector: batched where it can, one by one where it cannot. */
export const pushAll = (connector: StoreConnector, pushes: ReadonlyArray<FulfillmentPush>) =>
  connector.pushFulfillments !== undefined
    ? connector.pushFulfillments(pushes)
    : Effect.forEach(pushes, (push) => Effect.either(connector.pushFulfillment(push)))

/**
 * An order id of the shape every platform takes (digits, as Etsy's receipt ids and Shopify's and
 * WooCommerce's order ids are) that no store has: reading it asks the store, with the credentials,
 * for nothing (the health probes and \`podsync check\` use it).
 */
export const ABSENT_ORDER_ID = "999999999999999"

/** Several orders' annotations through one connector: batched where it can, one by one where it cannot. */
export const annotateAll = (
  connector: StoreConnector,
  items: ReadonlyArray<{ readonly storeOrderId: string; readonly annotation: Annotation }>
) =>
  connector.annotateMany !== undefined
    ? connector.annotateMany(items)
    : Effect.forEach(items, (item) => Effect.either(connector.annotate(item.storeOrderId, item.annotation)))

/** A 401 or 403 answer of a store, as the daemon's health sees it: the request, and what the store said. */
export interface RefusedAnswer {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly body: string
}

/**
 * Whether a 401/403 answer refuses the store's credentials (raised as "credentials refused" until an
 * answer is accepted), as opposed to one request: Etsy's 403 on one receipt's shipment, WooCommerce's
 * 401 to a header the host stripped (the connector then sends the key another way). Without one,
 * every 401/403 refuses the credentials.
 */
export type CredentialRefusal = (answer: RefusedAnswer) => boolean

/** Every configured store's connector, by store key. */
export class StoreConnectors extends Context.Tag("podsync/StoreConnectors")<
  StoreConnectors,
  ReadonlyMap<string, StoreConnector>
>() {}
