/**
 * Store API buckets (domain/StoreBucket.ts) in PostgreSQL or PGlite, one row per store
 * credential, shared by every replica and every one-off command on the database.
 *
 * Each operation is one statement, the bucket's arithmetic (reservations included) done in SQL on the database's clock
 * (`clock_timestamp()`), so replicas never compare their own clocks. A take locks the row (`for
 * update`) and reads, decides and writes it in that statement: two replicas taking at once are
 * served one after the other, and never both spend the same tokens. A time read before waiting
 * for the lock never moves the row's time back (`greatest`), so a wait refills nothing twice.
 * Observing and pausing are upserts, which lock the row the same way.
 *
 * The first use of a credential inserts its row (`on conflict do nothing`); after that a take is
 * the one statement. The statements run on the root handle: a caller's transaction is never
 * joined (on PGlite, whose single connection a transaction holds, the take waits for it).
 */
import { Effect } from "effect"
import { type Kysely, type RawBuilder, sql } from "kysely"
import { type BucketShape, type BucketTake, type StoreBucket, StoreBucketError, type StoreBuckets } from "../domain/StoreBucket.js"
import type { Database } from "../db/schema.js"

type Millis = number | string | bigint
const nowMs = sql<Millis>`floor(extract(epoch from clock_timestamp()) * 1000)::bigint`
// As domain/StoreBucket.ts: a level this close to the cost affords it.
const EPSILON = 1e-6

const float = (value: number | undefined | null): RawBuilder<number | null> => sql<number | null>`${value ?? null}::float8`

