/**
 * One store order as podsync's database holds it: the fields the pipeline (`StoredOrder`)
 * and the reconciliation report (`ReportOrder`) both read, each adding its own.
 */
import type { NormalizedOrder } from "./NormalizedOrder.js"
import type { OrderState } from "./OrderState.js"

export interface OrderRecord {
  readonly id: number
  readonly storeKey: string
  readonly storeOrderId: string
  readonly referenceId: string
  readonly state: OrderState
  readonly heldReason: string | null
  readonly heldDetails: unknown
  readonly order: NormalizedOrder
  readonly podDraftId: string | null
  readonly podOrderId: string | null
  readonly podStatus: string | null
  readonly lastError: unknown
  /** The store lines a draft was made of (set when drafted). */
  readonly plannedLines: ReadonlyArray<{ readonly lineId: string; readonly quantity: number }>
}
