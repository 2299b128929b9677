/**
 * `podsync db move --to postgres://… | embedded[:DIR] [--force]`: moves podsync's whole state from
 * the configured database (the embedded one under dataDir, or PostgreSQL at database.url) to
 * another, then checks what it copied. The source is held while it is read (the data folder's lock;
 * on PostgreSQL, its tables locked against writes) and the target written in one transaction, so a
 * failed move leaves nothing half-written. A target that already holds podsync data is refused
 * unless `--force`. Exit 0: moved and checked; 1: refused or failed (nothing written); 2: usage.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as path from "node:path"
import { Console, Context, Effect, Either, Layer, Option } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { resolveConfigPath } from "../config/loadConfig.js"
import { Db, DbLive, type DbShape } from "../db/Db.js"
import { applyMigrations, migrationState } from "../db/Migrator.js"
import {
  carrySequences,
  copyTable,
  countRows,
  emptyTables,
  holdForCopy,
  liveLeases,
  MIGRATIONS_TABLE,
  orderStates,
  PODSYNC_TABLES,
  tablesWithRows
} from "../db/TableCopy.js"
import { existingDbLayer } from "../app/DatabaseLive.js"
import { CliFailure, configOption, withConfig } from "./AppRuntime.js"
import { configuredPlace, type DatabasePlace, describePlace, describePlaceFirst, kindOf, parseMoveTarget, samePlace } from "./MoveTarget.js"
import { type Copied, describeCounts, describeStates, sameCopy, TABLE_WORDS } from "./MoveReport.js"

const placeLayer = (place: DatabasePlace) =>
  DbLive(place._tag === "postgres" ? { url: Option.some(place.url), dataDir: "unused" } : { url: Option.none(), dataDir: place.dataDir })

const openDb = <E>(layer: Layer.Layer<Db, E>) => Effect.map(Layer.build(layer), (context) => Context.get(context, Db))

/** What a database holds, in the seller's words: "512 orders, 4,211 steps of the orders' stories, …". */
const holdings = (tables: ReadonlyArray<readonly [string, number]>) =>
  tables.slice(0, 4).map(([table, n]) => `${n.toLocaleString("en-US")} ${TABLE_WORDS[table] ?? table}`).join(", ") +
  (tables.length > 4 ? ", …" : "")

/** The source at the migrations this podsync knows: brought up to date as `podsync start` would, or refused when newer. */
const upToDate = (db: DbShape, place: DatabasePlace) =>
  Effect.gen(function*() {
    const state = yield* Effect.provideService(migrationState, Db, db)
    if (state.unknown.length > 0) {
      return yield* new CliFailure({
        message: `${describePlaceFirst(place)} was written by a newer podsync (migration ${
          state.unknown.join(", ")
        }): move it with that version. Nothing was written.`
      })
    }
    return yield* Effect.provideService(applyMigrations, Db, db)
  })

/** On a PostgreSQL source: a replica still working on it (a lease its live session or its expiry holds) means a daemon runs there. */
const refuseWhileReplicasWork = (source: DbShape, from: DatabasePlace) =>
  Effect.gen(function*() {
    if (from._tag !== "postgres") return
    const held = yield* liveLeases(source)
    if (held === undefined) return
    return yield* new CliFailure({
      message: `${describePlaceFirst(from)} is in use: podsync process ${held.owner} holds work on it until ${held.until}. ` +
        "Stop every podsync that uses it, then move it (a process stopped or killed a moment ago lets go at once; behind a connection pooler, when its lease ends, within a minute). Nothing was written."
    })
  })

