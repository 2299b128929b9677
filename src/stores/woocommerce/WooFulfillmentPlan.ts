/**
 * Pure decisions of a WooCommerce fulfilment push, over the order as read just before.
 *
 * WooCommerce fulfils whole orders: `completed` means shipped, and completing an order emails the
 * buyer (the "Completed order" email, which lists Shipment Tracking items). So a push
 *   1. records the package's tracking (a Shipment Tracking item, or a customer note) unless a
 *      record with this tracking number already exists (read back: the push is idempotent on it);
 *   2. adds the package to podsync's own list in the order meta `_podsync_shipments` (which lines,
 *      how many units), unless it is there;
 *   3. completes the order, once, after the tracking exists, and only when the packages recorded
 *      cover every unit the buyer still has of every line: an order with lines podsync does not
 *      produce (fulfilled elsewhere) is left for the seller to complete.
 * Each step is skipped when already done, so a retry after an ambiguous failure finishes the push
 * without a second tracking record or a second email.
 */
import { type FulfillmentLine, type FulfillmentOutcome, type FulfillmentPush, sameTrackingNumber } from "../../domain/StoreTypes.js"
import { CANCELLED_STATUSES } from "./WooNormalize.js"
import type { PodsyncPackage } from "./WooSchemas.js"

export interface WooFulfillmentState {
  readonly storeOrderId: string
  readonly status: string
  /** Every line of the order with the units the buyer still has (after refunds). */
  readonly lines: ReadonlyArray<{ readonly lineId: string; readonly currentQuantity: number }>
  /** Tracking records on the order (Shipment Tracking items, or podsync's tracking notes): id and number. */
  readonly trackingRecords: ReadonlyArray<{ readonly id: string; readonly number: string }>
  readonly packages: ReadonlyArray<PodsyncPackage>
}

export type WooFulfillmentPlan =
  | { readonly _tag: "Decided"; readonly outcome: FulfillmentOutcome }
  | {
    readonly _tag: "Write"
    /** Whether a tracking record must be created (none with this number is on the order or in our list). */
    readonly createTracking: boolean
    /** Ids of the records that already carry this tracking number. */
    readonly existing: ReadonlyArray<string>
    /** The package list to store in `_podsync_shipments`, or null when it already holds this package. */
    readonly packages: ReadonlyArray<PodsyncPackage> | null
    readonly complete: boolean
    /** The units this package covers. */
    readonly lines: ReadonlyArray<FulfillmentLine>
  }

export { sameTrackingNumber } from "../../domain/StoreTypes.js"

/** True when the packages cover every unit the buyer still has of every line. */
export const coversOrder = (lines: WooFulfillmentState["lines"], packages: ReadonlyArray<PodsyncPackage>): boolean => {
  const covered = new Map<string, number>()
  for (const p of packages) for (const l of p.lines) covered.set(l.lineId, (covered.get(l.lineId) ?? 0) + l.quantity)
  return lines.every((line) => (covered.get(line.lineId) ?? 0) >= line.currentQuantity)
}

export const planWooFulfillment = (state: WooFulfillmentState, push: FulfillmentPush): WooFulfillmentPlan => {
  const existing = state.trackingRecords.filter((r) => sameTrackingNumber(r.number, push.tracking.number)).map((r) => r.id)
  const recorded = state.packages.find((p) => sameTrackingNumber(p.number, push.tracking.number))
  const ids = [...new Set([...existing, ...(recorded?.trackingRecordId === undefined ? [] : [recorded.trackingRecordId])])]
  // A package in our list whose record was since deleted by the seller is not recorded again.
  const trackingExists = existing.length > 0 || recorded !== undefined
  const alreadyPushed = (): WooFulfillmentPlan | undefined => {
    const [first, ...rest] = ids.length > 0 ? ids : trackingExists ? [push.tracking.number] : []
    return first === undefined ? undefined : { _tag: "Decided", outcome: { _tag: "AlreadyPushed", fulfillmentIds: [first, ...rest] } }
  }

  if (CANCELLED_STATUSES.has(state.status)) {
    return alreadyPushed() ??
      { _tag: "Decided", outcome: { _tag: "Rejected", reason: "order_cancelled", messages: [`the order is ${state.status}`] } }
  }
  // A seller who put the order on hold decides when it ships: reported, never forced.
  if (state.status === "on-hold") {
    return alreadyPushed() ?? { _tag: "Decided", outcome: { _tag: "OnHold", holds: [{ heldId: state.storeOrderId, reason: "on-hold" }] } }
  }
  const byId = new Map(state.lines.map((l) => [l.lineId, l]))
  const unknown = push.lines.filter((l) => !byId.has(l.lineId)).map((l) => l.lineId)
  if (unknown.length > 0 && !trackingExists) {
    return {
      _tag: "Decided",
      outcome: {
        _tag: "Rejected",
        reason: "unknown_lines",
        messages: unknown.map((id) => `line ${id} is not a line item of order ${state.storeOrderId}`)
      }
    }
  }

  const lines = recorded?.lines ?? push.lines.flatMap((l) => {
    const quantity = Math.min(l.quantity, byId.get(l.lineId)?.currentQuantity ?? 0)
    return quantity > 0 ? [{ lineId: l.lineId, quantity }] : []
  })
  if (lines.length === 0 && !trackingExists) {
    return { _tag: "Decided", outcome: { _tag: "NothingToFulfil", reason: "the buyer has no units left of these lines (refunded)" } }
  }
  const packages = recorded !== undefined
    ? null
    : [...state.packages, {
      number: push.tracking.number,
      company: push.tracking.company,
      lines,
      ...(push.tracking.url === undefined ? {} : { url: push.tracking.url })
    }]
  const complete = state.status !== "completed" && coversOrder(state.lines, packages ?? state.packages)
  if (trackingExists && packages === null && !complete) {
    // What `alreadyPushed` gives when the tracking exists: its ids, else its number.
    const [first = push.tracking.number, ...rest] = ids
    return { _tag: "Decided", outcome: { _tag: "AlreadyPushed", fulfillmentIds: [first, ...rest] } }
  }
  return { _tag: "Write", createTracking: !trackingExists, existing: ids, packages, complete, lines }
}
