// Benchmark of the recovery after kill -9 (issue #32, item 4): a podsync daemon, as `podsync start`
// runs it (a process of its own, so it can be killed), against the POD and Shopify simulators in
// this process, over real HTTP, on PGlite (a temporary data folder) and on real PostgreSQL (a fresh
// schema). --orders paid orders (default 50) are pulled and planned, and the draft stage has
// claimed its batch: the POD simulator holds every draft create for 2.5-3.5 s (a latency fault),
// so none is answered when the daemon is killed with -9. The fault is cleared at once and the
// daemon started again at once, on the same configuration (a supervisor's restart; on PGlite a
// start the data-folder lock refuses is started again at once and counted).
//
// Measured, from the kill: seconds until the new process answers /readyz, until its /status counts
// a first order drafted (or beyond), until it counts them all; the refused starts; drafts per
// reference id at the POD simulator (exactly 1: orders the killed process had sent are adopted).
//
//   npm run build && node dist/bench/recovery.js --label after            writes bench/results/recovery.json (the "after" runs)
//   node dist/bench/recovery.js --label before --podsync /path/to/main    the daemon of another checkout (built), as "before"
//   options: --orders N (50), --databases pglite,postgres, --timeout-seconds N (150),
//            --database-url URL (default $TEST_DATABASE_URL, then postgres://postgres@127.0.0.1:5432/test), --out FILE
//   The runs of the other label already in the results file are kept.
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import pg from "pg"
import { hasDraft, isOrderState } from "../src/domain/OrderState.js"
import { startPodSimulator } from "../src/simulator/pod/index.js"
import { startShopifySimulator } from "../src/simulator/shopify/index.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = here.includes(`${path.sep}dist${path.sep}`) ? path.join(here, "..", "..") : path.join(here, "..")
const SKUS = ["UTS01-FOREST-S", "UTS01-DARKHE-M", "UTS01-MILITA-S", "UTS01-SPORTG-S", "UTS01-CHARCO-S", "UTS01-WHITE-S"]
const DRAFT_ROUTE = "POST /api/v3/orders/draft"

type DatabaseKind = "pglite" | "postgres"

interface RecoveryRun {
  readonly label: string
  readonly database: DatabaseKind
  readonly orders: number
  /** Orders the killed process counted drafted (or beyond) when it was killed. */
  readonly draftedAtKill: number
  /** Draft creates the POD simulator had received (none answered) when the process was killed. */
  readonly draftCreatesInFlightAtKill: number
  readonly refusedStarts: number
  readonly readySeconds: number | null
  readonly nextDraftSeconds: number | null
  readonly allDraftedSeconds: number | null
  readonly duplicates: number
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const post = async (url: string, body: unknown = {}) => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return response.json() as Promise<Record<string, unknown>>
}

