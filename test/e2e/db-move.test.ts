/**
 * `podsync db move` (#32) on the state a daemon left in its data folder after a real run against
 * the simulators: orders fulfilled, checked out, drafted, held and cancelled, with their shipments,
 * stories, alerts, webhook deliveries, mapping rows and budgets. Moved embedded → PostgreSQL →
 * embedded with the CLI bundle, every order's state and every table's rows are the same after each
 * move; a daemon on the new database carries on without a second draft or a colliding id; a target
 * that holds podsync data is refused unless --force; a data folder a daemon holds is refused.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PODSYNC_TABLES } from "../../src/db/TableCopy.js"
import { startWebhookReceiver, type WebhookReceiver } from "../support/alertReceivers.js"
import { podsync } from "../support/cli.js"
import {
  createOrders,
  driveUntil,
  freePort,
  getJson,
  post,
  sharedStack,
  type Stack,
  startDaemon,
  statusOf,
  stopDaemons,
  waitFor,
  writeDaemonConfig
} from "../support/pipeline.js"

const url = process.env.TEST_DATABASE_URL
const PASSWORD = "s3cret-move-pw"

/** What a database holds, as compared across a move: rows per table, and each order's state (and draft). */
interface Snapshot {
  readonly counts: Record<string, number>
  readonly orders: ReadonlyArray<string>
}

type Query = (text: string) => Promise<ReadonlyArray<Record<string, unknown>>>

const snapshotOf = async (query: Query): Promise<Snapshot> => {
  const counts: Record<string, number> = {}
  for (const table of PODSYNC_TABLES) counts[table] = Number((await query(`select count(*)::int as n from ${table}`))[0]?.n)
  const orders = (await query("select reference_id, state, pod_draft_id from store_orders order by reference_id"))
    .map((r) => `${String(r.reference_id)} ${String(r.state)} ${String(r.pod_draft_id)}`)
  return { counts, orders }
}

const embeddedSnapshot = async (dataDir: string) => {
  const db = await PGlite.create(dataDir)
  try {
    return await snapshotOf(async (text) => (await db.query<Record<string, unknown>>(text)).rows)
  } finally {
    await db.close()
  }
}

const postgresSnapshot = (admin: pg.Client, schema: string) =>
  snapshotOf(async (text) => (await admin.query(text.replace(/from (\w+)/, `from "${schema}".$1`))).rows)

/** A daemon config against the stack with the POD webhooks and one alert channel to `receiver`. */
const daemonConfig = (stack: Stack, port: number, receiver: WebhookReceiver, name: string, databaseUrl?: string) => {
  const file = writeDaemonConfig(stack, port, { name, podWebhooks: true, ...(databaseUrl === undefined ? {} : { databaseUrl }) })
  fs.appendFileSync(
    file,
    `\nalerts:\n  channels:\n    - name: tickets\n      webhook: { url: "${receiver.url}/podsync", secret: move-secret }\n  digestMinutes: 0\n`
  )
  return file
}

const unmatchedOrder = (stack: Stack, i: number) =>
  post(`${stack.shopify.url}/__sim/orders`, {
    financialStatus: "PAID",
    lineItems: [{ sku: `NOT-MAPPED-${i}`, title: "Hand-thrown Stoneware Mug, Glazed in Deep Ocean Blue", quantity: 1, price: "32.50" }]
  }) as Promise<{ legacyResourceId: number }>

const count = (status: Record<string, number>, ...states: ReadonlyArray<string>) => states.reduce((n, s) => n + (status[s] ?? 0), 0)

