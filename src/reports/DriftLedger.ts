/**
 * The drift ledger: where podsync, the stores and the POD service disagree,
 * judged from what the APIs said, not from podsync's database alone. Pure.
 * Each finding carries its evidence (both sides) and the suggested action.
 */
import { pulledIn } from "./FlowFigures.js"
import {
  driftContext,
  type DriftContext,
  evidenceOf,
  explainHint,
  finding,
  pastGrace,
  storeOfPodRecord,
  storeOfReference
} from "./DriftContext.js"
import { statusFindings } from "./DriftStatus.js"
import { createdAtOf, followedOrder, isActiveDraft, isActiveOrder, isCheckedOut, type PodRecords } from "./PodRecords.js"
import type { ReportInput } from "./ReportInput.js"
import { FINDING_KINDS, type Finding } from "./ReportOutput.js"

const inPeriod = (ctx: DriftContext, at: number | undefined) => at !== undefined && at >= ctx.input.period.from && at < ctx.input.period.to

/** POD records created in the period whose reference id matches no store order. */
const orphans = (ctx: DriftContext): ReadonlyArray<Finding> => {
  const created = <R extends { readonly order_date?: string | undefined }>(r: R) => inPeriod(ctx, createdAtOf(r))
  const drafts = ctx.pod.drafts.filter(isActiveDraft).filter(created)
  const orders = ctx.pod.orders.filter(isActiveOrder).filter(created)
  // Records without a reference id stand alone; the others group by it.
  const keyOf = (r: { readonly order_id: string; readonly reference_id?: string | undefined }) => r.reference_id || `#${r.order_id}`
  const keys = [...new Set([...drafts.map(keyOf), ...orders.map(keyOf)])]
  return keys.flatMap((key) => {
    const ds = drafts.filter((d) => keyOf(d) === key)
    const os = orders.filter((o) => keyOf(o) === key)
    const first = ds[0] ?? os[0]
    if (first === undefined) return [] // unreachable: every key comes from a draft or an order
    const reference = first.reference_id ?? ""
    const storeKey = storeOfPodRecord(ctx, first)
    if (storeKey === undefined || ctx.ours.has(reference) || ctx.storeOrders.has(reference)) return []
    const ids = [...ds.map((d) => `draft ${d.order_id}`), ...os.map((o) => `order ${o.order_id}`)].join(", ")
    const storeSays = storeOfReference(ctx, reference) === undefined
      ? reference === "" ? "no reference id" : "the reference id names no configured store"
      : ctx.storeUnknown.has(reference)
      ? "the store has no such order"
      : `not checked: ${ctx.storeErrors.get(storeKey) ?? "the store was not asked"}`
    return [finding(
      "orphan_at_pod",
      storeKey,
      reference === "" ? null : reference,
      reference === ""
        ? `POD ${ids} carries no reference id`
        : `POD ${ids} carries reference id ${reference}, which matches no store order`,
      { drafts: ds.map(evidenceOf.draft), orders: os.map(evidenceOf.order), store: storeSays, podsync: "no record" },
      "check it at the POD service: if it is not a real order, delete the draft (or cancel the order) there; if it is, it needs the reference id <store key>:<store order id> of its store order"
    )]
  })
}

/** More than one live draft, or more than one live order, for one store order. */
const duplicates = (ctx: DriftContext): ReadonlyArray<Finding> =>
  ctx.pod.references.flatMap((reference) => {
    const storeKey = storeOfReference(ctx, reference)
    if (storeKey === undefined) return []
    const drafts = ctx.pod.draftsOf(reference).filter(isActiveDraft)
    const orders = ctx.pod.ordersOf(reference).filter(isActiveOrder)
    if (drafts.length <= 1 && orders.length <= 1) return []
    const ours = ctx.ours.get(reference)
    const keptDraft = drafts.find((d) => d.order_id === ours?.podDraftId) ?? drafts[0]
    const keptOrder = followedOrder(orders, ours?.podOrderId ?? keptDraft?.origin_order_id ?? null)
    const spareOrders = orders.filter((o) => o !== keptOrder)
    const spareDrafts = drafts.filter((d) => d !== keptDraft && !isCheckedOut(d))
    const actions = [
      spareOrders.length > 0
        ? `cancel POD order ${
          spareOrders.map((o) => o.order_id).join(", ")
        } at the POD service (the buyer would get the items twice; podsync follows order ${keptOrder?.order_id})`
        : undefined,
      spareDrafts.length > 0
        ? `delete draft ${
          spareDrafts.map((d) => d.order_id).join(", ")
        } at the POD service before anyone checks it out (podsync follows draft ${keptDraft?.order_id})`
        : undefined
    ].filter((a): a is string => a !== undefined)
    const counted = [drafts.length > 1 ? `${drafts.length} drafts` : undefined, orders.length > 1 ? `${orders.length} orders` : undefined]
      .filter(Boolean).join(" and ")
    return [finding(
      "duplicate_at_pod",
      storeKey,
      reference,
      `${counted} at the POD service for the one store order ${reference}`,
      {
        followedDraft: keptDraft?.order_id ?? null,
        followedOrder: keptOrder?.order_id ?? null,
        drafts: drafts.map(evidenceOf.draft),
        orders: orders.map(evidenceOf.order),
        podsync: evidenceOf.podsync(ours)
      },
      actions.length > 0 ? actions.join("; ") : `check the drafts of ${reference} at the POD service`
    )]
  })

