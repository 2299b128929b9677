import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import type pg from "pg"
import { describe, expect, it } from "vitest"
import { parseStat } from "../../src/db/DataDirLock.js"
import { TEST_NODE_FLAGS } from "../support/nodeFlags.js"
import { createOrders, daemonConfig, getJson, post, replicaSuite, sharedStack, type Stack, waitFor } from "../support/pipeline.js"
import { freePort, startDaemon, stopDaemons, writeDaemonConfig } from "../support/pipeline.js"

const DRAFT_ROUTE = "POST /api/v3/orders/draft"
/**
 * Replica A's claims last this long without a heartbeat (pipeline.leaseSeconds) in the SIGSTOP test, so
 * a stop outlasts them in seconds. The kill -9 test keeps the default 60 s: there B must take A's orders
 * because A's session ended, long before its leases would have let it.
 */
const LEASE_SECONDS = 4
/** pipeline.leaseSeconds' default, which replica A keeps in the kill -9 test. */
const DEFAULT_LEASE_SECONDS = 60
const RESTARTS = 20

/**
 * Starts `podsync start` as the child of a parent that never reaps it (a shell that backgrounds it
 * then becomes `sleep`), as in a container whose init does not reap: killed with -9, it stays a
 * zombie, which kill(pid, 0) still answers for.
 */
const startUnreaped = (config: string) =>
  new Promise<{ pid: number; parent: ChildProcess; output: () => string }>((resolve, reject) => {
    const parent = spawn("sh", [
      "-c",
      `"${process.execPath}" ${TEST_NODE_FLAGS.join(" ")} bin/podsync.js start --config "${config}" & echo "pid $!"; exec sleep 600`
    ], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    parent.stderr!.on("data", (d) => (output += d))
    parent.stdout!.on("data", (d) => {
      output += d
      const found = /^pid (\d+)$/m.exec(output)
      if (found) resolve({ pid: Number(found[1]), parent, output: () => output })
    })
    parent.once("error", reject)
  })

/** The state letter of a process (Z: zombie), or undefined when it is gone. */
const stateOf = (pid: number) => {
  try {
    return parseStat(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))?.state
  } catch {
    return undefined
  }
}

