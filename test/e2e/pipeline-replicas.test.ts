import { describe, expect, it } from "vitest"
import { createOrders, driveUntil, expectEachOrderOnce, replicaSuite } from "../support/pipeline.js"
import { exited, freePort, startDaemon, statusOf, stopDaemons, writeDaemonConfig } from "../support/pipeline.js"

const url = process.env.TEST_DATABASE_URL
const ORDERS = 90

describe.runIf(url)("three replicas on one PostgreSQL", () => {
  const suite = replicaSuite(url, "replicas")
  const { admin, schema, databaseUrl } = suite

  it("share the work with the same exactly-once outcome, and run each cron tick once", async () => {
    const stack = suite.stack
    const ports = [await freePort(), await freePort(), await freePort()]
    const daemons = await Promise.all(
      ports.map((port, i) => startDaemon(writeDaemonConfig(stack, port, { databaseUrl, name: `replica-${i}` }), port))
    )
    try {
      // The orders come once every replica is ready: on a loaded machine one replica can be up seconds
      // before the others, and 90 drafts take about as long, so orders waiting from the start could all
      // be drafted by the first one up, which says nothing about sharing.
      const ids = await createOrders(stack, ORDERS)
      const final = await driveUntil(stack, () => statusOf(ports[0]!), (s) => (s.fulfilled ?? 0) === ORDERS, 300_000)
      expect(final).toEqual({ fulfilled: ORDERS })

      const { pod } = await expectEachOrderOnce(stack, ids)
      expect(pod.rejected429).toBe(0)

      // The replicas shared the drafting (leases), and cron ticks were claimed by more than one of them.
      const drafters = await admin.query(`select count(distinct actor)::int as n from "${schema}".order_events where to_state = 'drafted'`)
      expect(drafters.rows[0].n).toBeGreaterThan(1)
      const ticks = await admin.query(
        `select job, tick_at, count(*)::int as n from "${schema}".job_runs group by job, tick_at having count(*) > 1`
      )
      expect(ticks.rows).toEqual([])
      // No replica is the cron leader for good: which one claims a tick is a race (on a loaded machine one
      // may win every tick of a short run), so the test stops the one that ran the last pull tick and
      // another claims the next ones.
      const lastPull = async () =>
        (await admin.query(`select owner, tick_at from "${schema}".job_runs where job = 'pull' order by tick_at desc limit 1`))
          .rows[0] as { owner: string; tick_at: Date }
      const holding = await lastPull()
      const holder = daemons.find((d) => holding.owner.split(":")[1] === String(d.pid))
      expect(holder, `the owner ${holding.owner} is one of the replicas`).toBeDefined()
      holder!.kill("SIGTERM")
      await exited(holder!)
      const deadline = Date.now() + 30_000
      let next = await lastPull()
      while (next.owner === holding.owner && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250))
        next = await lastPull()
      }
      expect(next.owner).not.toBe(holding.owner)
      expect(next.tick_at.getTime()).toBeGreaterThan(holding.tick_at.getTime())
    } finally {
      await stopDaemons(...daemons)
    }
  }, 420_000)
})
