import { Data, type Effect } from "effect"
import type { Lane } from "./Lane.js"

/**
 * Where the slots of one credential are kept: in this process, or in PostgreSQL so that every
 * replica sharing the credential draws from one log. The ledger decides admission atomically;
 * the order in which local waiters are served is the caller's (see CredentialBudget).
 */
export interface SlotLedger {
  /** Takes as many slots as may be taken now for the local waiters (at most their number). */
  readonly acquire: (request: AcquireRequest) => Effect.Effect<AcquireResult, SlotLedgerError>
  /** The answer arrived (or the request ended): the slot counts until now + window. */
  readonly release: (slot: SlotId, details: SlotDetails) => Effect.Effect<void, SlotLedgerError>
  /** A slot that was granted but never used to send anything. */
  readonly cancel: (slot: SlotId) => Effect.Effect<void, SlotLedgerError>
  /** Still in flight: keep counting the slot (only for ledgers whose in-flight slots can expire). */
  readonly keepAlive: (slot: SlotId) => Effect.Effect<void, SlotLedgerError>
  /** Pauses every caller of the credential for `delayMs` from now (never shortens a pause). */
  readonly pause: (delayMs: number) => Effect.Effect<number, SlotLedgerError>
  /** This replica has no waiters any more. */
  readonly withdraw: Effect.Effect<void, SlotLedgerError>
  readonly usage: Effect.Effect<LedgerUsage, SlotLedgerError>
  /** How often an in-flight slot must be kept alive, or null when it never expires. */
  readonly keepAliveEveryMs: number | null
  /** The shortest a waiting dispatcher sleeps before asking again, so that slots freeing together are taken together. */
  readonly minWaitMs: number
  /** The longest a waiting dispatcher may sleep before asking again (null: no limit). */
  readonly maxWaitMs: number | null
}

export type SlotId = string

export interface AcquireRequest {
  readonly waitingByLane: Readonly<Record<Lane, number>>
}

export interface AcquireResult {
  /** The ledger's clock, epoch ms; `retryAt` and `pausedUntil` are on it too. */
  readonly now: number
  readonly granted: ReadonlyArray<SlotId>
  /** The grants are for local waiters of this lane rank or higher (a replica elsewhere waits in a higher lane). */
  readonly minLaneRank: number
  readonly retryAt: number | null
  readonly inUse: number
  readonly pausedUntil: number | null
}

export interface SlotDetails {
  readonly lane: Lane
  readonly storeKey: string
  readonly operation: string
  /** HTTP status of the answer, when there was one. */
  readonly status: number | null
}

export interface LedgerUsage {
  readonly now: number
  readonly inUse: number
  readonly inFlight: number
  readonly pausedUntil: number | null
}

export class SlotLedgerError extends Data.TaggedError("SlotLedgerError")<{
  readonly operation: string
  readonly cause: unknown
}> {
  override get message(): string {
    return `rate budget ledger could not ${this.operation}; requests wait until the database answers again`
  }
}
