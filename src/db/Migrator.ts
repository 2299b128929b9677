import { Effect } from "effect"
import { type MigrationProvider, type MigrationResult, Migrator, sql } from "kysely"
import { migrations } from "../../migrations/index.js"
import { Db, DbError } from "./Db.js"

/** The migrations as listed in migrations/index.ts: compiled into the bundle, nothing read from disk. */
const listedProvider: MigrationProvider = { getMigrations: () => Promise.resolve({ ...migrations }) }

/**
 * Brings the schema up to date. Safe when several replicas start at once:
 * kysely's migrator takes a PostgreSQL advisory lock around the whole run.
 */
export const migrateToLatest = Effect.gen(function*() {
  const db = yield* Db
  // Name our schema: left unset, kysely takes its bookkeeping tables in ANY
  // schema of the database for ours (another app's, another test suite's),
  // skips creating them, and then fails to find them.
  const schema = yield* db.use((k) => sql<{ schema: string }>`select current_schema() as schema`.execute(k))
  const migrator = new Migrator({
    db: db.kysely,
    provider: listedProvider,
    migrationTableSchema: schema.rows[0]?.schema ?? "public"
  })
  const { error, results } = yield* Effect.promise(() => migrator.migrateToLatest())
  const applied = (results ?? []).filter((r: MigrationResult) => r.status === "Success").map((r) => r.migrationName)
  if (error !== undefined) {
    const failed = (results ?? []).find((r) => r.status === "Error")?.migrationName ?? "unknown"
    return yield* Effect.fail(new DbError({ operation: `migration ${failed}`, cause: error }))
  }
  if (applied.length > 0) yield* Effect.logInfo("database migrated").pipe(Effect.annotateLogs({ applied }))
  return applied
})
