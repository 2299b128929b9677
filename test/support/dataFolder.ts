import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { beforeAll } from "vitest"
import { exampleConfig, podsync } from "./cli.js"

/**
 * Embedded data folders for tests that spawn the compiled CLI, copied (fs.cpSync) from templates
 * instead of made again: PGlite's initdb and the migrations cost several seconds of CPU a folder,
 * a copy a fraction of one. For tests whose subject is not the making of a new folder (a daemon
 * that must run, a command that must migrate); the new-folder path stays with the tests about it.
 *
 * The templates are made once per test run, whichever file asks first, in a folder of the run's (the
 * vitest process's, every worker's parent), named by what they depend on (PGlite's version; for the
 * migrated one also the bundle and its migrations). A template is made in a folder of its own and
 * renamed into place, whole: another worker making it at the same time loses the rename and uses the
 * winner's. The folders of runs that ended are removed by the next run that makes templates.
 */
const ROOT = path.join(os.tmpdir(), "podsync-test-templates")
const CACHE = path.join(ROOT, `run-${process.ppid}`)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const removeEndedRuns = () => {
  for (const entry of fs.readdirSync(ROOT)) {
    const pid = /^run-(\d+)$/.exec(entry)?.[1]
    if (pid !== undefined && Number(pid) !== process.ppid && !alive(Number(pid))) {
      fs.rmSync(path.join(ROOT, entry), { recursive: true, force: true })
    }
  }
}

const PGLITE_VERSION = (JSON.parse(fs.readFileSync(path.join("node_modules", "@electric-sql", "pglite", "package.json"), "utf8")) as {
  version: string
}).version

const made = new Map<string, Promise<string>>()

const template = (key: string, make: (dataDir: string) => Promise<void>): Promise<string> => {
  const known = made.get(key)
  if (known !== undefined) return known
  const making = (async () => {
    const target = path.join(CACHE, key)
    if (fs.existsSync(target)) return path.join(target, "data")
    fs.mkdirSync(CACHE, { recursive: true })
    removeEndedRuns()
    const work = fs.mkdtempSync(path.join(CACHE, `${key}.making-`))
    try {
      await make(path.join(work, "data"))
      try {
        fs.renameSync(work, target)
      } catch (error) {
        // Another worker renamed its own first: the same content.
        if (!fs.existsSync(target)) throw error
      }
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
    return path.join(target, "data")
  })()
  made.set(key, making)
  return making
}

/** A PGlite data folder as PGlite's initdb left it: podsync has not migrated it yet. */
const initialized = () =>
  template(`pglite-${PGLITE_VERSION}`, async (dataDir) => {
    const db = await PGlite.create(dataDir)
    await db.close()
  })

const bundleKey = () => {
  const hash = createHash("sha256")
  hash.update(fs.readFileSync("dist/podsync.js"))
  for (const file of fs.readdirSync("dist/migrations").filter((f) => f.endsWith(".js")).sort()) {
    hash.update(file).update(fs.readFileSync(path.join("dist/migrations", file)))
  }
  return hash.digest("hex").slice(0, 16)
}

/** A data folder `podsync migrate` brought up to date. */
const migrated = () =>
  template(`migrated-${PGLITE_VERSION}-${bundleKey()}`, async (dataDir) => {
    fs.cpSync(await initialized(), dataDir, { recursive: true })
    const folder = path.dirname(dataDir)
    const result = await podsync(["migrate", "--config", exampleConfig(folder, 0), "--log-level", "none"])
    if (result.code !== 0 || !result.stdout.startsWith("Applied:")) {
      throw new Error(`podsync migrate failed on the template:\n${result.stdout}${result.stderr}`)
    }
    fs.rmSync(path.join(folder, "podsync.yaml"))
  })

const copyTo = (from: string, dataDir: string) => {
  if (fs.existsSync(dataDir)) throw new Error(`${dataDir} exists: a copied data folder must be the test's own`)
  fs.mkdirSync(path.dirname(dataDir), { recursive: true })
  fs.cpSync(from, dataDir, { recursive: true, filter: (file) => path.basename(file) !== "podsync.lock" })
}

/** Makes `dataDir` a PGlite database that podsync has not migrated (as a first `podsync migrate` finds a new one, past initdb). */
export const unmigratedDataFolder = async (dataDir: string) => copyTo(await initialized(), dataDir)

/** Makes `dataDir` an embedded database migrated to this build's schema, with no data in it. */
export const migratedDataFolder = async (dataDir: string) => copyTo(await migrated(), dataDir)

/**
 * Makes the templates before the calling file's tests (in a `beforeAll` with a timeout of its own), so
 * that the first test to copy one does not spend its own timeout making it.
 */
export const prepareDataFolders = () =>
  beforeAll(async () => {
    await migrated()
  }, 180_000)
