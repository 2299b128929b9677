/**
 * The table copy under `podsync db move`, between PGlite and (when TEST_DATABASE_URL is set) the
 * real PostgreSQL, both ways: every value arrives as it left (a bigint past 2^53, a microsecond, a
 * jsonb array, a float, text in any script), the migrations' bookkeeping is the source's, and each
 * sequence goes on past every id the source gave out, deleted rows' included.
 */
import { Context, Effect, Layer, type Scope } from "effect"
import { sql } from "kysely"
import { describe, expect, it } from "vitest"
import { Db, type DbShape } from "../../src/db/Db.js"
import { SESSION_LOCK_CLASS } from "../../src/db/SessionTie.js"
import {
  carrySequences,
  copyTable,
  emptyTables,
  liveLeases,
  MIGRATIONS_TABLE,
  orderStates,
  PODSYNC_TABLES,
  tablesWithRows
} from "../../src/db/TableCopy.js"
import { pgliteDatabase, postgresDatabase, type TestDatabase } from "../support/database.js"

const url = process.env.TEST_DATABASE_URL
const backends: ReadonlyArray<() => TestDatabase> = url ? [pgliteDatabase, () => postgresDatabase(url)] : [pgliteDatabase]

const open = (database: TestDatabase): Effect.Effect<DbShape, never, Scope.Scope> =>
  Effect.map(Layer.build(database.layer), (context) => Context.get(context, Db))

const run = <A>(effect: Effect.Effect<A, unknown, Scope.Scope>) => Effect.runPromise(Effect.scoped(effect))

/** Rows of every kind of value podsync stores, and a deleted order, so the sequence is past the highest id. */
const seed = (db: DbShape) =>
  db.use(async (k) => {
    const raw = JSON.stringify({
      name: "#1001",
      customer: { name: "Zoë Þórsdóttir-Łukasiewicz 山田", note: "Deliver to the back door, beside the blue gate" },
      total: { amount: "1234.56", currency: "EUR" },
      lines: [{ sku: "UTS01-FOREST-S", quantity: 2 }, { sku: "GIFT-WRAP", quantity: 1 }]
    }).replace(/}$/, ',"big":12345678901234567890}')
    for (const [id, state] of [["5550001", "fulfilled"], ["5550002", "held"], ["5550003", "drafted"]] as const) {
      await sql`insert into store_orders (store_key, store_order_id, reference_id, state, held_reason, raw, normalized, planned_lines,
          created_at, updated_at, lease_owner, lease_expires_at)
        values ('acme-shopify', ${id}, ${`acme-shopify:${id}`}, ${state}, ${state === "held" ? "unmatched" : null}, ${raw}::jsonb,
          ${raw}::jsonb, ${JSON.stringify([{ lineId: "gid://shopify/LineItem/1", quantity: 2 }])}::jsonb,
          '2026-11-20 10:00:00.123456+00', '2026-11-21 23:59:59.999999+00', null, null)`.execute(k)
    }
    await sql`delete from store_orders where store_order_id = '5550003'`.execute(k)
    await sql`insert into order_events (order_id, at, actor, from_state, to_state, reason, data)
      select id, '2026-11-20 10:00:01.5+00', 'replica-a', null, state, null, '{"draft":{"id":"dft_1"}}'::jsonb from store_orders`.execute(k)
    await sql`insert into shipments (order_id, tracking_no, carrier, push_state, created_at)
      select id, '1Z999AA10123456784', 'UPS', 'pushed', now() from store_orders where state = 'fulfilled'`.execute(k)
    await sql`insert into catalog_variants (variant_id, legacy_variant_id, product_name, raw, refreshed_at, price)
      values ('var_1', 9007199254740993, 'Unisex Tee – Forest Green, Größe S', '{}'::jsonb, now(), '{"amount":"11.50","currency":"USD"}'::jsonb)`
      .execute(k)
    await sql`insert into store_budgets (credential, capacity, restore_per_second, available, updated_at_ms, spent_total)
      values ('shopify-0123', 2000, 100, 0.30000000000000004, 1795000000123, 1e15 + 0.5)`.execute(k)
    await sql`insert into store_tokens (store_key, seed, access_token, issued_at_ms, expires_at_ms, refresh_token, version)
      values ('acme-etsy', 'seed-0123', '873421905.access', 1795000000123, 1795003600123, '873421905.refresh', 9007199254740993)`
      .execute(k)
    await sql`insert into rate_budget_slots (credential, replica, sent_at_ms, answered_at_ms, holds_until_ms, lane, status)
      values ('pod-0123', 'host:1:ab', 1795000000123, null, 1795000010123, 'normal', 200)`.execute(k)
    // More rows than a batch holds, and not a whole number of batches.
    await sql`insert into webhook_inbox (source, delivery_id, topic, received_at, payload)
      select 'pod', 'delivery-' || g, 'order.shipped', '2026-11-20 10:00:00+00'::timestamptz + g * interval '1 second',
        jsonb_build_object('order_id', g, 'tracking', array['1Z' || g, '9400' || g]) from generate_series(1, 1203) as g`.execute(k)
    await sql`insert into alert_outbox (dedup_key, kind, store_key, reference_id, created_at)
      values ('order.held:1:unmatched', 'order.held', 'acme-shopify', 'acme-shopify:5550002', now())`.execute(k)
    await sql`insert into alert_deliveries (alert_id, channel, status, next_attempt_at)
      select id, 'tickets', 'pending', now() from alert_outbox`.execute(k)
  })