/** Store orders of the period with no draft at the POD service after the grace time. */
const missingDrafts = (ctx: DriftContext): ReadonlyArray<Finding> => {
  if (!ctx.podReadable) return []
  const candidates = new Set<string>()
  for (const [reference, order] of ctx.storeOrders) {
    if (storeOfReference(ctx, reference) !== undefined && inPeriod(ctx, Date.parse(order.createdAt))) candidates.add(reference)
  }
  // The period's orders, and older ones still waiting for their draft (listed every day until they get one).
  for (const order of ctx.input.orders) {
    const waiting = order.state === "pulled" || order.state === "ready" || order.state === "in_doubt"
    if (ctx.stores.has(order.storeKey) && (pulledIn(ctx.input.period, order) || waiting)) candidates.add(order.referenceId)
  }
  return [...candidates].sort().flatMap((reference) => {
    const ours = ctx.ours.get(reference)
    const storeKey = storeOfReference(ctx, reference)
    const store = storeKey === undefined ? undefined : ctx.stores.get(storeKey)
    // Unreachable: every candidate names a configured store (podsync's reference ids start with their store key).
    if (storeKey === undefined || store === undefined) return []
    const storeOrder = ctx.storeOrders.get(reference) ?? ours?.order
    if (storeOrder === undefined || storeOrder.cancelled || !pastGrace(ctx, Date.parse(storeOrder.createdAt))) return []
    if (ctx.pod.draftsOf(reference).some(isActiveDraft) || ctx.pod.ordersOf(reference).length > 0) return []
    const evidence = {
      store: evidenceOf.store(ctx.storeOrders.get(reference), ctx.storeErrors.get(storeKey)),
      podsync: evidenceOf.podsync(ours),
      pod: "no draft or order with this reference id"
    }
    if (ours === undefined) {
      const eligible = store.eligibleFinancialStatuses.map((s) => s.toLowerCase())
      const toShip = storeOrder.lines.some((l) => l.fulfillableQuantity > 0 && l.requiresShipping)
      if (!eligible.includes(storeOrder.financialStatus) || !toShip) return []
      return [
        finding(
          "missing_draft",
          storeKey,
          reference,
          `store order ${storeOrder.name} (${reference}) has no POD draft, and podsync never pulled it`,
          evidence,
          `run podsync pull --store ${storeKey}; if it stays missing, look for pull errors of ${storeKey} in the daemon's log`
        )
      ]
    }
    if (ours.state === "pulled" || ours.state === "ready" || ours.state === "in_doubt") {
      return [
        finding(
          "missing_draft",
          storeKey,
          reference,
          `store order ${storeOrder.name} (${reference}) has no POD draft; podsync has it as ${ours.state}`,
          evidence,
          ours.state === "in_doubt"
            ? `podsync looks the draft up before trying again; if this stays, ${explainHint(reference)} and check the daemon's log`
            : `check that the daemon is running and drafting (${explainHint(reference)}, podsync status)`
        )
      ]
    }
    // Held and failed orders are listed under "needs a person"; cancelled and non-POD orders need no draft;
    // orders podsync believes drafted are status mismatches.
    return []
  })
}

const kindRank = (kind: Finding["kind"]) => FINDING_KINDS.indexOf(kind)

export const driftLedger = (
  input: ReportInput,
  pod: PodRecords
): { readonly complete: boolean; readonly findings: ReadonlyArray<Finding> } => {
  const ctx = driftContext(input, pod)
  const findings = [...missingDrafts(ctx), ...orphans(ctx), ...duplicates(ctx), ...statusFindings(ctx)]
    .sort((a, b) =>
      kindRank(a.kind) - kindRank(b.kind) || (a.storeKey ?? "").localeCompare(b.storeKey ?? "") ||
      (a.referenceId ?? "").localeCompare(b.referenceId ?? "")
    )
  return { complete: ctx.podReadable && ctx.storeErrors.size === 0, findings }
}
