/**
 * The flow of a period from order_events, pure: how many orders entered each
 * step in the period, and how long the steps took (first pulled → first
 * drafted → first shipped → first fulfilled).
 */
import type { OrderState } from "../domain/OrderState.js"
import type { ReportOrder, ReportPeriod } from "./ReportInput.js"
import type { DurationFigures, FlowFigures } from "./ReportOutput.js"

const inPeriod = (period: ReportPeriod, at: number) => at >= period.from && at < period.to

/** When the order first entered one of `states` (a real move, not a same-state note), if ever. */
export const firstEntered = (order: ReportOrder, states: ReadonlyArray<OrderState>): number | undefined =>
  order.events.find((e) => (states as ReadonlyArray<string>).includes(e.to) && e.from !== e.to)?.at

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

export const durationFigures = (millis: ReadonlyArray<number>): DurationFigures => {
  const seconds = millis.map((ms) => Math.round(ms / 1000)).sort((a, b) => a - b)
  return { count: seconds.length, p50Seconds: percentile(seconds, 0.5), p95Seconds: percentile(seconds, 0.95) }
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
  end: ReadonlyArray<OrderState>
) =>
  orders.flatMap((order) => {
    const finished = firstEntered(order, end)
    const started = start(order)
    return finished !== undefined && started !== undefined && inPeriod(period, finished) && finished >= started ? [finished - started] : []
  })

export const flowFigures = (
  period: ReportPeriod,
  orders: ReadonlyArray<ReportOrder>,
  storeOrdersCreated: number | null
): FlowFigures => {
  const count = (states: ReadonlyArray<OrderState>) => orders.filter((o) => enteredIn(period, o, states)).length
  return {
    storeOrdersCreated,
    pulled: orders.filter((o) => pulledIn(period, o)).length,
    held: count(["held"]),
    drafted: count(["drafted"]),
    checkedOut: count(["checked_out"]),
    inProduction: count(["in_production"]),
    shipped: count(["shipped"]),
    fulfilled: count(["fulfilled"]),
    cancelled: count(["cancelled", "cancel_pending", "pod_cancelled"]),
    timings: {
      pullToDraft: durationFigures(stepDurations(period, orders, pulledAt, ["drafted"])),
      draftToShipped: durationFigures(stepDurations(period, orders, (o) => firstEntered(o, ["drafted"]), ["shipped"])),
      shippedToFulfilled: durationFigures(stepDurations(period, orders, (o) => firstEntered(o, ["shipped"]), ["fulfilled"]))
    }
  }
}
