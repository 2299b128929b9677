/**
 * Drift between the three views of one store order (podsync, the store, the
 * POD service): shipped but not fulfilled, cancelled but still active, and
 * status disagreements. At most one of these per order, the most specific
 * first. Pure.
 */
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import { hasDraft, type OrderState, podProgress } from "../domain/OrderState.js"
import type { DraftListItem as Draft } from "../pod/schemas/Drafts.js"
import { type OrderListItem as Order, primaryTrackingNumber } from "../pod/schemas/Orders.js"
import { type DriftContext, evidenceOf, explainHint, finding, pastGrace, storeOfReference } from "./DriftContext.js"
import { STATE_OF_POD_STATUS, statusWords } from "../domain/OrderState.js"
import { followedOrder, isActiveDraft, isActiveOrder, isCheckedOut, lastChangeOf } from "./PodRecords.js"
import type { ReportOrder } from "./ReportInput.js"
import type { Finding } from "./ReportOutput.js"

interface OrderViews {
  readonly reference: string
  readonly storeKey: string
  readonly ours: ReportOrder | undefined
  readonly store: NormalizedOrder | undefined
  /** Live drafts and orders at the POD service, oldest first. */
  readonly drafts: ReadonlyArray<Draft>
  readonly orders: ReadonlyArray<Order>
  readonly cancelledOrders: ReadonlyArray<Order>
}

const timeOf = (text: string | undefined) => {
  const ms = text === undefined ? NaN : Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms
}

const latest = (...times: ReadonlyArray<number | undefined>) => {
  const known = times.filter((t): t is number => t !== undefined)
  return known.length === 0 ? undefined : Math.max(...known)
}

const ids = (records: ReadonlyArray<{ readonly order_id: string }>) => records.map((r) => r.order_id).join(", ")

const shippedNotFulfilled = (ctx: DriftContext, v: OrderViews): Finding | undefined => {
  const shipped = [followedOrder(v.orders, v.ours?.podOrderId ?? null), ...v.orders]
    .find((o) => o?.order_status === "VENDOR_ORDER_STATUS_SHIPPED")
  const store = v.store
  if (shipped === undefined || store === undefined || store.cancelled) return undefined
  if (!pastGrace(ctx, timeOf(shipped.shipped_at) ?? lastChangeOf(shipped))) return undefined
  const planned = v.ours?.plannedLines ?? []
  const open = planned.flatMap((p) => {
    const line = store.lines.find((l) => l.lineId === p.lineId)
    return line !== undefined && line.fulfillableQuantity > 0 ? [`${line.sku ?? line.title} × ${line.fulfillableQuantity}`] : []
  })
  if (planned.length > 0 ? open.length === 0 : store.fulfillmentStatus === "fulfilled") return undefined
  const tracking = primaryTrackingNumber(shipped)
  const stuck = v.ours?.shipments.find((s) => s.pushState === "rejected" || s.pushState === "on_hold" || s.pushState === "in_doubt")
  const action = v.ours === undefined
    ? `podsync has no record of it: run podsync pull --store ${v.storeKey}, then podsync reconcile`
    : stuck?.pushState === "on_hold"
    ? `the store holds the fulfilment of tracking ${stuck.trackingNo}: release the hold in the store; podsync then pushes it`
    : stuck !== undefined
    ? `the push of tracking ${stuck.trackingNo} is ${stuck.pushState.replace("_", " ")}: ${
      explainHint(v.reference)
    }, and fulfil it in the store by hand if the store refuses it`
    : v.ours.state !== "shipped" && v.ours.state !== "fulfilled"
    ? `podsync has not seen the shipment yet (${v.ours.state}): run podsync reconcile; if it stays, ${explainHint(v.reference)}`
    : `fulfil it in the store with tracking ${tracking ?? "(see the POD order)"}; ${
      explainHint(v.reference)
    } shows why the push did not happen`
  return finding(
    "shipped_not_fulfilled",
    v.storeKey,
    v.reference,
    `POD order ${shipped.order_id} shipped${tracking ? ` (tracking ${tracking})` : ""}, but store order ${store.name} is not fulfilled`,
    {
      pod: evidenceOf.order(shipped),
      store: evidenceOf.store(store, undefined),
      unfulfilledLines: open,
      podsync: evidenceOf.podsync(v.ours)
    },
    action
  )
}

