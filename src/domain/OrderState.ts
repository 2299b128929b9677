/**
 * The life of a store order in podsync (ARCHITECTURE.md "Data flow"), pure.
 * Every transition is checked against this table and appended to
 * order_events; POD progress never moves backwards.
 */
export const ORDER_STATES = [
  "pulled",
  "held",
  "ready",
  "in_doubt",
  "drafted",
  "checked_out",
  "in_production",
  "shipped",
  "fulfilled",
  "cancelled",
  "cancel_pending",
  "pod_cancelled",
  "pod_on_hold",
  "not_pod",
  "failed"
] as const
export type OrderState = (typeof ORDER_STATES)[number]

const PRE_DRAFT: ReadonlyArray<OrderState> = ["pulled", "held", "ready", "cancelled", "not_pod", "failed"]

const TRANSITIONS: Record<OrderState, ReadonlyArray<OrderState>> = {
  pulled: ["held", "ready", "cancelled", "not_pod"],
  held: ["held", "ready", "cancelled", "not_pod"],
  // A 400 holds (rejected_by_pod); an ambiguous failure leaves the outcome in doubt.
  ready: ["held", "ready", "in_doubt", "drafted", "cancelled", "not_pod", "failed"],
  in_doubt: ["ready", "drafted", "held", "failed", "cancel_pending"],
  // drafted -> drafted: the store edited the lines before checkout and the draft was patched.
  drafted: ["drafted", "checked_out", "in_production", "shipped", "cancel_pending", "pod_cancelled", "pod_on_hold", "failed"],
  checked_out: ["in_production", "shipped", "cancel_pending", "pod_cancelled", "pod_on_hold"],
  in_production: ["shipped", "cancel_pending", "pod_cancelled", "pod_on_hold"],
  // pod_on_hold -> pod_on_hold: what it waits for changed (an address or stock condition came or went).
  // pod_on_hold -> drafted: the condition that held a draft not yet checked out has cleared.
  pod_on_hold: ["pod_on_hold", "drafted", "checked_out", "in_production", "shipped", "pod_cancelled", "cancel_pending"],
  // More packages can ship after a first fulfillment: the order goes back to shipped until they are pushed.
  // failed: the store refused every tracking of the order (a person adds it by hand).
  shipped: ["fulfilled", "pod_cancelled", "failed"],
  fulfilled: ["shipped"],
  // Cancelled by the buyer after the draft: it stays in front of a person even if the POD service ships it.
  cancel_pending: ["pod_cancelled"],
  cancelled: ["ready", "held", "not_pod"],
  not_pod: ["ready", "held", "cancelled"],
  pod_cancelled: [],
  failed: ["ready", "held"]
}

export const canTransition = (from: OrderState, to: OrderState): boolean => TRANSITIONS[from].includes(to)

/** States with a POD draft behind them: store changes no longer simply re-plan the order. */
export const hasDraft = (state: OrderState): boolean => !PRE_DRAFT.includes(state)

/** Where POD progress stands, to keep statuses moving forward only. */
const PROGRESS: Partial<Record<OrderState, number>> = {
  drafted: 1,
  checked_out: 2,
  pod_on_hold: 2,
  in_production: 3,
  shipped: 4,
  fulfilled: 5
}
export const podProgress = (state: OrderState): number => PROGRESS[state] ?? 0

export const isOrderState = (value: string): value is OrderState => (ORDER_STATES as ReadonlyArray<string>).includes(value)

/** States that need a person: shown by `status` and the report. */
export const NEEDS_A_PERSON: ReadonlyArray<OrderState> = ["held", "failed", "cancel_pending", "pod_on_hold"]

/**
 * The held reason of an order the store has not been paid for: it waits for the buyer, and is
 * drafted once paid. Held, but no person can act on it: the console counts it apart, and no
 * alert says it needs a person.
 */
export const AWAITING_STORE_PAYMENT = "unpaid"

/** Whether an order in `state` (with `heldReason`) is in front of a person. */
export const needsAPerson = (state: OrderState, heldReason: string | null): boolean =>
  NEEDS_A_PERSON.includes(state) && !(state === "held" && heldReason === AWAITING_STORE_PAYMENT)

/**
 * Why a `pod_on_hold` order waits, when podsync put it there: a POD webhook told of a condition
 * (an address the service cannot verify, a variant out of stock) and the service's answer
 * confirmed it. The code is the order's held reason; without one, the service itself holds the
 * order (its status is ON_HOLD). Reconciliation keeps such an order where it is until the
 * service's answer shows the condition cleared.
 */
export const POD_CONDITIONS = ["address_unverified", "variant_out_of_stock"] as const
export type PodCondition = (typeof POD_CONDITIONS)[number]
export const isPodCondition = (code: string | null | undefined): code is PodCondition =>
  code !== null && code !== undefined && (POD_CONDITIONS as ReadonlyArray<string>).includes(code)

/** The step a POD order status stands for: reconciliation moves orders by it, the report compares with it. */
export const STATE_OF_POD_STATUS: Readonly<Record<string, OrderState>> = {
  VENDOR_ORDER_STATUS_AWAITING_PAYMENT: "checked_out",
  VENDOR_ORDER_STATUS_PAYMENT_FAILED: "checked_out",
  VENDOR_ORDER_STATUS_AWAITING_FULFILLMENT: "checked_out",
  VENDOR_ORDER_STATUS_IN_PRODUCTION: "in_production",
  VENDOR_ORDER_STATUS_PACKED: "in_production",
  VENDOR_ORDER_STATUS_SHIPPED: "shipped",
  VENDOR_ORDER_STATUS_CANCELLED: "pod_cancelled",
  VENDOR_ORDER_STATUS_ON_HOLD: "pod_on_hold"
}

/** "VENDOR_ORDER_STATUS_IN_PRODUCTION" → "in production". */
export const statusWords = (status: string | undefined): string =>
  (status ?? "unknown").replace(/^VENDOR_ORDER_(DRAFT_)?STATUS_/, "").toLowerCase().replaceAll("_", " ")

/** The states each stage claims work in. */
/** States the match stage re-plans when they are due (new, changed, or woken by a mapping/catalog change). */
export const MATCH_STATES: ReadonlyArray<OrderState> = ["pulled", "held", "cancelled", "not_pod"]
export const DRAFT_STATES: ReadonlyArray<OrderState> = ["ready", "in_doubt"]
export const FULFILL_STATES: ReadonlyArray<OrderState> = ["shipped"]
/** Orders with a draft that are not yet shipped: followed at the service. */
export const RECONCILE_STATES: ReadonlyArray<OrderState> = ["drafted", "checked_out", "in_production", "pod_on_hold", "cancel_pending"]
