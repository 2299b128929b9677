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

      // Each order was drafted once, by one of the replicas (its claim held the others off). How many of
      // them drafted is a race's outcome (on a loaded machine one may claim every batch), not a promise:
      // that every replica can draft is shown below, by stopping the busiest drafter.
      const drafted = async () =>
        (await admin.query(
          `select order_id, count(*)::int as n, min(actor) as actor from "${schema}".order_events where to_state = 'drafted' group by order_id`
        )).rows as Array<{ order_id: number; n: number; actor: string }>
      const pidOf = (owner: string) => owner.split(":")[1]
      const firstDrafts = await drafted()
      expect(firstDrafts).toHaveLength(ORDERS)
      expect(firstDrafts.filter((d) => d.n !== 1)).toEqual([])
      expect(firstDrafts.filter((d) => !daemons.some((daemon) => String(daemon.pid) === pidOf(d.actor)))).toEqual([])
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

      // The replica that drafted the most is stopped too (if it is not the one stopped already): new
      // orders are then drafted, once each, by another replica, the one left or either of two.
      const perDrafter = new Map<string, number>()
      for (const d of firstDrafts) perDrafter.set(pidOf(d.actor)!, (perDrafter.get(pidOf(d.actor)!) ?? 0) + 1)
      const busiest = [...perDrafter].sort((a, b) => b[1] - a[1])[0]![0]
      const drafter = daemons.find((d) => String(d.pid) === busiest)!
      drafter.kill("SIGTERM")
      await exited(drafter)
      const left = daemons.filter((d) => d.exitCode === null && d.signalCode === null)
      expect(left.length).toBeGreaterThan(0)
      const leftPort = ports[daemons.indexOf(left[0]!)]!
      const more = await createOrders(stack, 6)
      const after = await driveUntil(stack, () => statusOf(leftPort), (s) => (s.fulfilled ?? 0) === ORDERS + 6, 120_000)
      expect(after).toEqual({ fulfilled: ORDERS + 6 })
      await expectEachOrderOnce(stack, [...ids, ...more])
      const laterDrafts = (await drafted()).filter((d) => !firstDrafts.some((f) => f.order_id === d.order_id))
      expect(laterDrafts).toHaveLength(6)
      expect(laterDrafts.filter((d) => d.n !== 1)).toEqual([])
      expect(laterDrafts.filter((d) => !left.some((daemon) => String(daemon.pid) === pidOf(d.actor)))).toEqual([])
    } finally {
      await stopDaemons(...daemons)
    }
  }, 420_000)
})
