/**
 * Pure decisions of a Shopify fulfilment push, over the order's state read
 * just before: what fulfilments with this tracking number already cover,
 * which fulfillment order lines still have units, what is held.
 *
 * Idempotency is by tracking number: units already fulfilled under this
 * number count as done, so a retry after an ambiguous failure creates only
 * what is missing (usually nothing: `AlreadyPushed`).
 */
import {
  type FulfillmentHold,
  type FulfillmentLine,
  type FulfillmentOutcome,
  type FulfillmentPush,
  sameTrackingNumber
} from "../../domain/StoreTypes.js"

export interface FulfillmentOrderLineState {
  readonly id: string
  readonly lineItemId: string
  readonly remainingQuantity: number
}

export interface FulfillmentOrderState {
  readonly id: string
  readonly status: string
  /** When a SCHEDULED one opens (ISO-8601), when Shopify says. */
  readonly fulfillAt?: string | null
  readonly holds: ReadonlyArray<{ readonly reason: string; readonly reasonNotes: string | null }>
  readonly lines: ReadonlyArray<FulfillmentOrderLineState>
}

/** One tracking of a fulfilment as Shopify holds it. */
export interface TrackingInfoState {
  readonly company: string | null
  readonly number: string | null
  readonly url: string | null
}

export interface OrderFulfillmentState {
  readonly cancelled: boolean
  /** Fulfilments (not cancelled) that carry the push's tracking number, with the units they cover. */
  readonly sameTracking: ReadonlyArray<{ readonly id: string; readonly lines: ReadonlyArray<FulfillmentLine> }>
  readonly fulfillmentOrders: ReadonlyArray<FulfillmentOrderState>
  /** Every fulfilment not cancelled, with its trackings (to add a later package's number to). */
  readonly standing: ReadonlyArray<{ readonly id: string; readonly tracking: ReadonlyArray<TrackingInfoState> }>
}

/** `fulfillmentTrackingInfoUpdate`'s tracking input: every number the fulfilment carries, the new one last. */
export interface TrackingUpdate {
  readonly company: string
  readonly numbers: ReadonlyArray<string>
  readonly urls?: ReadonlyArray<string>
}

/** One `fulfillmentCreate` call: the lines of one fulfillment order. */
export interface FulfillmentCreation {
  readonly fulfillmentOrderId: string
  readonly lines: ReadonlyArray<{ readonly id: string; readonly quantity: number; readonly lineItemId: string }>
}

export type FulfillmentPlan =
  | { readonly _tag: "Decided"; readonly outcome: FulfillmentOutcome }
  | { readonly _tag: "Create"; readonly creations: ReadonlyArray<FulfillmentCreation> }
  /** A later package of lines already fulfilled: its number joins the fulfilment of an earlier package. */
  | { readonly _tag: "AddTracking"; readonly fulfillmentId: string; readonly tracking: TrackingUpdate }

/** Fulfillment order statuses that accept a fulfilment. */
const ACCEPTING = new Set(["OPEN", "IN_PROGRESS"])

export { sameTrackingNumber } from "../../domain/StoreTypes.js"

