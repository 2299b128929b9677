import { Effect } from "effect"
import { type MigrationProvider, type MigrationResult, Migrator, sql } from "kysely"
import { migrations } from "../../migrations/index.js"
import { Db, DbError } from "./Db.js"

/** The migrations as listed in migrations/index.ts: compiled into the bundle, nothing read from disk. */
const listedProvider: MigrationProvider = { getMigrations: () => Promise.resolve({ ...migrations }) }

/**
 * Brings the schema up to date, silently: answers the migrations it applied. Safe when several
 * replicas start at once: kysely's migrator takes a PostgreSQL advisory lock around the whole run.
 */
export const applyMigrations = Effect.gen(function*() {
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
  const ours = schema.rows[0]?.schema ?? "public"
  // kysely's migrator looks for its bookkeeping tables by listing every table of the database; a
  // schema another app (or test suite) drops meanwhile fails that listing with "schema … does not
  // exist" (3F000) before anything is applied. Such a run is tried again: migrating is idempotent.
  const run = Effect.promise(() => migrator.migrateToLatest())
  const { error, results } = yield* run.pipe(
    Effect.repeat({
      until: ({ error }) => !isOtherSchemaGone(error, ours),
      times: 4
    })
  )
  const applied = (results ?? []).filter((r: MigrationResult) => r.status === "Success").map((r) => r.migrationName)
  if (error !== undefined) {
    const failed = (results ?? []).find((r) => r.status === "Error")?.migrationName ?? "unknown"
    return yield* Effect.fail(new DbError({ operation: `migration ${failed}`, cause: error }))
  }
  return applied
})

/** A failure because a schema other than ours went away while the database's tables were listed. */
const isOtherSchemaGone = (error: unknown, ours: string): boolean =>
  typeof error === "object" && error !== null && "code" in error && error.code === "3F000" &&
  error instanceof Error && !error.message.includes(`"${ours}"`)

/** `applyMigrations`, logged when it applied any (the daemon's start, `podsync migrate`). */
export const migrateToLatest = Effect.tap(
  applyMigrations,
  (applied) => applied.length > 0 ? Effect.logInfo("database migrated").pipe(Effect.annotateLogs({ applied })) : Effect.void
)

/** What this database has of the listed migrations, read without creating anything (no bookkeeping table: none applied). */
export const migrationState = Effect.gen(function*() {
  const db = yield* Db
  const table = yield* db.use((k) => sql<{ found: string | null }>`select to_regclass('kysely_migration')::text as found`.execute(k))
  const applied = (table.rows[0]?.found ?? null) === null
    ? []
    : (yield* db.use((k) => sql<{ name: string }>`select name from kysely_migration`.execute(k))).rows.map((row) => row.name)
  const known = Object.keys(migrations)
  return {
    /** Listed here, not applied there. */
    pending: known.filter((name) => !applied.includes(name)).sort(),
    /** Applied there, unknown here: a newer podsync wrote the database. */
    unknown: applied.filter((name) => !known.includes(name)).sort()
  }
})
