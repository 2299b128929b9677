/**
 * The flow of a period from order_events, pure: how many orders entered each
 * step in the period, and how long the steps took (first pulled → first
 * drafted → first shipped → first fulfilled).
 *
 * The POD steps form a ladder (drafted → checked out → in production →
 * shipped → fulfilled). podsync sees them by polling, so an order can move
 * several rungs between two looks (drafted, then seen shipped): it passed the
 * rungs in between all the same, at the latest when it was seen beyond them.
 * Counting it there keeps the counts from contradicting each other (more
 * orders shipped than drafted).
 */
import type { OrderState } from "../domain/OrderState.js"
import type { ReportOrder, ReportPeriod } from "./ReportInput.js"
import type { DurationFigures, FlowFigures } from "./ReportOutput.js"

const inPeriod = (period: ReportPeriod, at: number) => at >= period.from && at < period.to

/** The POD ladder, in order: reaching a rung means having passed every rung before it. */
const LADDER: ReadonlyArray<OrderState> = ["drafted", "checked_out", "in_production", "shipped", "fulfilled"]

/**
 * The states that show an order has passed `state`: the state itself and, for
 * a rung of the ladder, every later rung. `pod_on_hold` shows a draft (the
 * POD service holds drafts as well as orders), not a checkout.
 */
const reached = (state: OrderState): ReadonlyArray<OrderState> => {
  const rung = LADDER.indexOf(state)
  if (rung < 0) return [state]
  return [...LADDER.slice(rung), ...(state === "drafted" ? ["pod_on_hold" as const] : [])]
}

/** When the order first entered one of `states` (a real move, not a same-state note), if ever. */
export const firstEntered = (order: ReportOrder, states: ReadonlyArray<OrderState>): number | undefined =>
  order.events.find((e) => (states as ReadonlyArray<string>).includes(e.to) && e.from !== e.to)?.at

/** When the order first passed `state`: entered it, or a later rung of the ladder without being seen in it. */
export const firstPassed = (order: ReportOrder, state: OrderState): number | undefined => firstEntered(order, reached(state))

/** Whether the order passed `state` (see `firstPassed`) during the period. */
const passedIn = (period: ReportPeriod, order: ReportOrder, state: OrderState) => {
  const at = firstPassed(order, state)
  return at !== undefined && inPeriod(period, at)
}

/** Whether the order entered one of `states` during the period. */
const enteredIn = (period: ReportPeriod, order: ReportOrder, states: ReadonlyArray<OrderState>) =>
  order.events.some((e) => (states as ReadonlyArray<string>).includes(e.to) && e.from !== e.to && inPeriod(period, e.at))

/** When the order was first pulled: its first event. */
export const pulledAt = (order: ReportOrder): number | undefined => order.events.find((e) => e.from === null)?.at ?? order.events[0]?.at

export const pulledIn = (period: ReportPeriod, order: ReportOrder): boolean => {
  const at = pulledAt(order)
  return at !== undefined && inPeriod(period, at)
}

/** Nearest-rank percentile of sorted values: the smallest value with at least p of them at or below it. */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number | null => {
  if (sorted.length === 0) return null
  const rank = Math.max(1, Math.ceil(p * sorted.length))
  return sorted[rank - 1] ?? null // within range for 0 <= p <= 1
}

/** Seconds to the millisecond: a step podsync takes in 300 ms is 0.3 s, not 0. */
const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms) / 1000)

export const durationFigures = (millis: ReadonlyArray<number>): DurationFigures => {
  const sorted = [...millis].sort((a, b) => a - b)
  return { count: sorted.length, p50Seconds: seconds(percentile(sorted, 0.5)), p95Seconds: seconds(percentile(sorted, 0.95)) }
}

/**
 * Step durations of the orders that finished the step in the period: a step
 * whose start is missing from the history (an order drafted before podsync
 * recorded its pull) is not measured.
 */
const stepDurations = (
  period: ReportPeriod,
  orders: ReadonlyArray<ReportOrder>,
  start: (order: ReportOrder) => number | undefined,
  end: OrderState
) =>
  orders.flatMap((order) => {
    const finished = firstPassed(order, end)
    const started = start(order)
    return finished !== undefined && started !== undefined && inPeriod(period, finished) && finished >= started ? [finished - started] : []
  })

export const flowFigures = (
  period: ReportPeriod,
  orders: ReadonlyArray<ReportOrder>,
  storeOrdersCreated: number | null
): FlowFigures => {
  const count = (states: ReadonlyArray<OrderState>) => orders.filter((o) => enteredIn(period, o, states)).length
  const passed = (state: OrderState) => orders.filter((o) => passedIn(period, o, state)).length
  return {
    storeOrdersCreated,
    pulled: orders.filter((o) => pulledIn(period, o)).length,
    held: count(["held"]),
    drafted: passed("drafted"),
    checkedOut: passed("checked_out"),
    inProduction: passed("in_production"),
    shipped: passed("shipped"),
    fulfilled: passed("fulfilled"),
    cancelled: count(["cancelled", "cancel_pending", "pod_cancelled"]),
    timings: {
      pullToDraft: durationFigures(stepDurations(period, orders, pulledAt, "drafted")),
      draftToShipped: durationFigures(stepDurations(period, orders, (o) => firstPassed(o, "drafted"), "shipped")),
      shippedToFulfilled: durationFigures(stepDurations(period, orders, (o) => firstPassed(o, "shipped"), "fulfilled"))
    }
  }
}
