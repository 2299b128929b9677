import { randomUUID } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  createOrders,
  driveUntil,
  exited,
  freePort,
  getJson,
  type Stack,
  startDaemon,
  startStack,
  statusOf,
  writeDaemonConfig
} from "../support/pipeline.js"

const url = process.env.TEST_DATABASE_URL
const ORDERS = 90

describe.runIf(url)("three replicas on one PostgreSQL", () => {
  let stack: Stack
  const schema = `replicas_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  const admin = new pg.Client({ connectionString: url })

  beforeAll(async () => {
    stack = await startStack()
    await admin.connect()
    await admin.query(`create schema "${schema}"`)
  })
  afterAll(async () => {
    await admin.query(`drop schema if exists "${schema}" cascade`)
    await admin.end()
    await stack.close()
  })

  it("share the work with the same exactly-once outcome, and run each cron tick once", async () => {
    const databaseUrl = `${url}?options=-c%20search_path%3D${schema}`
    const ports = [await freePort(), await freePort(), await freePort()]
    const ids = await createOrders(stack, ORDERS)
    const daemons = await Promise.all(
      ports.map((port, i) => startDaemon(writeDaemonConfig(stack, port, { databaseUrl, name: `replica-${i}` }), port))
    )
    try {
      const final = await driveUntil(stack, () => statusOf(ports[0]!), (s) => (s.fulfilled ?? 0) === ORDERS, 300_000)
      expect(final).toEqual({ fulfilled: ORDERS })

      const pod = await getJson(`${stack.pod.url}/__sim/stats`)
      expect(pod.duplicateReferenceIds).toEqual([])
      expect(Object.keys(pod.draftsByReferenceId)).toHaveLength(ORDERS)
      expect(pod.rejected429).toBe(0)
      const shop = await getJson(`${stack.shopify.url}/__sim/stats`)
      expect(Object.keys(shop.fulfillmentsByOrder).sort()).toEqual([...ids].sort())
      expect(Object.values(shop.fulfillmentsByOrder).every((n) => n === 1)).toBe(true)

      // The replicas shared the drafting (leases), and cron ticks were claimed by more than one of them.
      const drafters = await admin.query(`select count(distinct actor)::int as n from "${schema}".order_events where to_state = 'drafted'`)
      expect(drafters.rows[0].n).toBeGreaterThan(1)
      const ticks = await admin.query(
        `select job, tick_at, count(*)::int as n from "${schema}".job_runs group by job, tick_at having count(*) > 1`
      )
      expect(ticks.rows).toEqual([])
      const owners = await admin.query(`select count(distinct owner)::int as n from "${schema}".job_runs where job = 'pull'`)
      expect(owners.rows[0].n).toBeGreaterThan(1)
    } finally {
      for (const daemon of daemons) daemon.kill("SIGTERM")
      await Promise.all(daemons.map(exited))
    }
  }, 420_000)
})
