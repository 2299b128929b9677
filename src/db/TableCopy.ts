/**
 * Copying podsync's tables from one database to another (`podsync db move`): every row as its
 * database writes it as JSON (`row_to_json`), read in batches and written with
 * `json_populate_recordset`, so values never pass through JavaScript numbers or dates (a bigint,
 * a microsecond, a jsonb document arrive as they left). Same SQL on PostgreSQL and PGlite.
 */
import { Effect } from "effect"
import { sql } from "kysely"
import type { DbShape } from "./Db.js"
import { ownerSessionLive } from "./SessionTie.js"

/**
 * podsync's tables, each before the tables that refer to it; the migrations' bookkeeping first
 * (not its lock row: each database's migrator keeps its own). test/db/tableCopy.test.ts checks
 * that this is every table the migrations make.
 */
export const PODSYNC_TABLES = [
  "kysely_migration",
  "store_orders",
  "order_events",
  "order_fixes",
  "shipments",
  "store_cursors",
  "variant_mappings",
  "catalog_variants",
  "webhook_inbox",
  "job_runs",
  "job_leases",
  "reports",
  "report_files",
  "rate_budget_credentials",
  "rate_budget_slots",
  "rate_budget_waiters",
  "store_budgets",
  "store_tokens",
  "alert_outbox",
  "alert_deliveries",
  "alert_conditions",
  "alert_channels",
  "console_actions"
] as const

export type PodsyncTable = typeof PODSYNC_TABLES[number]

/** The table of the migrations applied: copied as the source has it, whatever the target's migrator wrote. */
export const MIGRATIONS_TABLE = "kysely_migration"

// Rows per statement: a store order's raw document is a few kB, so a batch stays a few MB.
const BATCH_ROWS = 500

/** Rows of each table. */
export const countRows = (db: DbShape, tables: ReadonlyArray<string> = PODSYNC_TABLES) =>
  Effect.forEach(tables, (table) =>
    db.use((k) => sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(k)).pipe(
      Effect.map(({ rows }) => [table, rows[0]?.n ?? 0] as const)
    )).pipe(Effect.map((entries) => new Map<string, number>(entries)))

/** Orders by store and state: `store key → state → count`. */
export const orderStates = (db: DbShape) =>
  db.use((k) =>
    sql<{ store_key: string; state: string; n: number }>`select store_key, state, count(*)::int as n from store_orders
      group by store_key, state order by store_key, state`.execute(k)
  ).pipe(Effect.map(({ rows }) => {
    const byStore = new Map<string, Map<string, number>>()
    for (const row of rows) {
      const states = byStore.get(row.store_key) ?? new Map<string, number>()
      states.set(row.state, row.n)
      byStore.set(row.store_key, states)
    }
    return byStore
  }))

/** Empties the tables (in one statement, so references between them do not stand in the way). */
export const emptyTables = (db: DbShape, tables: ReadonlyArray<string>) =>
  tables.length === 0
    ? Effect.void
    : db.use((k) => sql`truncate ${sql.join(tables.map((t) => sql.table(t)))}`.execute(k)).pipe(Effect.asVoid)

/**
 * Takes the source's tables so that nothing writes them until its transaction ends (readers go
 * on): a PostgreSQL source shared with others. Call first in the source's transaction.
 */
export const holdForCopy = (db: DbShape) =>
  db.use(async (k) => {
    await sql`set transaction isolation level repeatable read`.execute(k)
    await sql`lock table ${sql.join(PODSYNC_TABLES.map((t) => sql.table(t)))} in share mode`.execute(k)
  })

/**
 * Copies every row of `table` from `source` to `target`, `BATCH_ROWS` a statement, through a cursor
 * in the source's transaction (one pass over the table, however large); answers the rows copied.
 */
export const copyTable = (source: DbShape, target: DbShape, table: string) =>
  source.transaction(Effect.gen(function*() {
    yield* source.use((k) =>
      sql`declare podsync_copy no scroll cursor for select row_to_json(t)::text as row from ${sql.table(table)} as t`.execute(k)
    )
    let copied = 0
    for (;;) {
      const { rows } = yield* source.use((k) => sql<{ row: string }>`fetch ${sql.lit(BATCH_ROWS)} from podsync_copy`.execute(k))
      if (rows.length === 0) break
      const batch = `[${rows.map((r) => r.row).join(",")}]`
      yield* target.use((k) =>
        sql`insert into ${sql.table(table)} select * from json_populate_recordset(null::${sql.table(table)}, ${batch}::json)`
          .execute(k)
      )
      copied += rows.length
    }
    yield* source.use((k) => sql`close podsync_copy`.execute(k))
    return copied
  }))

/**
 * Sets each of the table's sequences on the target past everything the source gave out (its last
 * value, which may be beyond its highest row after deletes) and every copied row, so a new row
 * never takes an id that is in use or was in use.
 */
export const carrySequences = (source: DbShape, target: DbShape, table: string) =>
  Effect.gen(function*() {
    const serials = yield* target.use((k) =>
      sql<
        { column: string; sequence: string }
      >`select column_name as column, pg_get_serial_sequence(quote_ident(${table}), column_name) as sequence
        from information_schema.columns where table_schema = current_schema() and table_name = ${table}
        and pg_get_serial_sequence(quote_ident(${table}), column_name) is not null`.execute(k)
    )
    for (const { column, sequence } of serials.rows) {
      const given = yield* source.use((k) =>
        sql<
          { last: string | null }
        >`select pg_sequence_last_value(pg_get_serial_sequence(quote_ident(${table}), ${column})::regclass)::text as last`
          .execute(k)
      )
      const last = given.rows[0]?.last ?? "0"
      yield* target.use((k) =>
        sql`select setval(${sequence}::regclass, v, true) from (
          select greatest(${last}::bigint, (select coalesce(max(${sql.ref(column)}), 0) from ${sql.table(table)})::bigint) as v
        ) as next where v >= 1`.execute(k)
      )
    }
  })

/** The tables holding rows (the migrations' bookkeeping aside): a target with any holds podsync data. */
export const tablesWithRows = (db: DbShape) =>
  Effect.map(countRows(db, PODSYNC_TABLES.filter((t) => t !== MIGRATIONS_TABLE)), (counts) => [...counts].filter(([, n]) => n > 0))

/**
 * Work a replica still holds in a PostgreSQL database (a lease on an order or a job): the sign of a
 * daemon running on it. A lease tied to its holder's database session (SessionTie) is held while
 * that session lives, expired or not, and not at all once it ended (a replica stopped or killed a
 * moment ago); an untied one until it expires, on the database's clock.
 */
export const liveLeases = (db: DbShape) =>
  db.use((k) =>
    sql<{ owner: string; until: string }>`select owner, until::text from (
        select lease_owner as owner, lease_expires_at as until from store_orders
          where lease_owner is not null
            and case when lease_session then ${ownerSessionLive("lease_owner")} else lease_expires_at > now() end
        union all select owner, expires_at from job_leases
          where case when session then ${ownerSessionLive("owner")} else expires_at > now() end
      ) as held order by until desc limit 1`.execute(k)
  ).pipe(Effect.map(({ rows }) => rows[0]))
