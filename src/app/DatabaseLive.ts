import * as fs from "node:fs"
import * as path from "node:path"
import { Data, Effect, Layer, Option } from "effect"
import { sql } from "kysely"
import type { AppConfig } from "../config/AppConfig.js"
import { Db, DbLive } from "../db/Db.js"

/** The configured database: PostgreSQL at `database.url`, else the embedded one under `dataDir`. */
export const dbLayer = (config: AppConfig) => DbLive({ url: Option.fromNullable(config.database.url), dataDir: config.dataDir })

/** A command that reads what the daemon wrote found no podsync database: nothing has run yet. */
export class NoDatabaseYetError extends Data.TaggedError("NoDatabaseYetError")<{ readonly where: string }> {
  override get message(): string {
    return `nothing here yet: ${this.where} holds no podsync data (the daemon has not run with this configuration). ` +
      "Start it with `podsync start` (same --config), or try the demo with `npm start`."
  }
}

const where = (config: AppConfig) =>
  config.database.url === undefined ? `the data folder ${config.dataDir}` : "the configured PostgreSQL database"

/**
 * The configured database for a command that reads what the daemon wrote (status, explain, pull,
 * reconcile, report): one the daemon never ran on is said plainly, and is not created as a side
 * effect (an embedded one is not opened at all, a PostgreSQL one is not migrated).
 */
export const existingDbLayer = (config: AppConfig) => {
  const embeddedMissing = config.database.url === undefined && !config.dataDir.startsWith("memory://") &&
    !fs.existsSync(path.join(config.dataDir, "PG_VERSION"))
  const tablesThere = Layer.effectDiscard(Effect.gen(function*() {
    const db = yield* Db
    const { rows } = yield* db.use((k) => sql<{ found: string | null }>`select to_regclass('store_orders')::text as found`.execute(k))
    if ((rows[0]?.found ?? null) === null) return yield* new NoDatabaseYetError({ where: where(config) })
  }))
  return embeddedMissing
    ? Layer.fail(new NoDatabaseYetError({ where: where(config) }))
    : Layer.provideMerge(tablesThere, dbLayer(config))
}
