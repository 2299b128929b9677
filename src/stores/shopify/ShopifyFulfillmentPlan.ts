/**
 * Pure decisions of a Shopify fulfilment push, over the order's state read
 * just before: what fulfilments with this tracking number already cover,
 * which fulfillment order lines still have units, what is held.
 *
 * Idempotency is by tracking number: units already fulfilled under this
 * number count as done, so a retry after an ambiguous failure creates only
 * what is missing (usually nothing: `AlreadyPushed`).
 */
import type { FulfillmentHold, FulfillmentLine, FulfillmentOutcome, FulfillmentPush } from "../../domain/StoreTypes.js"

export interface FulfillmentOrderLineState {
  readonly id: string
  readonly lineItemId: string
  readonly remainingQuantity: number
}

export interface FulfillmentOrderState {
  readonly id: string
  readonly status: string
  readonly holds: ReadonlyArray<{ readonly reason: string; readonly reasonNotes: string | null }>
  readonly lines: ReadonlyArray<FulfillmentOrderLineState>
}

export interface OrderFulfillmentState {
  readonly cancelled: boolean
  /** Fulfilments (not cancelled) that carry the push's tracking number, with the units they cover. */
  readonly sameTracking: ReadonlyArray<{ readonly id: string; readonly lines: ReadonlyArray<FulfillmentLine> }>
  readonly fulfillmentOrders: ReadonlyArray<FulfillmentOrderState>
}

/** One `fulfillmentCreate` call: the lines of one fulfillment order. */
export interface FulfillmentCreation {
  readonly fulfillmentOrderId: string
  readonly lines: ReadonlyArray<{ readonly id: string; readonly quantity: number; readonly lineItemId: string }>
}

export type FulfillmentPlan =
  | { readonly _tag: "Decided"; readonly outcome: FulfillmentOutcome }
  | { readonly _tag: "Create"; readonly creations: ReadonlyArray<FulfillmentCreation> }

/** Fulfillment order statuses that accept a fulfilment. */
const ACCEPTING = new Set(["OPEN", "IN_PROGRESS"])

export const sameTrackingNumber = (a: string, b: string): boolean =>
  a.replace(/\s+/g, "").toUpperCase() === b.replace(/\s+/g, "").toUpperCase()

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
    return alreadyPushed() ?? {
      _tag: "Decided",
      outcome: {
        _tag: "NothingToFulfil",
        reason: "no units of these lines are left to fulfil (fulfilled elsewhere, refunded or removed)"
      }
    }
  }
  return { _tag: "Create", creations }
}

/** Store lines and units a set of creations covers. */
export const linesOf = (creations: ReadonlyArray<FulfillmentCreation>): Array<FulfillmentLine> => {
  const byLine = new Map<string, number>()
  for (const c of creations) for (const l of c.lines) byLine.set(l.lineItemId, (byLine.get(l.lineItemId) ?? 0) + l.quantity)
  return [...byLine].map(([lineId, quantity]) => ({ lineId, quantity }))
}