/** Waits until the daemon on `port` is ready; fails at once when the process `pid` ends first (its start refused). */
const readyOrRefused = async (port: number, daemon: { pid: number; output: () => string }, attempt: number) => {
  const deadline = Date.now() + 90_000
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)
    if (ready) return
    const state = stateOf(daemon.pid)
    if (state === undefined || state === "Z") throw new Error(`restart ${attempt} was refused: ${daemon.output()}`)
    if (Date.now() > deadline) throw new Error(`restart ${attempt} not ready within 90 s: ${daemon.output()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe.runIf(fs.existsSync("/proc/self/stat"))("the embedded database after kill -9", () => {
  const stack = sharedStack()

  it(`starts again at once every time, its killed predecessor a zombie nobody reaps (${RESTARTS} kills)`, async () => {
    const { port, config } = await daemonConfig(stack)
    const parents: Array<ChildProcess> = []
    try {
      let daemon = await startUnreaped(config)
      parents.push(daemon.parent)
      await readyOrRefused(port, daemon, 0)
      for (let kill = 1; kill <= RESTARTS; kill++) {
        process.kill(daemon.pid, "SIGKILL")
        // Started at once: the killed process is still exiting, then a zombie, when its successor looks at the lock.
        daemon = await startUnreaped(config)
        parents.push(daemon.parent)
        await readyOrRefused(port, daemon, kill)
      }
      process.kill(daemon.pid, "SIGTERM")
      await waitFor(async () => stateOf(daemon.pid), (state) => state === undefined || state === "Z", 30_000)
    } finally {
      for (const parent of parents) parent.kill("SIGKILL")
    }
  }, 600_000)
})

const url = process.env.TEST_DATABASE_URL

/**
 * The orders (row ids) a replica holds now to draft them (an attempt counted: held for as long as its
 * create is at the service), known by the pid in its owner id. Not its look-up claims, held a moment.
 */
const claimedBy = async (admin: pg.Client, schema: string, pid: number) =>
  (await admin.query(
    `select id from "${schema}".store_orders where lease_owner like $1 and state in ('ready', 'in_doubt') and attempts > 0
      order by id`,
    [`%:${pid}:%`]
  )).rows.map((r: { id: number }) => r.id)

/** How long the latest of the leases on `ids` has left, in ms (negative: all ran out that long ago), by the database's clock. */
const leaseLeft = async (admin: pg.Client, schema: string, ids: ReadonlyArray<number>) =>
  Number(
    (await admin.query(
      `select extract(epoch from (max(lease_expires_at) - now())) * 1000 as ms from "${schema}".store_orders where id = any($1)`,
      [ids]
    )).rows[0].ms
  )

const notDrafted = async (admin: pg.Client, schema: string, ids: ReadonlyArray<number>) =>
  (await admin.query(`select id from "${schema}".store_orders where id = any($1) and state in ('pulled', 'ready', 'in_doubt')`, [ids]))
    .rows.length

/** Replica A alone, with draft creates held 3-4 s at the POD service, once it has claimed some of `count` new orders. */
const replicaAWithClaims = async (
  stack: Stack,
  databaseUrl: string,
  admin: pg.Client,
  schema: string,
  count: number,
  leaseSeconds?: number
) => {
  const port = await freePort()
  const a = await startDaemon(
    writeDaemonConfig(stack, port, { databaseUrl, name: `a-${port}`, ...(leaseSeconds === undefined ? {} : { leaseSeconds }) }),
    port
  )
  await post(`${stack.pod.url}/__sim/faults`, { route: DRAFT_ROUTE, kind: "latency", latencyMs: [3_000, 4_000], probability: 1 })
  const ids = await createOrders(stack, count)
  const claimed = await waitFor(() => claimedBy(admin, schema, a.pid!), (c) => c.length > 0, 60_000)
  return { a, ids, claimed }
}

describe.runIf(url)("replicas on PostgreSQL after kill -9 and SIGSTOP", () => {
  const suite = replicaSuite(url, "recovery")
  const { admin, schema, databaseUrl } = suite

  it("a replica killed with -9 has its claimed orders drafted by another long before its lease ends, each once", async () => {
    const stack = suite.stack
    const portB = await freePort()
    const b = await startDaemon(writeDaemonConfig(stack, portB, { databaseUrl, name: "b-kill" }), portB)
    const { a, ids, claimed } = await replicaAWithClaims(stack, databaseUrl, admin, schema, 30)
    try {
      a.kill("SIGKILL")
      const killedAt = Date.now()
      await fetch(`${stack.pod.url}/__sim/faults`, { method: "DELETE" })
      await waitFor(() => notDrafted(admin, schema, claimed), (n) => n === 0, 30_000)
      const seconds = (Date.now() - killedAt) / 1000
      // About 5 s on a quiet machine (the request timeout's grace, then the drafts); once 10.07 s on a
      // starved one. Waiting out A's lease would take its whole 60 s: half of it is the bound.
      expect(seconds, `A's ${claimed.length} claimed orders drafted by B in ${seconds} s`).toBeLessThan(DEFAULT_LEASE_SECONDS / 2)

      await waitFor(() => getJson(`${stack.pod.url}/__sim/stats`), (s) => Object.keys(s.draftsByReferenceId).length >= ids.length, 60_000)
      const pod = await getJson(`${stack.pod.url}/__sim/stats`)
      expect(pod.duplicateReferenceIds).toEqual([])
    } finally {
      await stopDaemons(a, b)
    }
  }, 240_000)

  it(
    "a replica stopped with SIGSTOP past its lease keeps its claims: nobody drafts them twice, and it drafts them when it resumes",
    async () => {
      const stack = suite.stack
      await fetch(`${stack.pod.url}/__sim/faults`, { method: "DELETE" })
      const portB = await freePort()
      const b = await startDaemon(writeDaemonConfig(stack, portB, { databaseUrl, name: "b-stop" }), portB)
      const before = Object.keys((await getJson(`${stack.pod.url}/__sim/stats`)).draftsByReferenceId).length
      const { a, ids } = await replicaAWithClaims(stack, databaseUrl, admin, schema, 30, LEASE_SECONDS)
      try {
        a.kill("SIGSTOP")
        await waitFor(async () => stateOf(a.pid!), (state) => state === "T", 10_000)
        // What A holds now that it cannot let go (on a starved machine, claims seen a moment before may be done).
        const claimed = await claimedBy(admin, schema, a.pid!)
        expect(claimed.length).toBeGreaterThan(0)
        await fetch(`${stack.pod.url}/__sim/faults`, { method: "DELETE" })
        // Until A's leases on its claims have all run out (4 s without a heartbeat), and as long again:
        // B drafts every other order meanwhile, and none of A's.
        const stoppedAt = Date.now()
        await waitFor(() => leaseLeft(admin, schema, claimed), (ms) => ms < 0, 30_000)
        await new Promise((r) => setTimeout(r, Math.max(LEASE_SECONDS * 1000, Date.now() - stoppedAt)))
        expect(await leaseLeft(admin, schema, claimed)).toBeLessThan(-LEASE_SECONDS * 1000 + 500)
        expect(await claimedBy(admin, schema, a.pid!)).toEqual(claimed)
        const byB = await admin.query(
          `select count(*)::int as n from "${schema}".order_events where order_id = any($1) and to_state = 'drafted' and actor not like $2`,
          [claimed, `%:${a.pid}:%`]
        )
        expect(byB.rows[0].n).toBe(0)

        a.kill("SIGCONT")
        await waitFor(() => notDrafted(admin, schema, claimed), (n) => n === 0, 60_000)
        const pod = await waitFor(
          () => getJson(`${stack.pod.url}/__sim/stats`),
          (s) => Object.keys(s.draftsByReferenceId).length >= before + ids.length,
          60_000
        )
        expect(pod.duplicateReferenceIds).toEqual([])
      } finally {
        a.kill("SIGCONT")
        await stopDaemons(a, b)
      }
    },
    300_000
  )
})
