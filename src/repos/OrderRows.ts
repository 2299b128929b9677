/**
 * How a store order row reads and writes: the shape the pipeline works on
 * (`StoredOrder`), the columns it reads, and the JSON forms of its order.
 */
import { Clock, Effect, Schema } from "effect"
import { jsonbOrNull } from "../db/Jsonb.js"
import { NormalizedOrder } from "../domain/NormalizedOrder.js"
import type { OrderRecord } from "../domain/OrderRecord.js"
import type { OrderState } from "../domain/OrderState.js"

/** One store order as podsync holds it, with what the pipeline counts and times it by. */
export interface StoredOrder extends OrderRecord {
  readonly attempts: number
  readonly storeUpdatedAt: Date | null
  readonly updatedAt: Date
}

/** An order as reconciliation follows it (the held reason tells a podsync-held `pod_on_hold` apart). */
export type FollowedOrder = Pick<StoredOrder, "id" | "referenceId" | "state" | "heldReason">

export interface OrderEvent {
  readonly at: Date
  readonly actor: string
  readonly from: OrderState | null
  readonly to: OrderState
  readonly reason: string | null
  readonly data: unknown
}

/** What a pulled page did to one order. `quiet`: a newer version that changes nothing the pipeline looks at (stored, no event). */
export type PulledOutcome =
  | { readonly id: number; readonly outcome: "inserted"; readonly state: OrderState }
  | { readonly id: number; readonly outcome: "unchanged" | "quiet"; readonly state: OrderState }
  | { readonly id: number; readonly outcome: "changed"; readonly state: OrderState; readonly previous: NormalizedOrder }

export const encodeOrder = Schema.encodeSync(NormalizedOrder)
export const decodeOrder = Schema.decodeUnknownSync(NormalizedOrder)

export type Row = {
  id: number
  store_key: string
  store_order_id: string
  reference_id: string
  state: OrderState
  held_reason: string | null
  held_details: unknown
  normalized: unknown
  pod_draft_id: string | null
  pod_order_id: string | null
  pod_status: string | null
  attempts: number
  last_error: unknown
  store_updated_at: Date | null
  updated_at: Date
  planned_lines: ReadonlyArray<{ lineId: string; quantity: number }> | null
}

/** The `OrderRecord` of a row whose order is already decoded (the pipeline and the report decode it their own way). */
export const toOrderRecord = (
  row: Omit<Row, "normalized" | "attempts" | "store_updated_at" | "updated_at">,
  order: NormalizedOrder
): OrderRecord => ({
  id: row.id,
  storeKey: row.store_key,
  storeOrderId: row.store_order_id,
  referenceId: row.reference_id,
  state: row.state,
  heldReason: row.held_reason,
  heldDetails: row.held_details,
  order,
  podDraftId: row.pod_draft_id,
  podOrderId: row.pod_order_id,
  podStatus: row.pod_status,
  lastError: row.last_error,
  plannedLines: row.planned_lines ?? []
})

export const toStored = (row: Row): StoredOrder => ({
  ...toOrderRecord(row, decodeOrder(row.normalized)),
  attempts: row.attempts,
  storeUpdatedAt: row.store_updated_at,
  updatedAt: row.updated_at
})

export const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** Every column the pipeline reads (not `raw`: the store payload is kept for audit, not read back). */
export const ORDER_COLUMNS = [
  "id",
  "store_key",
  "store_order_id",
  "reference_id",
  "state",
  "held_reason",
  "held_details",
  "normalized",
  "pod_draft_id",
  "pod_order_id",
  "pod_status",
  "attempts",
  "last_error",
  "store_updated_at",
  "updated_at",
  "planned_lines"
] as const
export const json = (value: unknown) => jsonbOrNull(value as object)