export const planFulfillment = (state: OrderFulfillmentState, push: FulfillmentPush): FulfillmentPlan => {
  const [firstDone, ...otherDone] = state.sameTracking.map((f) => f.id)
  const alreadyPushed = (): FulfillmentPlan | undefined =>
    firstDone !== undefined
      ? { _tag: "Decided", outcome: { _tag: "AlreadyPushed", fulfillmentIds: [firstDone, ...otherDone] } }
      : undefined

  const knownLineIds = new Set(state.fulfillmentOrders.flatMap((fo) => fo.lines.map((l) => l.lineItemId)))
  const unknown = push.lines.filter((line) => !knownLineIds.has(line.lineId)).map((line) => line.lineId)
  if (unknown.length > 0) {
    return alreadyPushed() ?? {
      _tag: "Decided",
      outcome: {
        _tag: "Rejected",
        reason: "unknown_lines",
        messages: unknown.map((id) => `line ${id} has no fulfillment order line on this order (not shippable or not this order)`)
      }
    }
  }

  // Units still wanted per line: asked minus what fulfilments under this tracking number already cover.
  const covered = new Map<string, number>()
  for (const f of state.sameTracking) for (const l of f.lines) covered.set(l.lineId, (covered.get(l.lineId) ?? 0) + l.quantity)
  const wanted = push.lines
    .map((line) => ({ lineId: line.lineId, quantity: Math.max(0, line.quantity - (covered.get(line.lineId) ?? 0)) }))
    .filter((line) => line.quantity > 0)
  if (wanted.length === 0) return alreadyPushed() ?? { _tag: "Decided", outcome: { _tag: "NothingToFulfil", reason: "nothing asked" } }

  if (state.cancelled) {
    return alreadyPushed() ??
      { _tag: "Decided", outcome: { _tag: "Rejected", reason: "order_cancelled", messages: ["the order is cancelled"] } }
  }

  // A held unit blocks the whole package: one box has one tracking number, fulfilled all at once or not at all.
  const heldOrders = state.fulfillmentOrders.filter(
    (fo) => fo.status === "ON_HOLD" && fo.lines.some((l) => l.remainingQuantity > 0 && wanted.some((w) => w.lineId === l.lineItemId))
  )
  if (heldOrders.length > 0) {
    const holds: Array<FulfillmentHold> = heldOrders.flatMap((fo) =>
      fo.holds.length === 0
        ? [{ heldId: fo.id }]
        : fo.holds.map((hold) => ({
          heldId: fo.id,
          reason: hold.reason,
          ...(hold.reasonNotes === null ? {} : { notes: hold.reasonNotes })
        }))
    )
    return { _tag: "Decided", outcome: { _tag: "OnHold", holds } }
  }

  // The same for a package whose units wait in a fulfillment order scheduled for later (a pre-order, a
  // "fulfil at" date): it waits until Shopify opens it, and the order's story says until when.
  const scheduled = state.fulfillmentOrders.filter(
    (fo) => fo.status === "SCHEDULED" && fo.lines.some((l) => l.remainingQuantity > 0 && wanted.some((w) => w.lineId === l.lineItemId))
  )
  if (scheduled.length > 0) {
    return {
      _tag: "Decided",
      outcome: {
        _tag: "Scheduled",
        scheduled: scheduled.map((fo) => ({ heldId: fo.id, ...(fo.fulfillAt ? { fulfillAt: fo.fulfillAt } : {}) }))
      }
    }
  }

  const creations: Array<FulfillmentCreation> = []
  const left = new Map(wanted.map((w) => [w.lineId, w.quantity]))
  for (const fo of state.fulfillmentOrders.filter((f) => ACCEPTING.has(f.status))) {
    const lines: Array<{ id: string; quantity: number; lineItemId: string }> = []
    for (const line of fo.lines) {
      const need = left.get(line.lineItemId) ?? 0
      const take = Math.min(need, line.remainingQuantity)
      if (take <= 0) continue
      lines.push({ id: line.id, quantity: take, lineItemId: line.lineItemId })
      left.set(line.lineItemId, need - take)
    }
    if (lines.length > 0) creations.push({ fulfillmentOrderId: fo.id, lines })
  }
  if (creations.length === 0) {
    return alreadyPushed() ?? addedToEarlierPackage(state, push) ?? {
      _tag: "Decided",
      outcome: {
        _tag: "NothingToFulfil",
        reason: "no units of these lines are left to fulfil (fulfilled elsewhere, refunded or removed)"
      }
    }
  }
  return { _tag: "Create", creations }
}

/**
 * The POD service shipped the lines in several boxes without saying which holds what, and an earlier
 * box's fulfilment already covers every unit: the buyer sees this box's number on that fulfilment
 * (Shopify keeps several numbers on one fulfilment). Only a fulfilment carrying one of this order's
 * earlier POD numbers is touched, never one the seller made for other lines. Its company stays (one
 * per fulfilment); links go with the numbers only when every number has one.
 */
const addedToEarlierPackage = (state: OrderFulfillmentState, push: FulfillmentPush): FulfillmentPlan | undefined => {
  const earlier = push.earlierTrackingNumbers ?? []
  const target = [...state.standing].reverse().find((f) =>
    f.tracking.some((t) => t.number !== null && earlier.some((n) => sameTrackingNumber(n, t.number ?? "")))
  )
  if (target === undefined) return undefined
  const held = target.tracking.flatMap((t) => (t.number === null ? [] : [{ number: t.number, url: t.url }]))
  const all = [...held, { number: push.tracking.number, url: push.tracking.url ?? null }]
  const urls = all.flatMap((t) => (t.url === null ? [] : [t.url]))
  return {
    _tag: "AddTracking",
    fulfillmentId: target.id,
    tracking: {
      company: target.tracking.find((t) => t.company !== null)?.company ?? push.tracking.company,
      numbers: all.map((t) => t.number),
      ...(urls.length === all.length ? { urls } : {})
    }
  }
}

/** Store lines and units a set of creations covers. */
export const linesOf = (creations: ReadonlyArray<FulfillmentCreation>): Array<FulfillmentLine> => {
  const byLine = new Map<string, number>()
  for (const c of creations) for (const l of c.lines) byLine.set(l.lineItemId, (byLine.get(l.lineItemId) ?? 0) + l.quantity)
  return [...byLine].map(([lineId, quantity]) => ({ lineId, quantity }))
}