/** Each table's rows as JSON text, in one order, with times in UTC. */
const dump = (db: DbShape) =>
  db.transaction(db.use(async (k) => {
    await sql`set local timezone = 'UTC'`.execute(k)
    const tables: Record<string, Array<string>> = {}
    for (const table of PODSYNC_TABLES) {
      const { rows } = await sql<{ row: string }>`select row_to_json(t)::text as row from ${sql.table(table)} as t order by 1`.execute(k)
      tables[table] = rows.map((r) => r.row)
    }
    return tables
  }))

/** What `podsync db move` does in the target's transaction. */
const copyAll = (source: DbShape, target: DbShape) =>
  target.transaction(Effect.gen(function*() {
    yield* emptyTables(target, [MIGRATIONS_TABLE])
    for (const table of PODSYNC_TABLES) {
      yield* copyTable(source, target, table)
      yield* carrySequences(source, target, table)
    }
  }))

describe("the tables podsync db move copies", () => {
  for (const backend of backends) {
    it(`are every table the migrations make (${backend().name})`, () =>
      run(Effect.gen(function*() {
        const db = yield* open(backend())
        const { rows } = yield* db.use((k) =>
          sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(k)
        )
        expect(rows.map((t) => t.name).filter((t) => t !== "kysely_migration_lock").sort()).toEqual([...PODSYNC_TABLES].sort())
      })))
  }

  for (const backend of backends) {
    it(
      `tell a replica at work on the source by its unexpired lease, or its live session (${backend().name})`,
      () =>
        run(Effect.gen(function*() {
          const db = yield* open(backend())
          yield* seed(db)
          expect(yield* liveLeases(db)).toBeUndefined()
          yield* db.use((k) =>
            sql`update store_orders set lease_owner = 'worker-2:4711:9f3c', lease_expires_at = now() - interval '1 second'`.execute(k)
          )
          expect(yield* liveLeases(db)).toBeUndefined()
          yield* db.use((k) =>
            sql`insert into job_leases (job, owner, expires_at) values ('reconcile', 'worker-1:812:1a2b', now() + interval '45 seconds')`
              .execute(k)
          )
          expect((yield* liveLeases(db))?.owner).toBe("worker-1:812:1a2b")
          yield* db.use((k) => sql`delete from job_leases`.execute(k))

          // Tied to its holder's session: held while that session lives, however long ago its lease ran out
          // (a stopped replica), and free the moment it ends (a replica killed a moment ago), unexpired or not.
          // The holder's session: a connection of its own on PostgreSQL (as SessionTie holds it), PGlite's only one.
          const session = db.openSession === undefined ? undefined : yield* Effect.promise(db.openSession)
          const lock = (fn: "pg_advisory_lock" | "pg_advisory_unlock") => {
            const text = `select ${fn}(${SESSION_LOCK_CLASS}, hashtext('worker-3:99:ab'))`
            return session === undefined ? db.use((k) => sql.raw(text).execute(k)) : Effect.promise(() => session.query(text, []))
          }
          yield* db.use((k) =>
            sql`update store_orders set lease_owner = 'worker-3:99:ab', lease_session = true, lease_expires_at = now() - interval '5 minutes'`
              .execute(k)
          )
          yield* lock("pg_advisory_lock")
          expect((yield* liveLeases(db))?.owner).toBe("worker-3:99:ab")
          yield* lock("pg_advisory_unlock")
          yield* db.use((k) => sql`update store_orders set lease_expires_at = now() + interval '50 seconds'`.execute(k))
          expect(yield* liveLeases(db)).toBeUndefined()
          if (session !== undefined) yield* Effect.promise(() => session.end())
        })),
      60_000
    )
  }

  for (const from of backends) {
    for (const to of backends) {
      it(`arrive from ${from().name} in ${to().name} as they left, ids going on past the source's`, () =>
        run(Effect.gen(function*() {
          const source = yield* open(from())
          const target = yield* open(to())
          yield* seed(source)
          // The source's migrations were applied before the target's: the target ends up with the source's record of them.
          yield* source.use((k) => sql`update kysely_migration set timestamp = '2026-11-21T00:00:00.000Z'`.execute(k))
          expect(yield* tablesWithRows(target)).toEqual([])

          yield* copyAll(source, target)

          const [before, after] = [yield* dump(source), yield* dump(target)]
          for (const table of PODSYNC_TABLES) expect(after[table], table).toEqual(before[table])
          expect(before.store_orders).toHaveLength(2)
          expect(after.webhook_inbox).toHaveLength(1203)
          expect(before.kysely_migration!.every((row) => row.includes("2026-11-21T00:00:00.000Z"))).toBe(true)
          expect(after.catalog_variants![0]).toContain("9007199254740993")
          expect(after.store_orders![0]).toContain("12345678901234567890")
          expect(yield* orderStates(target)).toEqual(new Map([["acme-shopify", new Map([["fulfilled", 1], ["held", 1]])]]))

          // The deleted order had id 3: a new order takes 4, and its first event the id after the source's last.
          const next = yield* target.use((k) =>
            sql<{ id: number }>`insert into store_orders (store_key, store_order_id, reference_id, state, raw, normalized, updated_at)
              values ('acme-shopify', '5550004', 'acme-shopify:5550004', 'pulled', '{}', '{}', now()) returning id`.execute(k)
          )
          expect(Number(next.rows[0]!.id)).toBe(4)
          const event = yield* target.use((k) =>
            sql<{ id: number }>`insert into order_events (order_id, at, actor, to_state) values (4, now(), 'test', 'pulled') returning id`
              .execute(k)
          )
          expect(Number(event.rows[0]!.id)).toBe(3)
        })), 60_000)
    }
  }
})