/** The copy, in the target's transaction: refused into podsync data unless forced; checked before it is committed. */
const copyAll = (source: DbShape, target: DbShape, from: DatabasePlace, to: DatabasePlace, force: boolean) =>
  target.transaction(Effect.gen(function*() {
    const holding = yield* tablesWithRows(target)
    if (holding.length > 0 && !force) {
      return yield* new CliFailure({
        message: `${describePlaceFirst(to)} already holds podsync data (${holdings(holding)}). Nothing was written. ` +
          "To replace everything in it with this database, run the same command with --force."
      })
    }
    // The target's own migration rows are replaced by the source's, as are its rows when forced.
    yield* emptyTables(target, force ? [...PODSYNC_TABLES] : [MIGRATIONS_TABLE])
    for (const table of PODSYNC_TABLES) {
      yield* copyTable(source, target, table)
      yield* carrySequences(source, target, table)
    }
    const copied: Copied = {
      counts: { from: yield* countRows(source), to: yield* countRows(target) },
      states: { from: yield* orderStates(source), to: yield* orderStates(target) }
    }
    // A copy that does not match fails here, so the target's transaction is rolled back.
    if (!sameCopy(copied)) {
      yield* Console.log(`${describeCounts(copied, kindOf(from), kindOf(to))}\n${describeStates(copied)}`)
      return yield* new CliFailure({
        message: `the copy in ${describePlace(to)} does not match what was read (listed above): nothing was written. ` +
          "Run the command again; if it says so again, keep using the current database."
      })
    }
    return copied
  }))

const move = (configFile: string, app: AppConfig, to: string, force: boolean) =>
  Effect.gen(function*() {
    const parsed = parseMoveTarget(to, app)
    if (Either.isLeft(parsed)) return yield* Effect.fail(parsed.left)
    const target = parsed.right
    const from = configuredPlace(app)
    if (samePlace(from, target)) {
      return yield* new CliFailure({ message: `${describePlaceFirst(target)} is the database ${configFile} already uses: nothing to move` })
    }
    yield* Console.log(`Moving ${describePlace(from)} to ${describePlace(target)}.`)
    const source = yield* openDb(existingDbLayer(app))
    const updated = yield* upToDate(source, from)
    if (updated.length > 0) yield* Console.log(`Brought it up to date first, as podsync start would: ${updated.join(", ")}.`)
    const destination = yield* openDb(placeLayer(target))
    yield* upToDate(destination, target)
    const copied = yield* source.transaction(
      holdForCopy(source).pipe(
        Effect.zipRight(refuseWhileReplicasWork(source, from)),
        Effect.zipRight(copyAll(source, destination, from, target, force))
      )
    )
    yield* Console.log(describeCounts(copied, kindOf(from), kindOf(target)))
    yield* Console.log(describeStates(copied))
    yield* Console.log(
      "Checked: every table has as many rows in both, and every store has as many orders in each state.\n" +
        nextSteps(configFile, app, from, target)
    )
  }).pipe(Effect.scoped)

const nextSteps = (configFile: string, app: AppConfig, from: DatabasePlace, to: DatabasePlace) => {
  const left = `${describePlaceFirst(from)} is left as it was: keep it as a backup until podsync runs well on the new one, ` +
    "and never start podsync on both."
  if (to._tag === "postgres") {
    return `Next: set database.url in ${configFile} to this database (its password from the environment, as in url: \${DATABASE_URL}), ` +
      `then start podsync. ${left}`
  }
  const folder = path.resolve(to.dataDir) === path.resolve(app.dataDir) ? "" : ` and set dataDir: ${to.dataDir}`
  return `Next: remove database.url from ${configFile}${folder}, then start podsync. ${left}`
}

const moveCommand = Command.make(
  "move",
  {
    config: configOption,
    to: Options.text("to").pipe(
      Options.withPseudoName("postgres://USER@HOST:PORT/DATABASE | embedded | embedded:DIR"),
      Options.withDescription(
        "where podsync's data goes: a PostgreSQL database (the password best left out, in $PGPASSWORD), or the embedded database in the configured dataDir or in DIR"
      )
    ),
    force: Options.boolean("force").pipe(
      Options.withDescription("replace whatever podsync data the target already holds (without it, such a target is refused)")
    )
  },
  ({ config, force, to }) => withConfig(config, (app) => move(resolveConfigPath(config), app, to, force))
).pipe(
  Command.withDescription(
    "Move podsync's data from the configured database to PostgreSQL or to an embedded database (stop the daemon first), and check the copy"
  )
)

export const dbCommand = Command.make("db").pipe(
  Command.withDescription("The database: podsync db move --to postgres://… | embedded[:DIR] [--force]"),
  Command.withSubcommands([moveCommand])
)
