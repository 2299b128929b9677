import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import pg from "pg"
import { DbLive } from "../../src/db/Db.js"
import { isListingRace, migrateToLatest } from "../../src/db/Migrator.js"

const url = process.env.TEST_DATABASE_URL

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code })

describe("a migration run that met DDL elsewhere while listing the tables", () => {
  it("is tried again when another schema's schema, table or column went away before any migration ran", () => {
    expect(isListingRace(pgError("3F000", `schema "test_other" does not exist`), undefined, "ours")).toBe(true)
    expect(isListingRace(pgError("42P01", `relation "test_other.shipments" does not exist`), [], "ours")).toBe(true)
    expect(isListingRace(pgError("42703", `column "order_id" of relation "shipments" does not exist`), undefined, "ours")).toBe(true)
  })

  it("is not tried again when a migration failed, our own schema is missing, or the error is another", () => {
    const failed = [{ migrationName: "2026-11-21T00-00-01_initial", direction: "Up" as const, status: "Error" as const }]
    expect(isListingRace(pgError("42703", `column "order_id" does not exist`), failed, "ours")).toBe(false)
    expect(isListingRace(pgError("3F000", `schema "ours" does not exist`), undefined, "ours")).toBe(false)
    expect(isListingRace(pgError("23505", "duplicate key value"), undefined, "ours")).toBe(false)
    expect(isListingRace(undefined, undefined, "ours")).toBe(false)
  })
})

describe.runIf(url)("migrations on real PostgreSQL", () => {
  it.effect("are safe when several replicas start at once", () =>
    Effect.gen(function*() {
      const schema = `test_migrate_${randomUUID().replaceAll("-", "").slice(0, 12)}`
      const admin = new pg.Client({ connectionString: url })
      yield* Effect.promise(() => admin.connect().then(() => admin.query(`create schema "${schema}"`)))
      try {
        const replica = migrateToLatest.pipe(
          Effect.provide(DbLive({ url: Option.some(Redacted.make(url!)), dataDir: "unused", schema }))
        )
        const applied = yield* Effect.all([replica, replica, replica], { concurrency: "unbounded" })
        // Exactly one replica applied each migration; the others found it done.
        const all = applied.flat()
        expect(new Set(all).size).toBe(all.length)
        expect(all).toContain("2026-11-21T00-00-01_initial")
        const tables = yield* Effect.promise(() =>
          admin.query(`select count(*)::int as n from information_schema.tables where table_schema = $1 and table_name = 'store_orders'`, [
            schema
          ])
        )
        expect(tables.rows[0].n).toBe(1)
      } finally {
        yield* Effect.promise(() => admin.query(`drop schema "${schema}" cascade`).then(() => admin.end()))
      }
    }))
})