export const makeSqlStoreBucket = (db: Kysely<Database>, credential: string, configured?: BucketShape): StoreBucket => {
  const capacity = float(configured?.capacity)
  const restore = float(configured?.restorePerSecond)
  let rowExists = false

  const run = <A>(operation: string, f: () => Promise<A>): Effect.Effect<A, StoreBucketError> =>
    Effect.tryPromise({ try: f, catch: (cause) => new StoreBucketError({ operation, cause }) })

  /** The row of a credential not seen before: the configured shape, full (nothing is known of it yet). */
  const insertRow = (pausedForMs: number, onConflict: RawBuilder<unknown>) =>
    sql`insert into store_budgets (credential, capacity, restore_per_second, available, updated_at_ms, paused_until_ms)
      select ${credential}, ${capacity}, ${restore}, coalesce(${capacity}, 0), clock.now, clock.now + ${Math.ceil(pausedForMs)}::bigint
      from (select ${nowMs} as now) clock
      ${onConflict}`

  const takeStatement = (cost: number, reserve: boolean, maxWaitMs: number) =>
    sql<{ taken: boolean; wait_ms: Millis; ticket: number }>`
      with clock as (select ${nowMs} as now),
      locked as (
        select b.credential, b.available, b.spent_total, b.paused_until_ms, b.updated_at_ms,
          greatest(b.updated_at_ms, clock.now) as now,
          case when b.observed_at_ms is null and ${capacity} is not null then ${capacity} else b.capacity end as capacity,
          case when b.observed_at_ms is null and ${capacity} is not null then ${restore} else b.restore_per_second end as restore
        from store_budgets b cross join clock
        where b.credential = ${credential}
        for update of b
      ),
      levelled as (
        select locked.*,
          case when capacity is null then available
            else least(capacity, available + restore * (now - updated_at_ms) / 1000.0) end as level,
          least(${float(cost)}, capacity) as needed
        from locked
      ),
      decided as (
        select levelled.*,
          paused_until_ms > now as paused,
          (case
            when paused_until_ms > now then paused_until_ms - now
            when capacity is null or restore <= 0 or level >= needed - ${EPSILON} then 0
            else greatest(1, ceil((needed - level) / restore * 1000 - ${EPSILON}))
          end)::bigint as wait_ms
        from levelled
      ),
      reserved as (
        select decided.*, (not paused and (wait_ms = 0 or (${reserve}::boolean and wait_ms <= ${float(maxWaitMs)}))) as taken from decided
      ),
      written as (
        update store_budgets b set
          capacity = r.capacity,
          restore_per_second = r.restore,
          available = r.level - (case when r.taken and r.capacity is not null then ${float(cost)} else 0 end),
          spent_total = r.spent_total + (case when r.taken then ${float(cost)} else 0 end),
          updated_at_ms = r.now,
          updated_at = now()
        from reserved r
        where b.credential = r.credential
      )
      select taken, wait_ms, spent_total + (case when taken then ${float(cost)} else 0 end) as ticket from reserved`.execute(db)

  const take: StoreBucket["take"] = (cost, options = {}) =>
    run("take from the bucket", async (): Promise<BucketTake> => {
      const reserve = options.reserve === true
      const maxWaitMs = options.maxWaitMs ?? Number.MAX_VALUE
      let rows = rowExists ? (await takeStatement(cost, reserve, maxWaitMs)).rows : []
      if (rows.length === 0) {
        await insertRow(0, sql`on conflict (credential) do nothing`).execute(db)
        rows = (await takeStatement(cost, reserve, maxWaitMs)).rows
      }
      const row = rows[0]
      if (row === undefined) throw new Error(`no budget row for ${credential} after inserting it`)
      rowExists = true
      return { taken: row.taken, waitMs: Number(row.wait_ms), ticket: Number(row.ticket) }
    })

  const pausedFor: StoreBucket["pausedFor"] = run("read the bucket's pause", async () => {
    const { rows } = await sql<{ left_ms: Millis }>`
      select greatest(0, b.paused_until_ms - clock.now) as left_ms
      from store_budgets b cross join (select ${nowMs} as now) clock
      where b.credential = ${credential}`.execute(db)
    return rows[0] === undefined ? 0 : Number(rows[0].left_ms)
  })

  const observe: StoreBucket["observe"] = (reading, answered) =>
    run("record what the store said of its bucket", async () => {
      const available = float(reading.available)
      const capacityNow = float(reading.capacity)
      // As domain/StoreBucket.ts observeReading: the store's word less what was taken after the answered take,
      // and, with the answer's credit, no more than the bucket's own count.
      const fromStore = sql`${available} - greatest(0, b.spent_total - coalesce(${float(answered?.ticket)}, b.spent_total))`
      const ownCount = sql`least(${capacityNow}, least(b.capacity,
        b.available + b.restore_per_second * greatest(0, excluded.updated_at_ms - b.updated_at_ms) / 1000.0) + ${float(answered?.credit)})`
      await sql`
        with clock as (select ${nowMs} as now)
        insert into store_budgets as b
          (credential, capacity, restore_per_second, available, updated_at_ms, observed_at_ms)
        select ${credential}, ${capacityNow}, ${float(reading.restorePerSecond)},
          coalesce(${available}, ${capacityNow}), clock.now, clock.now
        from clock
        on conflict (credential) do update set
          capacity = excluded.capacity,
          restore_per_second = excluded.restore_per_second,
          available = case
            when ${available} is not null and (${
        float(answered?.credit)
      } is null or b.capacity is null or ${available} >= ${capacityNow} - ${EPSILON})
              then ${fromStore}
            when ${available} is not null then least(${fromStore}, ${ownCount})
            when b.capacity is null then excluded.capacity
            else least(
              excluded.capacity,
              b.capacity,
              b.available + b.restore_per_second * greatest(0, excluded.updated_at_ms - b.updated_at_ms) / 1000.0
            )
          end,
          updated_at_ms = greatest(b.updated_at_ms, excluded.updated_at_ms),
          observed_at_ms = excluded.observed_at_ms,
          updated_at = now()`.execute(db)
    })

  const pause: StoreBucket["pause"] = (ms) =>
    run("pause the bucket", async () => {
      await insertRow(
        ms,
        sql`on conflict (credential) do update set
          paused_until_ms = greatest(store_budgets.paused_until_ms, excluded.paused_until_ms),
          updated_at = now()`
      ).execute(db)
    })

  return { take, pausedFor, observe, pause }
}

/** Every credential's bucket in the database; `db` is the root handle (never a caller's transaction). */
export const makeSqlStoreBuckets = (db: Kysely<Database>): StoreBuckets => ({
  open: (credential, configured) => makeSqlStoreBucket(db, credential, configured)
})
