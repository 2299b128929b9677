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
  // kysely's migrator looks for its bookkeeping tables by listing every column of every table of the
  // database, before it takes its lock. DDL elsewhere meanwhile (another app, another test suite,
  // another replica migrating) fails that listing: a schema dropped ("schema … does not exist",
  // 3F000), or a table or column gone (42P01, or 42703 from pg_get_serial_sequence: seen with six test
  // files migrating and dropping their schemas on one server). Such a run applied nothing and is
  // tried again: migrating is idempotent.
  const run = Effect.promise(() => migrator.migrateToLatest())
  const { error, results } = yield* run.pipe(
    Effect.repeat({
      until: ({ error, results }) => !isListingRace(error, results, ours),
      times: 9
    })
  )
  const applied = (results ?? []).filter((r: MigrationResult) => r.status === "Success").map((r) => r.migrationName)
  if (error !== undefined) {
    const failed = (results ?? []).find((r) => r.status === "Error")?.migrationName ?? "unknown"
    return yield* Effect.fail(new DbError({ operation: `migration ${failed}`, cause: error }))
  }
  return applied
})

/** The errors of a table listing that met DDL on objects it had just listed. */
const LISTING_RACE_CODES: ReadonlySet<string> = new Set(["3F000", "42P01", "42703"])

/**
 * A run that failed listing the database's tables, before any migration ran, because another
 * schema's objects changed meanwhile: tried again. A migration that failed (status "Error") or our
 * own schema missing is not.
 */
export const isListingRace = (error: unknown, results: ReadonlyArray<MigrationResult> | undefined, ours: string): boolean =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" &&
  LISTING_RACE_CODES.has(error.code) && error instanceof Error &&
  !(error.code === "3F000" && error.message.includes(`"${ours}"`)) &&
  !(results ?? []).some((r) => r.status === "Error")

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
