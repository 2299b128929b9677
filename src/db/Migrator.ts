import * as fs from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Effect } from "effect"
import { type Migration, type MigrationProvider, type MigrationResult, Migrator, sql } from "kysely"
import { Db, DbError } from "./Db.js"

// src/db → ../../migrations: the TypeScript sources under vitest, dist/migrations when compiled.
const migrationFolder = fileURLToPath(new URL("../../migrations", import.meta.url))

/**
 * kysely's FileMigrationProvider, except that the import happens here: under
 * vitest only our own modules' imports are transformed, so .ts migrations load.
 */
const folderProvider: MigrationProvider = {
  getMigrations: async () => {
    const files = (await fs.readdir(migrationFolder))
      .filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith(".d.ts"))
      .sort()
    const migrations: Record<string, Migration> = {}
    for (const file of files) {
      migrations[file.replace(/\.(js|ts)$/, "")] = (await import(pathToFileURL(path.join(migrationFolder, file)).href)) as Migration
    }
    return migrations
  }
}

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
    provider: folderProvider,
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