/**
 * The POD service shipped several boxes and the store took some but not all of their tracking (a
 * platform with no way to show a further box, or one that refused it): the buyer cannot see where
 * that box is, so the seller adds it by hand.
 */
const packageNotShown = (v: OrderViews): Finding | undefined => {
  const shipments = v.ours?.shipments ?? []
  const unshown = shipments.filter((s) => s.pushState === "skipped" || s.pushState === "rejected")
  if (v.ours === undefined || unshown.length === 0 || !shipments.some((s) => s.pushState === "pushed")) return undefined
  const name = v.store?.name ?? v.ours.storeOrderId
  const numbers = unshown.map((s) => s.trackingNo).join(", ")
  return finding(
    "package_not_shown",
    v.storeKey,
    v.reference,
    `${shipments.length} boxes shipped for store order ${name}; the buyer is not shown tracking ${numbers}`,
    { podsync: evidenceOf.podsync(v.ours), notShown: unshown.map((s) => `${s.trackingNo} (${s.pushState})`) },
    `add tracking ${numbers} to store order ${name} by hand; ${explainHint(v.reference)} says why the store did not take it`
  )
}

const cancelledButActive = (ctx: DriftContext, v: OrderViews): Finding | undefined => {
  if (v.store === undefined || !v.store.cancelled) return undefined
  const openDrafts = v.drafts.filter((d) => !isCheckedOut(d))
  if (v.orders.length === 0 && openDrafts.length === 0) return undefined
  if (!pastGrace(ctx, timeOf(v.store.cancelledAt ?? v.store.updatedAt))) return undefined
  const shipped = v.orders.filter((o) => o.order_status === "VENDOR_ORDER_STATUS_SHIPPED")
  const live = v.orders.filter((o) => !shipped.includes(o))
  const actions = [
    live.length > 0 ? `cancel POD order ${ids(live)} at the POD service (its API has no cancel call)` : undefined,
    openDrafts.length > 0 ? `delete draft ${ids(openDrafts)} at the POD service` : undefined,
    shipped.length > 0 ? `POD order ${ids(shipped)} has already shipped: settle it with the buyer (a return or a refund)` : undefined
  ].filter((a): a is string => a !== undefined)
  const what = [
    live.length + shipped.length > 0 ? `order ${ids(v.orders)}` : undefined,
    openDrafts.length > 0 ? `draft ${ids(openDrafts)}` : undefined
  ]
    .filter(Boolean).join(" and ")
  return finding(
    "cancelled_but_active_at_pod",
    v.storeKey,
    v.reference,
    `store order ${v.store.name} is cancelled, but POD ${what} is still active`,
    {
      store: evidenceOf.store(v.store, undefined),
      drafts: openDrafts.map(evidenceOf.draft),
      orders: v.orders.map(evidenceOf.order),
      podsync: evidenceOf.podsync(v.ours)
    },
    actions.join("; ")
  )
}

/** podsync's state agrees with the state the POD service's records stand for. */
const agrees = (ours: OrderState, expected: OrderState) =>
  ours === expected ||
  (expected === "shipped" && ours === "fulfilled") ||
  (ours === "cancel_pending" && expected !== "pod_cancelled")

/** An order podsync has recorded a draft for (in_doubt is still being looked up). */
const recordsDraft = (state: OrderState) => hasDraft(state) && state !== "in_doubt"

