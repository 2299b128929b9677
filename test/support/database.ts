import { randomUUID } from "node:crypto"
import { Context, Effect, Layer, Option, Redacted, type Scope } from "effect"
import pg from "pg"
import { Db, DbLive } from "../../src/db/Db.js"
import { migrateToLatest } from "../../src/db/Migrator.js"
import { templateDump } from "./databaseTemplate.js"

export interface TestDatabase {
  readonly name: "pglite" | "postgres"
  /** A fresh, migrated database: an in-memory PGlite, or a new schema on the real server (dropped afterwards). */
  readonly layer: Layer.Layer<Db>
  readonly url?: string
  readonly schema?: string
}

const freshSchema = (url: string, schema: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(`create schema "${schema}"`)
      await client.end()
    }),
    () =>
      Effect.promise(async () => {
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        await client.query(`drop schema if exists "${schema}" cascade`)
        await client.end()
      })
  )

const migrated = (layer: Layer.Layer<Db, unknown>) =>
  Layer.tap(layer, (context) => Effect.provide(migrateToLatest, context)).pipe(Layer.orDie)

/** A new in-memory PGlite: a copy of the run's migrated template when there is one (then migrating finds nothing to do). */
export const pgliteDatabase = (): TestDatabase => {
  const loadDataDir = templateDump()
  return {
    name: "pglite",
    layer: migrated(DbLive({ url: Option.none(), dataDir: "memory://", ...(loadDataDir === undefined ? {} : { loadDataDir }) }))
  }
}

export const postgresDatabase = (url: string): TestDatabase => {
  const schema = `test_${randomUUID().replaceAll("-", "").slice(0, 16)}`
  const base = DbLive({ url: Option.some(Redacted.make(url)), dataDir: "unused", schema })
  return {
    name: "postgres",
    url,
    schema,
    layer: migrated(Layer.provideMerge(base, Layer.scopedDiscard(freshSchema(url, schema))))
  }
}

/** PGlite always; the real PostgreSQL server too when TEST_DATABASE_URL is set (CI sets it). */
export const testDatabases = (): ReadonlyArray<TestDatabase> => {
  const url = process.env.TEST_DATABASE_URL
  return url ? [pgliteDatabase(), postgresDatabase(url)] : [pgliteDatabase()]
}

/**
 * A second, independent connection pool to the test's database, as another replica has (on
 * PostgreSQL; PGlite has one connection, so both "replicas" share it), for the test's scope.
 */
export const otherReplicaDb = (database: TestDatabase): Effect.Effect<Db["Type"], never, Db | Scope.Scope> =>
  database.name === "postgres" && database.url !== undefined && database.schema !== undefined
    ? Layer.build(DbLive({ url: Option.some(Redacted.make(database.url)), dataDir: "unused", schema: database.schema }))
      .pipe(Effect.map((context) => Context.get(context, Db)), Effect.orDie)
    : Db