/** Orders counted drafted (or beyond) by the daemon's /status; undefined while it does not answer. */
const draftedOf = async (port: number): Promise<{ drafted: number; pulled: number } | undefined> => {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/status`, { signal: AbortSignal.timeout(2_000) })
    if (!response.ok) return undefined
    const body = await response.json() as { orders: Array<{ state: string; count: number }> }
    let drafted = 0
    let pulled = 0
    for (const row of body.orders) {
      pulled += row.count
      if (isOrderState(row.state) && hasDraft(row.state)) drafted += row.count
    }
    return { drafted, pulled }
  } catch {
    return undefined
  }
}

const ready = async (port: number) => {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) })).ok
  } catch {
    return false
  }
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()))

const runOnce = async (
  label: string,
  podsyncRoot: string,
  database: DatabaseKind,
  orders: number,
  databaseUrl: string,
  timeoutMs: number
): Promise<RecoveryRun> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-recovery-"))
  const pod = await startPodSimulator({})
  const shopify = await startShopifySimulator({ bucket: { maximumAvailable: 20_000, restoreRate: 1_000 } })
  const schema = `bench_recovery_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  const admin = database === "postgres" ? new pg.Client({ connectionString: databaseUrl }) : undefined
  const children: Array<ChildProcess> = []
  try {
    if (admin !== undefined) {
      await admin.connect()
      await admin.query(`create schema "${schema}"`)
    }
    const port = await freePort()
    const mappingFile = path.join(dir, "mappings.csv")
    fs.copyFileSync(path.join(root, "config", "mappings", "demo-shopify.csv"), mappingFile)
    const config = path.join(dir, "podsync.yaml")
    fs.writeFileSync(
      config,
      [
        ...(database === "postgres" ? ["database:", `  url: "${databaseUrl}?options=-c%20search_path%3D${schema}"`] : []),
        `dataDir: ${path.join(dir, "data")}`,
        "log:",
        "  level: error",
        "server:",
        "  host: 127.0.0.1",
        `  port: ${port}`,
        "pod:",
        `  baseUrl: ${pod.url}`,
        "  clientKey: sim-client-key",
        "  clientSecret: sim-client-secret",
        "  timeoutMs: 10000",
        "stores:",
        "  - key: bench-shopify",
        "    platform: shopify",
        "    podStoreId: store-demo",
        "    shopify:",
        "      shop: acme.myshopify.com",
        "      accessToken: shpat_sim_token",
        "      webhookSecret: shopify-sim-webhook-secret",
        `      baseUrl: ${shopify.url}`,
        `    mappings: ${mappingFile}`,
        "schedules:",
        '  pull: "*/2 * * * * *"',
        '  reconcile: "*/5 * * * * *"',
        '  catalog: "0 0 0 1 1 *"',
        '  report: "0 0 0 1 1 *"',
        "reports:",
        `  dir: ${path.join(dir, "reports")}`
      ].join("\n")
    )
    const start = () => {
      const child = spawn(process.execPath, [path.join(podsyncRoot, "bin", "podsync.js"), "start", "--config", config], {
        cwd: podsyncRoot,
        stdio: ["ignore", "ignore", "pipe"]
      })
      let stderr = ""
      child.stderr!.on("data", (d) => (stderr = (stderr + String(d)).slice(-4_000)))
      children.push(child)
      return Object.assign(child, { stderr: () => stderr })
    }

    const first = start()
    for (const deadline = Date.now() + 90_000; !(await ready(port));) {
      if (Date.now() > deadline || first.exitCode !== null) throw new Error(`the daemon did not start: ${first.stderr()}`)
      await sleep(100)
    }
    await post(`${pod.url}/__sim/faults`, { route: DRAFT_ROUTE, kind: "latency", latencyMs: [2_500, 3_500], probability: 1 })
    for (let i = 0; i < orders; i++) {
      await post(`${shopify.url}/__sim/orders`, {
        financialStatus: "PAID",
        lineItems: [{
          sku: SKUS[i % SKUS.length],
          title: "Podsync Tee",
          quantity: 1,
          price: "24.00",
          customAttributes: [{ key: "design_front", value: `https://cdn.example.com/d/${i}.png` }]
        }]
      })
    }
    // Every order pulled and planned, and the draft stage's creates sent (held by the latency).
    const draftCreates = async () => {
      const stats = await (await fetch(`${pod.url}/__sim/stats`)).json() as { requests: Record<string, number> }
      return stats.requests[DRAFT_ROUTE] ?? 0
    }
    let atKill: { drafted: number; pulled: number } | undefined
    for (const deadline = Date.now() + 60_000;;) {
      atKill = await draftedOf(port)
      if (atKill !== undefined && atKill.pulled === orders && (await draftCreates()) > 0) break
      if (Date.now() > deadline) throw new Error(`the orders were not pulled and claimed: ${JSON.stringify(atKill)}`)
      await sleep(100)
    }
    await sleep(300)
    const inFlight = await draftCreates()

    first.kill("SIGKILL")
    const killedAt = Date.now()
    await fetch(`${pod.url}/__sim/faults`, { method: "DELETE" })
    await exited(first)
    let current = start()
    let refusedStarts = 0
    let readySeconds: number | null = null
    let nextDraftSeconds: number | null = null
    let allDraftedSeconds: number | null = null
    const since = () => (Date.now() - killedAt) / 1000
    while (Date.now() - killedAt < timeoutMs && allDraftedSeconds === null) {
      if (current.exitCode !== null) {
        refusedStarts++
        current = start()
        continue
      }
      if (readySeconds === null && (await ready(port))) readySeconds = since()
      const now = readySeconds === null ? undefined : await draftedOf(port)
      if (now !== undefined) {
        if (nextDraftSeconds === null && now.drafted > (atKill?.drafted ?? 0)) nextDraftSeconds = since()
        if (now.drafted >= orders) allDraftedSeconds = since()
      }
      await sleep(100)
    }
    const stats = await (await fetch(`${pod.url}/__sim/stats`)).json() as { duplicateReferenceIds: Array<string> }
    current.kill("SIGTERM")
    await exited(current)
    return {
      label,
      database,
      orders,
      draftedAtKill: atKill?.drafted ?? 0,
      draftCreatesInFlightAtKill: inFlight,
      refusedStarts,
      readySeconds: readySeconds === null ? null : round(readySeconds),
      nextDraftSeconds: nextDraftSeconds === null ? null : round(nextDraftSeconds),
      allDraftedSeconds: allDraftedSeconds === null ? null : round(allDraftedSeconds),
      duplicates: stats.duplicateReferenceIds.length
    }
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    await Promise.all(children.map(exited))
    if (admin !== undefined) {
      await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => undefined)
      await admin.end().catch(() => undefined)
    }
    await Promise.all([pod.close(), shopify.close()])
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const round = (seconds: number) => Math.round(seconds * 10) / 10

const main = async () => {
  const { values } = parseArgs({
    options: {
      label: { type: "string", default: "after" },
      podsync: { type: "string" },
      orders: { type: "string" },
      databases: { type: "string" },
      "database-url": { type: "string" },
      "timeout-seconds": { type: "string" },
      out: { type: "string" }
    }
  })
  const label = values.label ?? "after"
  const podsyncRoot = path.resolve(values.podsync ?? root)
  const orders = Number(values.orders ?? 50)
  const timeoutMs = Number(values["timeout-seconds"] ?? 150) * 1000
  const databaseUrl = values["database-url"] ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
  const databases = (values.databases ?? "pglite,postgres").split(",").map((s) => s.trim()) as Array<DatabaseKind>
  const runs: Array<RecoveryRun> = []
  for (const database of databases) {
    console.log(`${label}: kill -9 with ${orders} orders in flight on ${database}`)
    const run = await runOnce(label, podsyncRoot, database, orders, databaseUrl, timeoutMs)
    console.log(JSON.stringify(run))
    runs.push(run)
  }
  console.table(runs)
  const out = values.out ?? path.join(root, "bench", "results", "recovery.json")
  const previous = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, "utf8")) as { runs?: Array<RecoveryRun> } : {}
  const report = {
    benchmark: "podsync recovery after kill -9",
    command: "npm run build && node dist/bench/recovery.js --label after (and --label before --podsync <a build of main>)",
    note: "A daemon process (podsync start) against the simulators in the benchmark's process; --orders paid orders pulled and " +
      "planned and the draft stage's creates sent, each held 2.5-3.5 s by the POD simulator (a latency fault), when the " +
      "daemon is killed with -9; the fault is cleared and the daemon started again at once on the same configuration (a start " +
      "refused by the data-folder lock is started again at once: refusedStarts). Seconds from the kill: readySeconds (/readyz), " +
      "nextDraftSeconds (the new process's /status counts more orders drafted or beyond than the killed one did), " +
      "allDraftedSeconds (it counts them all). duplicates: reference ids with two drafts at the POD simulator. " +
      "before: main's daemon (on PostgreSQL the claims a killed daemon held wait out their 60 s lease; on PGlite they are released " +
      "at start, at once, so a create the killed process had sent could land after the new one's look-up: its 0 duplicates " +
      "here owe to PGlite's slow reopening); after: this branch (on PostgreSQL claims tied to the replica's session, on " +
      "PGlite released at start; in both, a draft claim is taken once any create the dead process had sent may no longer be " +
      "at work at the service: pod.timeoutMs, 10 s here, after the death is seen). The first after-run, taken at once, " +
      "drafted 25 of 50 twice on PostgreSQL: what the grace is for.",
    host: { cpus: os.cpus().length, node: process.version },
    runs: [...(previous.runs ?? []).filter((r) => r.label !== label), ...runs]
  }
  fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`wrote ${out}`)
  const broken = runs.filter((r) => r.allDraftedSeconds === null || r.duplicates > 0)
  if (broken.length > 0) {
    console.error(`not recovered, or drafted twice: ${JSON.stringify(broken)}`)
    process.exit(1)
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
