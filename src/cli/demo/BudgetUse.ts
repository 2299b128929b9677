import { Effect, Option } from "effect"
import { sql } from "kysely"
import { type Lane, lanesByPriority } from "../../budget/Lane.js"
import { credentialId, RateBudget } from "../../budget/RateBudget.js"
import { makeSqlSlotLedger } from "../../repos/SqlSlotLedger.js"
import { effectiveLimit } from "../../budget/SlotLog.js"
import type { AppConfig } from "../../config/AppConfig.js"
import { Db } from "../../db/Db.js"

/** The shared POD rate budget as the demo shows it. */
export interface BudgetUse {
  /** Requests allowed per window: requests × (1 − headroom). */
  readonly limit: number
  readonly windowSeconds: number
  /** Slots counting now (sent in the window, or in flight). */
  readonly inUse: number
  readonly inFlight: number
  /** Answered requests still counting in the window, per priority lane. */
  readonly byLane: Readonly<Record<Lane, number>>
  /** Callers waiting for a slot per lane, when the daemon's budget can be asked (else undefined). */
  readonly waiting: Readonly<Record<Lane, number>> | undefined
  readonly paused: boolean
}

const noLanes = (): Record<Lane, number> => ({ urgent: 0, normal: 0, background: 0 })

/**
 * Reads the budget from its send log in the database (what every replica
 * shares), and the waiting callers from the daemon's budget when it is in
 * the context. Undefined when the database cannot answer right now.
 */
export const readBudgetUse = (config: AppConfig) =>
  Effect.gen(function*() {
    const db = yield* Db
    const credential = credentialId(config.pod.clientKey)
    const windowMs = config.pod.rateLimit.windowSeconds * 1000
    const limit = effectiveLimit(config.pod.rateLimit)
    // A reader only: `usage` takes no slot and writes nothing.
    const ledger = makeSqlSlotLedger({ db: db.kysely, credential, replica: "podsync-demo-view", limit, windowMs })
    const usage = yield* ledger.usage
    const lanes = yield* Effect.tryPromise(() =>
      sql<{ lane: string; n: number | string }>`
        select lane, count(*) as n from rate_budget_slots
        where credential = ${credential} and lane is not null
          and holds_until_ms >= floor(extract(epoch from clock_timestamp()) * 1000)::bigint
        group by lane`.execute(db.kysely)
    )
    const byLane = noLanes()
    for (const row of lanes.rows) if (lanesByPriority.includes(row.lane as Lane)) byLane[row.lane as Lane] = Number(row.n)
    const budget = yield* Effect.serviceOption(RateBudget)
    const waiting = Option.isSome(budget) ? (yield* budget.value.snapshot).waiting : undefined
    const use: BudgetUse = {
      limit,
      windowSeconds: config.pod.rateLimit.windowSeconds,
      inUse: usage.inUse,
      inFlight: usage.inFlight,
      byLane,
      waiting,
      paused: usage.pausedUntil !== null
    }
    return use
  }).pipe(Effect.option, Effect.map(Option.getOrUndefined))
