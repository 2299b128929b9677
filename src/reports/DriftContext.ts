/**
 * What the drift checks look things up in, indexed once: podsync's orders,
 * the store snapshots and the POD records by reference id, and the evidence
 * each side gives. Pure.
 */
import { Option } from "effect"
import * as Money from "../domain/Money.js"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import type { DraftListItem as Draft } from "../pod/schemas/Drafts.js"
import { type OrderListItem as Order, primaryTrackingNumber } from "../pod/schemas/Orders.js"
import { enteredCurrentState } from "./NeedsAPerson.js"
import { statusWords } from "../domain/OrderState.js"
import type { PodRecords } from "./PodRecords.js"
import * as ReferenceId from "../domain/ReferenceId.js"
import { type ReportInput, type ReportOrder, type ReportStore } from "./ReportInput.js"
import type { EvidenceValue, Finding, FindingKind } from "./ReportOutput.js"

export interface DriftContext {
  readonly input: ReportInput
  readonly asOf: number
  /** Milliseconds an API disagreement may last before it counts (things settle within minutes). */
  readonly grace: number
  readonly stores: ReadonlyMap<string, ReportStore>
  readonly ours: ReadonlyMap<string, ReportOrder>
  readonly storeOrders: ReadonlyMap<string, NormalizedOrder>
  readonly storeUnknown: ReadonlySet<string>
  readonly storeErrors: ReadonlyMap<string, string>
  readonly pod: PodRecords
  readonly podReadable: boolean
}

export const driftContext = (input: ReportInput, pod: PodRecords): DriftContext => {
  const storeOrders = new Map<string, NormalizedOrder>()
  const storeUnknown = new Set<string>()
  const storeErrors = new Map<string, string>()
  for (const snapshot of input.storeSnapshots) {
    if (snapshot.error !== null) storeErrors.set(snapshot.storeKey, snapshot.error)
    for (const order of snapshot.orders) {
      const reference = ReferenceId.keyOf(snapshot.storeKey, order.storeOrderId)
      const known = storeOrders.get(reference)
      if (known === undefined || known.updatedAt < order.updatedAt) storeOrders.set(reference, order)
    }
    for (const id of snapshot.unknown) storeUnknown.add(ReferenceId.keyOf(snapshot.storeKey, id))
  }
  return {
    input,
    asOf: input.generatedAt,
    grace: input.settings.noDraftAfterMinutes * 60_000,
    stores: new Map(input.stores.map((s) => [s.key, s])),
    ours: new Map(input.orders.map((o) => [o.referenceId, o])),
    storeOrders,
    storeUnknown,
    storeErrors,
    pod,
    podReadable: input.pod.error === null
  }
}

/** The covered store a reference id belongs to, if any. */
export const storeOfReference = (ctx: DriftContext, referenceId: string): string | undefined => {
  const parsed = Option.getOrUndefined(ReferenceId.parse(referenceId))
  return parsed !== undefined && ctx.stores.has(parsed.storeKey) ? parsed.storeKey : undefined
}

/**
 * The covered store a POD record belongs to: the one its reference id names;
 * failing that (no readable reference, or a store key nobody configured), the
 * one whose store_id at the service it carries. A reference naming another
 * configured store belongs to that store's report.
 */
export const storeOfPodRecord = (
  ctx: DriftContext,
  record: { readonly reference_id?: string | undefined; readonly store_id?: string | undefined }
) => {
  const parsed = Option.getOrUndefined(ReferenceId.parse(record.reference_id ?? ""))
  if (parsed !== undefined && ctx.stores.has(parsed.storeKey)) return parsed.storeKey
  if (parsed !== undefined && ctx.input.configuredStoreKeys.includes(parsed.storeKey)) return undefined
  return [...ctx.stores.values()].find((s) => s.podStoreId === record.store_id)?.key
}

export const pastGrace = (ctx: DriftContext, at: number | undefined): boolean => at === undefined || ctx.asOf - at >= ctx.grace

export const finding = (
  kind: FindingKind,
  storeKey: string | null,
  referenceId: string | null,
  summary: string,
  evidence: { readonly [key: string]: EvidenceValue },
  action: string
): Finding => ({ kind, storeKey, referenceId, summary, evidence, action })

const amount = (
  money: Money.Money | undefined
): string | null => (money === undefined ? null : Money.toDecimalString(money) + " " + money.currency)

const draftEvidence = (draft: Draft): EvidenceValue => ({
  id: draft.order_id,
  status: statusWords(draft.status),
  createdAt: draft.order_date ?? null,
  checkedOutAs: draft.origin_order_id || null,
  total: amount(draft.order_total)
})

const orderEvidence = (order: Order): EvidenceValue => ({
  id: order.order_id,
  status: statusWords(order.order_status),
  createdAt: order.order_date ?? null,
  shippedAt: order.shipped_at ?? null,
  trackingNo: primaryTrackingNumber(order) ?? null,
  total: amount(order.order_total)
})

const podsyncEvidence = (order: ReportOrder | undefined): EvidenceValue =>
  order === undefined
    ? "no record"
    : {
      state: order.state,
      since: new Date(enteredCurrentState(order)).toISOString(),
      draftId: order.podDraftId,
      orderId: order.podOrderId,
      shipments: order.shipments.map((s) => `${s.trackingNo} (${s.pushState})`)
    }

const storeEvidence = (order: NormalizedOrder | undefined, error: string | undefined): EvidenceValue =>
  order === undefined
    ? error === undefined ? "not read" : `could not be read: ${error}`
    : {
      name: order.name,
      createdAt: order.createdAt,
      financialStatus: order.financialStatus,
      fulfillmentStatus: order.fulfillmentStatus,
      cancelled: order.cancelled,
      ...(order.cancelledAt !== undefined ? { cancelledAt: order.cancelledAt } : {})
    }

/** The evidence of a finding, one builder per view: a POD draft or order, podsync's record, the store's order. */
export const evidenceOf = { draft: draftEvidence, order: orderEvidence, podsync: podsyncEvidence, store: storeEvidence } as const

export const explainHint = (referenceId: string) => `podsync explain ${referenceId}`
