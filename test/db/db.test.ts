import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { sql } from "kysely"
import { Db } from "../../src/db/Db.js"
import * as ReferenceId from "../../src/domain/ReferenceId.js"
import { migrateToLatest } from "../../src/db/Migrator.js"
import { testDatabases } from "../support/database.js"

const insertOrder = (storeOrderId: string) =>
  Effect.flatMap(Db, (db) =>
    db.use((k) =>
      k.insertInto("store_orders").values({
        store_key: "acme",
        store_order_id: storeOrderId,
        reference_id: ReferenceId.keyOf("acme", storeOrderId),
        state: "pulled",
        raw: {},
        normalized: {},
        updated_at: new Date()
      }).returning("id").executeTakeFirstOrThrow()
    ))

const countOrders = Effect.flatMap(
  Db,
  (db) => db.use((k) => k.selectFrom("store_orders").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow())
).pipe(Effect.map((r) => Number(r.n)))

for (const database of testDatabases()) {
  // A standalone layer per backend: it.layer would share one memo map and build the second suite's services on the first one's database.
  layer(database.layer)(`Db on ${database.name}`, (it) => {
    it.effect("creates every table the pipeline needs", () =>
      Effect.gen(function*() {
        const db = yield* Db
        const tables = yield* db.use((k) => k.introspection.getTables())
        const names = tables.map((t) => t.name)
        for (
          const table of [
            "store_orders",
            "order_events",
            "variant_mappings",
            "catalog_variants",
            "shipments",
            "webhook_inbox",
            "job_runs",
            "reports",
            "store_cursors"
          ]
        ) {
          expect(names).toContain(table)
        }
      }))

    it.effect("migrating again applies nothing", () =>
      Effect.gen(function*() {
        expect(yield* migrateToLatest).toEqual([])
      }))

    it.effect("commits a transaction that succeeds and rolls back one that fails", () =>
      Effect.gen(function*() {
        const db = yield* Db
        const before = yield* countOrders
        yield* db.transaction(insertOrder("tx-ok"))
        const failed = yield* db.transaction(
          Effect.zipRight(insertOrder("tx-bad"), Effect.fail("boom" as const))
        ).pipe(Effect.flip)
        expect(failed).toBe("boom")
        expect(yield* countOrders).toBe(before + 1)
        // The connection is usable after the rollback (PGlite's single connection is not poisoned).
        yield* insertOrder("after-rollback")
        expect(yield* countOrders).toBe(before + 2)
      }))

    it.effect("keeps one row per store order", () =>
      Effect.gen(function*() {
        yield* insertOrder("dup")
        const second = yield* insertOrder("dup").pipe(Effect.flip)
        expect(second._tag).toBe("DbError")
        expect(second.message).toMatch(/duplicate key|unique/i)
      }))

    it.effect("serializes concurrent transactions without mixing their statements", () =>
      Effect.gen(function*() {
        const db = yield* Db
        const before = yield* countOrders
        yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) =>
          db.transaction(
            Effect.gen(function*() {
              yield* insertOrder(`par-${i}`)
              if (i % 2 === 1) return yield* Effect.fail(`odd ${i}`)
            })
          ).pipe(Effect.ignore), { concurrency: "unbounded" })
        expect(yield* countOrders).toBe(before + 10)
      }))

    it.effect("returns the same JavaScript types on both backends", () =>
      Effect.gen(function*() {
        const db = yield* Db
        const row = yield* db.use((k) =>
          sql<{ big: number; at: Date; doc: { a: number } }>`select 42::int8 as big, now() as at, '{"a":1}'::jsonb as doc`.execute(k)
        )
        const first = row.rows[0]!
        expect(first.big).toBe(42)
        expect(first.at).toBeInstanceOf(Date)
        expect(first.doc).toEqual({ a: 1 })
      }))
  })
}
