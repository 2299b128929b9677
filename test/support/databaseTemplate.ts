import { PGlite } from "@electric-sql/pglite"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Option } from "effect"
import { DbLive } from "../../src/db/Db.js"
import { migrateToLatest } from "../../src/db/Migrator.js"

/**
 * One migrated embedded database made once per run (and kept between runs while the migrations and
 * PGlite are unchanged), which tests copy instead of creating and migrating a database each: a new
 * PGlite cluster costs about 4 s and 6 s of CPU, the migrations 2 s more, a copy 0.1–1.4 s. It is
 * exactly what a daemon makes of an empty data folder (the migrations insert no rows), so a test whose
 * point is a new or empty folder still starts from one of its own.
 */
export interface DatabaseTemplate {
  /** A data folder to copy for a daemon's embedded database. */
  readonly dataDir: string
  /** A data folder as PGlite's initdb left it: what a first `podsync migrate` finds in a new folder. */
  readonly unmigratedDataDir: string
  /** The same database as PGlite's dump, to load an in-memory database from. */
  readonly dump: string
}

const TEMPLATE_ENV = "PODSYNC_TEST_DATABASE_TEMPLATE"

const templateKey = () => {
  // The template's layout (bump when it changes), the migrations and PGlite's version.
  const hash = createHash("sha256").update("layout 2: data, initdb, dump.tar")
  for (const file of fs.readdirSync("migrations").sort()) hash.update(file).update(fs.readFileSync(path.join("migrations", file)))
  hash.update(JSON.parse(fs.readFileSync("node_modules/@electric-sql/pglite/package.json", "utf8")).version)
  return hash.digest("hex").slice(0, 16)
}

const build = async (into: string) => {
  const dataDir = path.join(into, "data")
  const unmigrated = path.join(into, "initdb")
  await (await PGlite.create(unmigrated)).close()
  fs.cpSync(unmigrated, dataDir, { recursive: true })
  // Migrated through the daemon's own database layer, then closed cleanly (no lock file left).
  await Effect.runPromise(Effect.scoped(Effect.provide(migrateToLatest, DbLive({ url: Option.none(), dataDir }))))
  fs.rmSync(path.join(dataDir, "podsync.lock"), { force: true })
  const pglite = await PGlite.create(dataDir)
  const dump = await pglite.dumpDataDir("none")
  await pglite.close()
  fs.writeFileSync(path.join(into, "dump.tar"), Buffer.from(await dump.arrayBuffer()))
}

/** Makes the template if this machine has none for these migrations (vitest's globalSetup), and names it to the workers. */
export const prepareDatabaseTemplate = async (): Promise<DatabaseTemplate> => {
  const home = path.join(os.tmpdir(), `podsync-test-database-${templateKey()}`)
  if (!fs.existsSync(path.join(home, "dump.tar"))) {
    const building = `${home}.${process.pid}`
    fs.rmSync(building, { recursive: true, force: true })
    fs.mkdirSync(building, { recursive: true })
    await build(building)
    try {
      fs.renameSync(building, home)
    } catch (error) {
      // Another run made it meanwhile (their contents are the same): keep theirs.
      fs.rmSync(building, { recursive: true, force: true })
      if (!fs.existsSync(path.join(home, "dump.tar"))) throw error
    }
  }
  process.env[TEMPLATE_ENV] = home
  return templateIn(home)
}

const templateIn = (home: string): DatabaseTemplate => ({
  dataDir: path.join(home, "data"),
  unmigratedDataDir: path.join(home, "initdb"),
  dump: path.join(home, "dump.tar")
})

/** The run's template, or undefined outside a vitest run with the global setup (then tests migrate as before). */
export const databaseTemplate = (): DatabaseTemplate | undefined => {
  const home = process.env[TEMPLATE_ENV]
  return home === undefined ? undefined : templateIn(home)
}

let dumpBlob: Blob | undefined

/** The template's dump as a Blob, read once per worker. */
export const templateDump = (): Blob | undefined => {
  const template = databaseTemplate()
  if (template === undefined) return undefined
  dumpBlob ??= new Blob([fs.readFileSync(template.dump)])
  return dumpBlob
}

/** Seeds `dataDir` (which must not exist yet or be empty) with the migrated template, when the run has one. */
export const seedDataDir = (dataDir: string) => {
  const template = databaseTemplate()
  if (template !== undefined) fs.cpSync(template.dataDir, dataDir, { recursive: true })
}

const copyTo = (from: (template: DatabaseTemplate) => string, dataDir: string) => {
  const template = databaseTemplate()
  if (template === undefined) throw new Error("no database template: run the tests through vitest (its global setup makes one)")
  if (fs.existsSync(dataDir)) throw new Error(`${dataDir} exists: a copied data folder must be the test's own`)
  fs.mkdirSync(path.dirname(dataDir), { recursive: true })
  fs.cpSync(from(template), dataDir, { recursive: true })
}

/** Makes `dataDir` an embedded database migrated to this build's schema, with no data in it. */
export const migratedDataFolder = (dataDir: string) => copyTo((t) => t.dataDir, dataDir)

/** Makes `dataDir` a PGlite database that podsync has not migrated (as a first `podsync migrate` finds a new one, past initdb). */
export const unmigratedDataFolder = (dataDir: string) => copyTo((t) => t.unmigratedDataDir, dataDir)
