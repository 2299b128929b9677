import { Effect } from "effect"
import { type Kysely, sql } from "kysely"
import { jsonb } from "../db/Jsonb.js"
import type { Database } from "../db/schema.js"
import { afterGrants, topWaitingRank, waitingFromRank } from "../budget/Lane.js"
import {
  type AcquireResult,
  type LedgerUsage,
  type SlotDetails,
  type SlotId,
  type SlotLedger,
  SlotLedgerError
} from "../budget/SlotLedger.js"
import { admit } from "../budget/SlotLog.js"
import { makeStatementBatcher } from "../budget/StatementBatcher.js"

/**
 * The slot log of one credential in PostgreSQL (or PGlite), shared by every replica.
 *
 * Admission runs in one transaction per attempt under a transaction-scoped advisory lock on
 * the credential, so replicas take slots one after another. Every time comes from the
 * database's clock: replicas never compare their own clocks. A replica killed with requests in
 * flight leaves their slots counting until its last sign of life + request timeout + window,
 * and a replica that starts reads the log its predecessors left: restarts keep the guarantee.
 *
 * Priority across replicas: each replica advertises the most urgent lane in which it still has
 * callers waiting (refreshed at least every `refreshMs`, ignored after 3 × `refreshMs`, so a
 * dead replica blocks nobody for long); a replica takes slots only for its waiters of a lane at
 * least as urgent as every other replica's. So no replica serves a lower lane while another one
 * has a higher lane waiting, up to the advertisement's delay (one transaction, or the 100 ms
 * poll of a deferring replica). Round-robin across stores holds within each replica; across
 * replicas, slots go to whichever replica asks first when they free.
 *
 * Releases (and cancels, and renewals) that happen close together share one statement (see
 * StatementBatcher: those of one event-loop turn, and those made while the previous one runs;
 * no timer, so nothing waits on the Clock). This keeps the guarantee: the recorded
 * `answered_at_ms` and `holds_until_ms` come from the database's clock when the statement runs,
 * which is at or after the real answer, so a gathered release can only make its slot count
 * longer, never shorter, and never lets more requests than the limit into a window; until it
 * is written the slot counts as in flight (until sent + request timeout + window at least, far
 * beyond one statement). Each caller's `release` ends when the statement carrying its slot
 * does, and fails with SlotLedgerError if that statement fails (every release in it does).
 *
 * The caller of `acquire`/`release` must not hold a transaction on the same database
 * connection (PGlite has only one): the ledger's statements run on their own.
 */
export interface SqlLedgerOptions {
  /** Queries run on this handle directly, outside any transaction of the caller. */
  readonly db: Kysely<Database>
  readonly credential: string
  /** Unique per running process. */
  readonly replica: string
  readonly limit: number
  readonly windowMs: number
  /** Longest a request may stay unanswered before its holder must renew its slot. Default 30 s. */
  readonly requestTimeoutMs?: number
  /** How often a waiting replica asks again at most, which also renews its advertisement. Default 1 s. */
  readonly refreshMs?: number
  /** Drop sent-log rows this long after they stopped counting. Default 10 min. */
  readonly retentionMs?: number
}

// Namespace of our advisory locks (other subsystems use other class ids).
const lockClass = 0x706f6462
// How soon a replica that deferred to a more urgent one asks again.
const priorityPollMs = 100
// Slots that free within this much of each other are taken in one transaction.
const coalesceMs = 10

type Millis = number | string | bigint
const ms = (value: Millis): number => Number(value)
const nowMs = sql<Millis>`floor(extract(epoch from clock_timestamp()) * 1000)::bigint`

/** The row of a statement that always returns exactly one (a select from one computed row, an upsert's returning). */
const onlyRow = <R>(rows: ReadonlyArray<R>, statement: string): R => {
  const row = rows[0]
  if (row === undefined) throw new Error(`${statement} returned no row`)
  return row
}

