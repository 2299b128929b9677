/**
 * The POD service's drafts and orders grouped by reference id, pure. Lists
 * read in several passes (by creation time, by reference ids) overlap: each
 * record is kept once, by id.
 */
import type { DraftListItem as Draft } from "../pod/schemas/Drafts.js"
import type { OrderListItem as Order } from "../pod/schemas/Orders.js"
import type { PodSnapshot } from "./ReportInput.js"

/** Drafts someone deleted or archived no longer count. */
export const isActiveDraft = (draft: Draft): boolean =>
  draft.status !== "VENDOR_ORDER_DRAFT_STATUS_DELETED" && draft.status !== "VENDOR_ORDER_DRAFT_STATUS_ARCHIVED"

export const isCheckedOut = (draft: Draft): boolean =>
  draft.status === "VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT" || (draft.origin_order_id ?? "") !== ""

export const isActiveOrder = (order: Order): boolean => order.order_status !== "VENDOR_ORDER_STATUS_CANCELLED"

const timeOf = (text: string | undefined): number | undefined => {
  const ms = text === undefined ? NaN : Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms
}

/** When a record was made: list items carry no `created_at`, so the draft's `order_date`. */
export const createdAtOf = (record: { readonly order_date?: string | undefined }): number | undefined => timeOf(record.order_date)

/** When a record last changed, as far as its list form tells (it has no `updated_at`): its latest timestamp. */
export const lastChangeOf = (record: {
  readonly order_date?: string | undefined
  readonly approved_at?: string | undefined
  readonly paid_at?: string | undefined
  readonly shipped_at?: string | undefined
}): number | undefined => {
  const known = [record.order_date, record.approved_at, record.paid_at, record.shipped_at].map(timeOf).filter((t): t is number =>
    t !== undefined
  )
  return known.length === 0 ? undefined : Math.max(...known)
}

const byCreation = <R extends { readonly order_id: string; readonly order_date?: string | undefined }>(a: R, b: R) =>
  (a.order_date ?? "").localeCompare(b.order_date ?? "") || a.order_id.localeCompare(b.order_id)

const unique = <R extends { readonly order_id: string }>(records: ReadonlyArray<R>): ReadonlyArray<R> => {
  const seen = new Map<string, R>()
  for (const record of records) if (!seen.has(record.order_id)) seen.set(record.order_id, record)
  return [...seen.values()]
}

export interface PodRecords {
  readonly drafts: ReadonlyArray<Draft>
  readonly orders: ReadonlyArray<Order>
  /** Every draft with the reference id, oldest first (deleted ones too). */
  readonly draftsOf: (referenceId: string) => ReadonlyArray<Draft>
  readonly ordersOf: (referenceId: string) => ReadonlyArray<Order>
  readonly references: ReadonlyArray<string>
}

const group = <
  R extends { readonly order_id: string; readonly order_date?: string | undefined; readonly reference_id?: string | undefined }
>(
  records: ReadonlyArray<R>
) => {
  const map = new Map<string, Array<R>>()
  for (const record of records) {
    const reference = record.reference_id ?? ""
    if (reference === "") continue
    map.set(reference, [...(map.get(reference) ?? []), record])
  }
  for (const list of map.values()) list.sort(byCreation)
  return map
}

export const podRecords = (snapshot: PodSnapshot): PodRecords => {
  const drafts = unique(snapshot.drafts)
  const orders = unique(snapshot.orders)
  const draftsByReference = group(drafts)
  const ordersByReference = group(orders)
  return {
    drafts,
    orders,
    draftsOf: (referenceId) => draftsByReference.get(referenceId) ?? [],
    ordersOf: (referenceId) => ordersByReference.get(referenceId) ?? [],
    references: [...new Set([...draftsByReference.keys(), ...ordersByReference.keys()])].sort()
  }
}

/** The POD order podsync follows for a reference: the one it recorded, else the earliest active one. */
export const followedOrder = (orders: ReadonlyArray<Order>, recordedId: string | null): Order | undefined =>
  orders.find((o) => o.order_id === recordedId && isActiveOrder(o)) ?? orders.find(isActiveOrder)