const statusMismatch = (ctx: DriftContext, v: OrderViews): Finding | undefined => {
  const followed = followedOrder(v.orders, v.ours?.podOrderId ?? null)
  const expected: OrderState | undefined = followed !== undefined
    ? STATE_OF_POD_STATUS[String(followed.order_status)]
    : v.drafts.length > 0
    ? "drafted"
    : v.cancelledOrders.length > 0
    ? "pod_cancelled"
    : undefined
  if (followed !== undefined && expected === undefined) return undefined // a status this version does not know
  const podChanged = latest(...[...v.orders, ...v.drafts, ...v.cancelledOrders].map(lastChangeOf))
  if (!pastGrace(ctx, latest(podChanged, v.ours?.events[v.ours.events.length - 1]?.at))) return undefined
  const pod = { drafts: v.drafts.map(evidenceOf.draft), orders: [...v.orders, ...v.cancelledOrders].map(evidenceOf.order) }
  const [firstDraft] = v.drafts
  const podSays = followed !== undefined
    ? `order ${followed.order_id} is ${statusWords(followed.order_status)}`
    : firstDraft !== undefined
    ? `draft ${firstDraft.order_id} awaits checkout`
    : "the order is cancelled"
  const evidence = { podsync: evidenceOf.podsync(v.ours), pod, store: evidenceOf.store(v.store, ctx.storeErrors.get(v.storeKey)) }
  const mismatch = (detail: string, action: string) => finding("status_mismatch", v.storeKey, v.reference, detail, evidence, action)
  const ours = v.ours
  if (ours === undefined) {
    if (expected === undefined || expected === "pod_cancelled" || v.store === undefined) return undefined
    return mismatch(
      `at the POD service ${podSays} for store order ${v.store.name}, which podsync has no record of`,
      `run podsync pull --store ${v.storeKey}: podsync then finds the draft by its reference id instead of making another`
    )
  }
  if (!recordsDraft(ours.state)) {
    if (expected === undefined || expected === "pod_cancelled") return undefined
    const action = ours.state === "cancelled" || ours.state === "not_pod"
      ? `the store order needs no POD draft (${ours.state}): delete the draft (or cancel the order) at the POD service`
      : ours.state === "held" || ours.state === "failed"
      ? `podsync has it as ${ours.state} though the POD service has it: delete the draft there if it is wrong, or fix what holds it so podsync adopts it (${
        explainHint(v.reference)
      })`
      : `podsync adopts it on its next attempt (look-up by reference id); if this stays, ${explainHint(v.reference)}`
    return mismatch(
      `podsync has ${v.reference} as ${ours.state}, but at the POD service ${podSays}`,
      action
    )
  }
  if (expected === undefined) {
    if (ours.state === "pod_cancelled") return undefined
    return mismatch(
      `podsync recorded draft ${
        ours.podDraftId ?? "(no id)"
      } for ${v.reference} (${ours.state}), but the POD service has no draft or order with this reference id`,
      `look for draft ${ours.podDraftId ?? v.reference} at the POD service (it may have been deleted); ${explainHint(v.reference)}`
    )
  }
  if (agrees(ours.state, expected)) return undefined
  const behind = podProgress(ours.state) < podProgress(expected) || expected === "pod_cancelled" || expected === "pod_on_hold" ||
    ours.state === "pod_on_hold"
  return mismatch(
    `podsync has ${v.reference} as ${ours.state}, but at the POD service ${podSays}`,
    behind
      ? `podsync is behind the POD service: run podsync reconcile; if it stays, ${explainHint(v.reference)}`
      : `podsync is ahead of the POD service, which should not happen: check ${
        followed !== undefined ? `order ${followed.order_id}` : "the draft"
      } there and ${explainHint(v.reference)}`
  )
}

export const statusFindings = (ctx: DriftContext): ReadonlyArray<Finding> => {
  if (!ctx.podReadable) return []
  const references = new Set<string>()
  for (const order of ctx.input.orders) if (ctx.stores.has(order.storeKey)) references.add(order.referenceId)
  for (const reference of [...ctx.storeOrders.keys(), ...ctx.pod.references]) {
    if (storeOfReference(ctx, reference) !== undefined) references.add(reference)
  }
  return [...references].sort().flatMap((reference) => {
    const storeKey = storeOfReference(ctx, reference) ?? ctx.ours.get(reference)?.storeKey
    if (storeKey === undefined) return [] // unreachable: a reference is added for its configured store, or for podsync's record
    const all = ctx.pod.ordersOf(reference)
    const views: OrderViews = {
      reference,
      storeKey,
      ours: ctx.ours.get(reference),
      store: ctx.storeOrders.get(reference),
      drafts: ctx.pod.draftsOf(reference).filter(isActiveDraft),
      orders: all.filter(isActiveOrder),
      cancelledOrders: all.filter((o) => !isActiveOrder(o))
    }
    const found = shippedNotFulfilled(ctx, views) ?? packageNotShown(views) ?? cancelledButActive(ctx, views) ??
      statusMismatch(ctx, views)
    return found === undefined ? [] : [found]
  })
}
