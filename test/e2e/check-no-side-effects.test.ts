/**
 * `podsync check` before the first start (#32): on a data folder that does not exist, or an empty
 * PostgreSQL schema, it verifies the credentials against the simulators and creates nothing: no
 * folder, no table. Its output is its own lines, no log line among them. Where the daemon's database
 * exists and is migrated, its calls go through the shared budget there.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { podsync } from "../support/cli.js"
import { sharedStack, writeDaemonConfig } from "../support/pipeline.js"

const url = process.env.TEST_DATABASE_URL
const stack = sharedStack()

/** The check's config against the stack, its data folder `dataDir` (absent), on `databaseUrl` if given. */
const config = (name: string, dataDir: string, databaseUrl?: string) => {
  const file = writeDaemonConfig(stack, 0, { name, ...(databaseUrl === undefined ? {} : { databaseUrl }) })
  fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/^dataDir: .*$/m, `dataDir: ${dataDir}`))
  return file
}

// Info and up, as logs are written by default; JSON lines, as in a pipe or under systemd.
const env = { PODSYNC_LOG_LEVEL: "info" }

/** Every line of the check's output is a sentence of its own: none is a log line (JSON, or logfmt's level=). */
const expectNoLogLines = (output: string) => {
  for (const line of output.split("\n").filter((l) => l.trim() !== "")) {
    expect(line, line).not.toMatch(/^\s*[{[]/)
    expect(line, line).not.toMatch(/\blevel=|"logLevel"|timestamp=/)
  }
}

describe("podsync check creates nothing", () => {
  it("leaves a data folder that does not exist absent, and says only its own lines", async () => {
    const dataDir = path.join(stack.dir, "new-folder", "data")
    const result = await podsync(["check", "--config", config("fresh", dataDir)], env)
    expect(result.stdout).toMatch(/Catalog: \d+ mapped POD variant\(s\) checked against .* OK/)
    expect(result.stdout).toContain("Store demo-shopify (shopify): credentials accepted")
    expect(result.code).toBe(0)
    expect(fs.existsSync(path.join(stack.dir, "new-folder"))).toBe(false)
    expectNoLogLines(result.stdout)
    expectNoLogLines(result.stderr)
    expect(result.stderr).toBe("")
  }, 60_000)

  it("draws from the shared budget in a data folder the daemon made, and adds nothing else to it", async () => {
    const dataDir = path.join(stack.dir, "made", "data")
    const file = config("made", dataDir)
    const migrated = await podsync(["migrate", "--config", file], env)
    expect(migrated.code).toBe(0)
    const result = await podsync(["check", "--config", file], env)
    expect(result.code).toBe(0)
    expectNoLogLines(result.stdout + result.stderr)
    const { PGlite } = await import("@electric-sql/pglite")
    const db = await PGlite.create(dataDir)
    try {
      // The catalog read's slot in the POD budget's log, and the Shopify credential's bucket.
      expect((await db.query<{ n: number }>("select count(*)::int as n from rate_budget_slots")).rows[0]?.n).toBe(1)
      expect((await db.query<{ n: number }>("select count(*)::int as n from store_budgets")).rows[0]?.n).toBe(1)
      expect((await db.query<{ n: number }>("select count(*)::int as n from store_orders")).rows[0]?.n).toBe(0)
    } finally {
      await db.close()
    }
    // Three openings of an embedded database (migrate, check, this read): each takes seconds on a loaded machine.
  }, 150_000)

  describe.runIf(url)("on PostgreSQL", () => {
    const admin = new pg.Client({ connectionString: url })
    const schemas: Array<string> = []
    beforeAll(() => admin.connect())
    afterAll(async () => {
      for (const schema of schemas) await admin.query(`drop schema if exists "${schema}" cascade`)
      await admin.end()
    })
    const freshSchema = async () => {
      const schema = `check_${randomUUID().replaceAll("-", "").slice(0, 12)}`
      await admin.query(`create schema "${schema}"`)
      schemas.push(schema)
      return { schema, databaseUrl: `${url}?options=-c%20search_path%3D${schema}` }
    }
    const tablesIn = async (schema: string) =>
      (await admin.query<{ name: string }>(
        "select table_name as name from information_schema.tables where table_schema = $1 order by table_name",
        [schema]
      ))
        .rows.map((r) => r.name)

    it("makes no table in an empty schema, and no data folder", async () => {
      const { schema, databaseUrl } = await freshSchema()
      const dataDir = path.join(stack.dir, "pg-folder", "data")
      const result = await podsync(["check", "--config", config("pg-fresh", dataDir, databaseUrl)], env)
      expect(result.stdout).toContain("Store demo-shopify (shopify): credentials accepted")
      expect(result.code).toBe(0)
      expect(await tablesIn(schema)).toEqual([])
      expect(fs.existsSync(path.join(stack.dir, "pg-folder"))).toBe(false)
      expectNoLogLines(result.stdout)
      expect(result.stderr).toBe("")
    }, 60_000)

    it("takes its share of the shared POD budget where the daemon's database is, as a replica does", async () => {
      const { schema, databaseUrl } = await freshSchema()
      const file = config("pg-made", path.join(stack.dir, "pg-made"), databaseUrl)
      expect((await podsync(["migrate", "--config", file], env)).code).toBe(0)
      const tables = await tablesIn(schema)
      const result = await podsync(["check", "--config", file], env)
      expect(result.code).toBe(0)
      expectNoLogLines(result.stdout + result.stderr)
      expect((await admin.query(`select count(*)::int as n from "${schema}".rate_budget_slots`)).rows[0].n).toBe(1)
      expect(await tablesIn(schema)).toEqual(tables)
    }, 60_000)
  })
})