describe("podsync db move", () => {
  const stack = sharedStack()
  const schema = `move_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  const admin = new pg.Client({ connectionString: url })
  const databaseUrl = `${url}?options=-c%20search_path%3D${schema}`
  let receiver: WebhookReceiver
  let source: Snapshot
  let sourceConfig: string
  let sourceDir: string

  beforeAll(async () => {
    if (url !== undefined) {
      await admin.connect()
      await admin.query(`create schema "${schema}"`)
    }
    receiver = await startWebhookReceiver({ secret: "move-secret" })
    const port = await freePort()
    sourceConfig = daemonConfig(stack, port, receiver, "source")
    sourceDir = path.join(stack.dir, "data")
    for (const topic of ["orders/create", "orders/updated"]) {
      await post(`${stack.shopify.url}/__sim/webhooks/subscribe`, { topic, address: `http://127.0.0.1:${port}/webhooks/demo-shopify` })
    }
    const daemon = await startDaemon(sourceConfig, port)
    try {
      const read = () => statusOf(port)
      await createOrders(stack, 6)
      await driveUntil(stack, read, (s) => count(s, "fulfilled") === 6, 90_000)
      await createOrders(stack, 4)
      await waitFor(read, (s) => count(s, "drafted") === 4, 60_000)
      await post(`${stack.pod.url}/__sim/checkout-all`, { paid: true })
      await waitFor(read, (s) => count(s, "checked_out", "in_production") === 4, 60_000)
      await createOrders(stack, 3)
      const cancelled = await unmatchedOrder(stack, 0)
      await unmatchedOrder(stack, 1)
      await unmatchedOrder(stack, 2)
      await waitFor(read, (s) => count(s, "drafted") === 3 && count(s, "held") === 3, 60_000)
      await post(`${stack.shopify.url}/__sim/orders/${cancelled.legacyResourceId}/cancel`, {})
      await waitFor(read, (s) => count(s, "cancelled") === 1 && count(s, "held") === 2, 60_000)
      await waitFor(async () => receiver.delivered().length, (n) => n >= 1, 60_000)

      // While the daemon holds the data folder, the move is refused, naming it, and nothing is made.
      const held = await podsync(["db", "move", "--config", sourceConfig, "--to", `embedded:${path.join(stack.dir, "held-copy")}`])
      expect(held.stderr).toMatch(/The embedded database in .* is in use by another podsync process \(pid \d+\)/)
      expect(held.code).toBe(1)
      expect(fs.existsSync(path.join(stack.dir, "held-copy"))).toBe(false)
    } finally {
      await stopDaemons(daemon)
    }
    source = await embeddedSnapshot(sourceDir)
  }, 300_000)
  afterAll(async () => {
    await receiver.close()
    if (url !== undefined) {
      await admin.query(`drop schema if exists "${schema}" cascade`)
      await admin.end()
    }
  })

  it("starts from a database with rows in every table that matters", () => {
    for (
      const table of [
        "store_orders",
        "order_events",
        "shipments",
        "store_cursors",
        "variant_mappings",
        "catalog_variants",
        "webhook_inbox",
        "job_runs",
        "rate_budget_slots",
        "store_budgets",
        "alert_outbox",
        "alert_deliveries"
      ]
    ) expect(source.counts[table], table).toBeGreaterThan(0)
    expect(source.orders).toHaveLength(16)
  })

  it("moves it to another embedded database, refuses to write there again, and replaces it with --force", async () => {
    const copy = path.join(stack.dir, "copy")
    const moved = await podsync(["db", "move", "--config", sourceConfig, "--to", `embedded:${copy}`])
    expect(moved.stdout).toMatch(/^ {2}orders +16 +16$/m)
    expect(moved.stdout).toContain("Checked: every table has as many rows in both")
    expect(moved.code).toBe(0)
    expect(await embeddedSnapshot(copy)).toEqual(source)

    const again = await podsync(["db", "move", "--config", sourceConfig, "--to", `embedded:${copy}`])
    expect(again.stderr).toContain(`The embedded database in ${copy} already holds podsync data (16 orders`)
    expect(again.stderr).toContain("run the same command with --force")
    expect(again.code).toBe(1)

    const forced = await podsync(["db", "move", "--config", sourceConfig, "--to", `embedded:${copy}`, "--force"])
    expect(forced.code).toBe(0)
    expect(await embeddedSnapshot(copy)).toEqual(source)
  }, 180_000)

  describe.runIf(url)("to PostgreSQL and back", () => {
    it("moves every order and row, and a daemon on PostgreSQL carries on without a second draft", async () => {
      const target = databaseUrl.replace("postgres://postgres@", `postgres://postgres:${PASSWORD}@`)

      const moved = await podsync(["db", "move", "--config", sourceConfig, "--to", target])
      expect(moved.stdout).toContain("Moving the embedded database in")
      expect(moved.stdout).toContain("to PostgreSQL at postgres://postgres:***@127.0.0.1")
      expect(moved.stdout).toMatch(/^ {2}orders +16 +16$/m)
      expect(moved.stdout).toMatch(/^ {2}demo-shopify +6 fulfilled/m)
      expect(moved.code).toBe(0)
      expect(moved.stdout + moved.stderr).not.toContain(PASSWORD)
      expect(await postgresSnapshot(admin, schema)).toEqual(source)

      const again = await podsync(["db", "move", "--config", sourceConfig, "--to", target])
      expect(again.stderr).toContain("already holds podsync data (16 orders")
      expect(again.stderr).toContain("--force")
      expect(again.stdout + again.stderr).not.toContain(PASSWORD)
      expect(again.code).toBe(1)
      expect(await postgresSnapshot(admin, schema)).toEqual(source)

      // A daemon on PostgreSQL takes up where the embedded one stopped.
      const draftsBefore = Object.keys((await getJson(`${stack.pod.url}/__sim/stats`)).draftsByReferenceId).length
      const lastOrder = Number((await admin.query(`select max(id) as id from "${schema}".store_orders`)).rows[0].id)
      const port = await freePort()
      const pgConfig = daemonConfig(stack, port, receiver, "on-postgres", databaseUrl)
      const daemon = await startDaemon(pgConfig, port)
      try {
        await createOrders(stack, 2)
        await driveUntil(stack, () => statusOf(port), (s) => count(s, "fulfilled") === 15, 120_000)
      } finally {
        await stopDaemons(daemon)
      }
      const pod = await getJson(`${stack.pod.url}/__sim/stats`)
      expect(pod.duplicateReferenceIds).toEqual([])
      expect(Object.keys(pod.draftsByReferenceId)).toHaveLength(draftsBefore + 2)
      const newOrders = await admin.query(`select id from "${schema}".store_orders where id > $1`, [lastOrder])
      expect(newOrders.rows).toHaveLength(2)
      const onPostgres = await postgresSnapshot(admin, schema)
      expect(onPostgres.orders).toHaveLength(18)

      // And back: into the data folder the config names, which holds the old state: refused, then forced.
      const back = daemonConfig(stack, port, receiver, "back", target)
      const refused = await podsync(["db", "move", "--config", back, "--to", "embedded"])
      expect(refused.stderr).toContain(`The embedded database in ${sourceDir} already holds podsync data`)
      expect(refused.code).toBe(1)
      const returned = await podsync(["db", "move", "--config", back, "--to", "embedded", "--force"])
      expect(returned.stdout).toMatch(/^ {2}orders +18 +18$/m)
      expect(returned.stdout).toContain("Next: remove database.url from")
      expect(returned.stdout + returned.stderr).not.toContain(PASSWORD)
      expect(returned.code).toBe(0)
      expect(await embeddedSnapshot(sourceDir)).toEqual(onPostgres)
    }, 400_000)
  })
})
