import { DateTime, Effect, type Redacted, Schema } from "effect"
import type { BudgetSnapshot } from "../budget/CredentialBudget.js"
import { credentialId } from "../budget/RateBudget.js"
import { effectiveLimit, type RateLimitSettings } from "../budget/SlotLog.js"
import { makeSqlSlotLedger } from "../repos/SqlSlotLedger.js"
import { Db } from "../db/Db.js"

/** The shared POD rate budget as /status and `podsync status` show it. */
export const BudgetStatus = Schema.Struct({
  credential: Schema.String,
  /** Requests allowed per window (requests × (1 − headroom)). */
  limit: Schema.Number,
  windowSeconds: Schema.Number,
  /** Slots counting now, across every replica. */
  inUse: Schema.Number,
  inFlight: Schema.Number,
  /** Callers of the answering daemon waiting for a slot, per lane; null when read from the database. */
  waiting: Schema.NullOr(Schema.Struct({ urgent: Schema.Number, normal: Schema.Number, background: Schema.Number })),
  pausedUntil: Schema.NullOr(Schema.String),
  /** Since the answering daemon started; null when read from the database. */
  sent: Schema.NullOr(Schema.Number),
  rateLimited: Schema.NullOr(Schema.Number)
})
export type BudgetStatus = typeof BudgetStatus.Type

/** A running daemon's view: its own waiters and counters included. */
export const budgetStatusOf = (snapshot: BudgetSnapshot): BudgetStatus => ({
  credential: snapshot.credential,
  limit: snapshot.limit,
  windowSeconds: snapshot.windowSeconds,
  inUse: snapshot.inUse,
  inFlight: snapshot.inFlight,
  waiting: { ...snapshot.waiting },
  pausedUntil: snapshot.pausedUntil,
  sent: snapshot.sent,
  rateLimited: snapshot.rateLimited
})

/**
 * The budget as the shared send log in the database tells it, for `podsync status` when no
 * daemon answers: slots in use and the pause are known, who waits is not. Reads only.
 */
export const budgetStatusFromLog = (pod: {
  readonly clientKey: Redacted.Redacted<string>
  readonly rateLimit: RateLimitSettings
}) =>
  Effect.gen(function*() {
    const db = yield* Db
    const credential = credentialId(pod.clientKey)
    const ledger = makeSqlSlotLedger({
      db: db.kysely,
      credential,
      replica: "podsync-status",
      limit: effectiveLimit(pod.rateLimit),
      windowMs: pod.rateLimit.windowSeconds * 1000
    })
    const usage = yield* ledger.usage
    return {
      credential,
      limit: effectiveLimit(pod.rateLimit),
      windowSeconds: pod.rateLimit.windowSeconds,
      inUse: usage.inUse,
      inFlight: usage.inFlight,
      waiting: null,
      pausedUntil: usage.pausedUntil === null ? null : DateTime.formatIso(DateTime.unsafeMake(usage.pausedUntil)),
      sent: null,
      rateLimited: null
    } satisfies BudgetStatus
  })
