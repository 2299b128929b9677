/**
 * One database for all the tests of a describe block, emptied before each test: a test that needs
 * an empty, migrated database (and whose point is not that the database is new) gets one without
 * paying for a new PGlite (seconds of CPU) or a new schema and its migrations each time.
 *
 * Emptied means as a freshly migrated database is: every podsync table but the migrations' record
 * without rows (`tablesWithRows` is empty) and every sequence back at its start, so ids come out as
 * they would on a new database.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { sql } from "kysely"
import { afterAll, beforeAll } from "vitest"
import { Db, type DbShape } from "../../src/db/Db.js"
import { MIGRATIONS_TABLE, PODSYNC_TABLES } from "../../src/db/TableCopy.js"
import type { TestDatabase } from "./database.js"

export interface SharedDatabase {
  readonly name: TestDatabase["name"]
  /** The database as the tests see it (its url and schema on PostgreSQL, for a second pool). */
  readonly database: TestDatabase
  /** The shared database, emptied: the same for the test as a fresh one from `database.layer`. */
  readonly layer: Layer.Layer<Db>
}

/** Empties every podsync table (not the migrations' record) and restarts their sequences. */
export const emptyDatabase = (db: DbShape) =>
  db.use((k) =>
    sql`truncate ${sql.join(PODSYNC_TABLES.filter((t) => t !== MIGRATIONS_TABLE).map((t) => sql.table(t)))} restart identity cascade`
      .execute(k)
  ).pipe(Effect.orDie, Effect.asVoid)

/**
 * `database`, built once before the describe block's first test and closed after its last (call it in
 * the describe block's body). Its `layer` empties it when a test builds it.
 */
export const sharedDatabase = (database: TestDatabase, buildTimeoutMs = 300_000): SharedDatabase => {
  let scope: Scope.CloseableScope | undefined
  let context: Context.Context<Db> | undefined
  beforeAll(async () => {
    scope = await Effect.runPromise(Scope.make())
    context = await Effect.runPromise(Layer.buildWithScope(database.layer, scope))
  }, buildTimeoutMs)
  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  const emptied = Effect.suspend(() => {
    if (context === undefined) return Effect.dieMessage("the shared database was not built (sharedDatabase outside a describe block?)")
    const built = context
    return Effect.as(emptyDatabase(Context.get(built, Db)), built)
  })
  return { name: database.name, database, layer: Layer.effectContext(emptied) }
}