export const makeSqlSlotLedger = (options: SqlLedgerOptions): SlotLedger => {
  const { db, credential, replica, limit, windowMs } = options
  const timeoutMs = options.requestTimeoutMs ?? 30_000
  const refreshMs = options.refreshMs ?? 1000
  const staleAdvertisementMs = refreshMs * 3
  const retentionMs = options.retentionMs ?? 600_000
  let prunedAt = 0

  const run = <A>(operation: string, f: () => Promise<A>): Effect.Effect<A, SlotLedgerError> =>
    Effect.tryPromise({ try: f, catch: (cause) => new SlotLedgerError({ operation, cause }) })

  const acquire: SlotLedger["acquire"] = (request) =>
    run("take a slot", () =>
      db.transaction().execute(async (trx): Promise<AcquireResult> => {
        // Few round trips while the lock is held: lock, read everything, write everything.
        await sql`select pg_advisory_xact_lock(${sql.lit(lockClass)}, hashtext(${credential}))`.execute(trx)
        const state = onlyRow(
          (await sql<{
            now: Millis
            paused_until_ms: Millis | null
            slots: ReadonlyArray<readonly [number | null, number]>
            others_rank: number | null
          }>`
          select clock.now,
            (select paused_until_ms from rate_budget_credentials where credential = ${credential}) as paused_until_ms,
            (select coalesce(json_agg(json_build_array(s.answered_at_ms, s.holds_until_ms)), '[]'::json)
              from rate_budget_slots s where s.credential = ${credential} and s.holds_until_ms >= clock.now) as slots,
            (select max(w.top_lane_rank) from rate_budget_waiters w
              where w.credential = ${credential} and w.replica <> ${replica}
                and w.seen_at_ms >= clock.now - ${staleAdvertisementMs}) as others_rank
          from (select ${nowMs} as now) clock`.execute(trx)).rows,
          "reading the budget's state"
        )
        const now = ms(state.now)
        const pausedUntil = state.paused_until_ms === null ? null : ms(state.paused_until_ms)
        const slots = state.slots.map(([answeredAt, holdsUntil]) => ({ answeredAt, holdsUntil }))
        // Serve only lanes at least as urgent as any other replica's most urgent waiting lane.
        const minLaneRank = Math.max(0, state.others_rank ?? 0)
        const eligible = waitingFromRank(request.waitingByLane, minLaneRank)
        const total = waitingFromRank(request.waitingByLane, 0)
        const admission = admit({ limit, windowMs, now, wanted: eligible, pausedUntil, slots })

        const stillWaiting = topWaitingRank(afterGrants(request.waitingByLane, admission.granted))
        const inserted = await sql<{ id: Millis }>`
          with advertisement as (
            insert into rate_budget_waiters (credential, replica, top_lane_rank, seen_at_ms)
            values (${credential}, ${replica}, ${stillWaiting}, ${now})
            on conflict (credential, replica)
            do update set top_lane_rank = excluded.top_lane_rank, seen_at_ms = excluded.seen_at_ms
          )
          insert into rate_budget_slots (credential, replica, sent_at_ms, holds_until_ms)
          select ${credential}, ${replica}, ${now}::bigint, ${now + timeoutMs + windowMs}::bigint
          from generate_series(1, ${admission.granted}::int)
          returning id`.execute(trx)
        const granted = inserted.rows.map((row) => String(row.id))
        if (now - prunedAt > windowMs) {
          prunedAt = now
          await sql`delete from rate_budget_slots
            where credential = ${credential} and holds_until_ms < ${now - retentionMs}`.execute(trx)
        }
        // Waiters of lower lanes wait for the replica with more urgent work to take its slots.
        const retryAt = admission.retryAt ?? (eligible < total ? now + Math.min(refreshMs, priorityPollMs) : null)
        return { now, granted, minLaneRank, retryAt, inUse: admission.inUse, pausedUntil }
      }))

  // Gathered writes (see the doc comment at the top). A release is submitted
  // only once answered, so `clock.now` is at or after every answer the statement carries. A
  // gathered cancel frees its slot a little later; a gathered renewal counts from its write,
  // which comes well before the old deadline (renewals run every third of the request timeout).
  const releases = makeStatementBatcher<{ readonly slot: SlotId; readonly details: SlotDetails }>((batch) => {
    const answers = batch.map(({ details, slot }) => ({
      id: slot,
      lane: details.lane,
      store_key: details.storeKey,
      operation: details.operation,
      status: details.status
    }))
    return sql`update rate_budget_slots s
      set answered_at_ms = clock.now, holds_until_ms = clock.now + ${windowMs},
        lane = r.lane, store_key = r.store_key, operation = r.operation, status = r.status
      from (select ceil(extract(epoch from clock_timestamp()) * 1000)::bigint as now) clock,
        jsonb_to_recordset(${jsonb(answers)})
          as r(id bigint, lane text, store_key text, operation text, status integer)
      where s.id = r.id`.execute(db)
  })
  const cancels = makeStatementBatcher<SlotId>((slots) =>
    sql`delete from rate_budget_slots
      where id in (select value::bigint from jsonb_array_elements_text(${jsonb(slots)}))`.execute(db)
  )
  const renewals = makeStatementBatcher<SlotId>((slots) =>
    sql`update rate_budget_slots set holds_until_ms = ${nowMs} + ${timeoutMs + windowMs}
      where id in (select value::bigint from jsonb_array_elements_text(${jsonb(slots)}))
        and answered_at_ms is null`.execute(db)
  )

  const release: SlotLedger["release"] = (slot, details) => run("release a slot", () => releases.submit({ slot, details }))

  const cancel: SlotLedger["cancel"] = (slot) => run("cancel a slot", () => cancels.submit(slot))

  const keepAlive: SlotLedger["keepAlive"] = (slot) => run("renew a slot", () => renewals.submit(slot))

  const pause: SlotLedger["pause"] = (delayMs) =>
    run("pause the credential", async () => {
      const result = await sql<{ paused_until_ms: Millis }>`
        insert into rate_budget_credentials (credential, paused_until_ms, pauses, updated_at)
        values (${credential}, ${nowMs} + ${Math.ceil(delayMs)}, 1, now())
        on conflict (credential) do update set
          paused_until_ms = greatest(coalesce(rate_budget_credentials.paused_until_ms, 0), excluded.paused_until_ms),
          pauses = rate_budget_credentials.pauses + 1,
          updated_at = now()
        returning paused_until_ms`.execute(db)
      return ms(onlyRow(result.rows, "pausing the credential").paused_until_ms)
    })

  const withdraw: SlotLedger["withdraw"] = run(
    "withdraw the waiting advertisement",
    () => sql`delete from rate_budget_waiters where credential = ${credential} and replica = ${replica}`.execute(db)
  ).pipe(
    Effect.asVoid
  )

  const usage: SlotLedger["usage"] = run("read the budget's use", async (): Promise<LedgerUsage> => {
    const result = await sql<{ now: Millis; in_use: Millis; in_flight: Millis; paused_until_ms: Millis | null }>`
      with clock as (select ${nowMs} as now)
      select clock.now,
        (select count(*) from rate_budget_slots s
          where s.credential = ${credential} and s.holds_until_ms >= clock.now) as in_use,
        (select count(*) from rate_budget_slots s
          where s.credential = ${credential} and s.holds_until_ms >= clock.now and s.answered_at_ms is null) as in_flight,
        (select c.paused_until_ms from rate_budget_credentials c where c.credential = ${credential}) as paused_until_ms
      from clock`.execute(db)
    const row = onlyRow(result.rows, "reading the budget's use")
    const now = ms(row.now)
    const pausedUntil = row.paused_until_ms === null ? null : ms(row.paused_until_ms)
    return {
      now,
      inUse: ms(row.in_use),
      inFlight: ms(row.in_flight),
      pausedUntil: pausedUntil !== null && pausedUntil > now ? pausedUntil : null
    }
  })

  return {
    acquire,
    release,
    cancel,
    keepAlive,
    pause,
    withdraw,
    usage,
    keepAliveEveryMs: Math.max(1, Math.floor(timeoutMs / 3)),
    minWaitMs: coalesceMs,
    maxWaitMs: refreshMs
  }
}
