/**
 * Pure decisions of a fulfilment push, over what the storefront said just
 * before: the order's fulfilments and the order itself.
 *
 * Idempotent twice over. podsync reads the fulfilments back and answers
 * `AlreadyPushed` when one carries the package's tracking number (or its
 * Idempotency-Key); and the POST carries an Idempotency-Key derived from the
 * store, order and tracking number, so a repeat that slips past the read
 * (two replicas at once, a stale read) is answered with the first
 * fulfilment by the storefront itself.
 */
import { createHash } from "node:crypto"
import type { NormalizedOrder } from "../../domain/NormalizedOrder.js"
import { type FulfillmentLine, type FulfillmentOutcome, type FulfillmentPush, sameTrackingNumber } from "../../domain/StoreTypes.js"
import type { JsonFeedFulfillment } from "./JsonFeedSchemas.js"

export { sameTrackingNumber } from "../../domain/StoreTypes.js"

/**
 * The Idempotency-Key of one package: the same for every attempt of it, in
 * any process (derived, never random), different for any other package.
 */
export const idempotencyKeyFor = (storeKey: string, push: Pick<FulfillmentPush, "storeOrderId" | "tracking">): string =>
  `podsync-${
    createHash("sha256")
      .update(`${storeKey}\n${push.storeOrderId}\n${push.tracking.number.replace(/\s+/g, "").toUpperCase()}`)
      .digest("hex")
      .slice(0, 40)
  }`

/** Fulfilment statuses that mean it no longer stands. */
const WITHDRAWN = new Set(["cancelled", "canceled", "failed", "error"])

export const standing = (fulfillment: JsonFeedFulfillment): boolean =>
  !WITHDRAWN.has((fulfillment.status ?? "success").trim().toLowerCase())

export interface PushState {
  /** The order's fulfilments as read back. */
  readonly fulfillments: ReadonlyArray<JsonFeedFulfillment>
  /** The order now; null when the storefront no longer knows it. */
  readonly order: NormalizedOrder | null
  readonly idempotencyKey: string
}

export type PushPlan =
  | { readonly _tag: "Decided"; readonly outcome: FulfillmentOutcome }
  | { readonly _tag: "Create"; readonly lines: ReadonlyArray<FulfillmentLine>; readonly trackingOnly?: true }

const decided = (outcome: FulfillmentOutcome): PushPlan => ({ _tag: "Decided", outcome })

export const planPush = (state: PushState, push: FulfillmentPush): PushPlan => {
  const done = state.fulfillments.filter(
    (f) =>
      standing(f) &&
      (f.idempotency_key === state.idempotencyKey ||
        (typeof f.tracking?.number === "string" && sameTrackingNumber(f.tracking.number, push.tracking.number)))
  )
  const [first, ...rest] = done.map((f) => f.id)
  if (first !== undefined) return decided({ _tag: "AlreadyPushed", fulfillmentIds: [first, ...rest] })

  const order = state.order
  if (order === null) return decided({ _tag: "Rejected", reason: "unknown_order", messages: [`order ${push.storeOrderId} does not exist`] })
  const byId = new Map(order.lines.map((line) => [line.lineId, line]))
  const unknown = push.lines.filter((line) => !byId.has(line.lineId))
  if (unknown.length > 0) {
    return decided({
      _tag: "Rejected",
      reason: "unknown_lines",
      messages: unknown.map((line) => `order ${order.storeOrderId} has no line ${line.lineId}`)
    })
  }
  if (order.cancelled) return decided({ _tag: "Rejected", reason: "order_cancelled", messages: ["the order is cancelled"] })
  // A held order is reported, never forced: the seller releases it.
  if (order.holds.length > 0) return decided({ _tag: "OnHold", holds: order.holds.map((hold) => ({ ...hold })) })

  const lines = push.lines
    .map((line) => ({ lineId: line.lineId, quantity: Math.min(line.quantity, byId.get(line.lineId)?.fulfillableQuantity ?? 0) }))
    .filter((line) => line.quantity > 0)
  if (lines.length === 0) {
    // A later box of units an earlier box's fulfilment already covers (the POD service shipped them in
    // several and does not say which holds what): a tracking-only fulfilment, docs/jsonfeed.md §6.5.
    const earlier = push.earlierTrackingNumbers ?? []
    const covered = state.fulfillments.some((f) =>
      standing(f) && typeof f.tracking?.number === "string" && earlier.some((n) => sameTrackingNumber(n, f.tracking?.number ?? ""))
    )
    if (covered) return { _tag: "Create", lines: [], trackingOnly: true }
    return decided({
      _tag: "NothingToFulfil",
      reason: "no units of these lines are left to fulfil (fulfilled elsewhere, refunded or removed)"
    })
  }
  return { _tag: "Create", lines }
}
