// Benchmark of the whole pipeline: a podsync daemon in this process (`Layer.launch(daemonLayer)`)
// against the POD and Shopify simulators (in a child process, so that this process's CPU time is
// the daemon's), on real PostgreSQL (a fresh schema) and on PGlite (a temporary data directory).
//
//  1. Throughput: N orders appear in the store at once; wall and CPU time until all are fulfilled,
//     the POD simulator's limit lifted (and the daemon's budget raised to match), while a driver
//     loop checks out and ships at the POD simulator. Target ≥ 100 orders/s per core on PostgreSQL.
//  2. POD calls per fulfilled order over that lifecycle, without POD webhooks and with them
//     (the daemon's /webhooks/pod subscribed: every topic, the tracking topic alone, and every
//     topic with 5 % of orders shipped in two boxes). Targets ≤ 1.2 without webhooks, ≤ 1.05 with
//     every topic; every run counts boxes shipped against tracking numbers the store shows.
//  3. Store → draft latency, p50 and p95, by polling (pull every 2 s) and by Shopify webhooks, at
//     the POD simulator's real limit, with Shopify's Standard cost bucket and with it lifted.
//
//   npm run build && node dist/bench/pipeline.js            the full run; writes bench/results/pipeline.json
//   node dist/bench/pipeline.js --quick                     a small run for CI (writes nothing unless --out FILE)
//   options: --orders N (throughput), --latency-orders N, --only throughput,calls,latency,
//            --databases postgres,pglite (the throughput runs' databases),
//            --cpu-profile FILE (a V8 CPU profile of the daemon's process over a lifecycle run's measured window),
//            --database-url URL (default $TEST_DATABASE_URL, then postgres://postgres@127.0.0.1:5432/test)
//   Exits 1 when a run did not fulfil every order, or a reference id got two drafts.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import type { Database } from "./pipeline-daemon.js"
import { type LatencyResult, runLatency } from "./pipeline-latency.js"
import { type LifecycleResult, runLifecycle } from "./pipeline-lifecycle.js"
import { loadAverage, reachable, round } from "./pipeline-measure.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = here.includes(`${path.sep}dist${path.sep}`) ? path.join(here, "..", "..") : path.join(here, "..")
const mappingSource = path.join(root, "config", "mappings", "demo-shopify.csv")

const TARGETS = { ordersPerSecondPerCore: 100, callsPerOrderWithoutWebhooks: 1.2, callsPerOrderWithWebhooks: 1.05 }
/** The share of orders shipped in two boxes in the split runs. */
const SPLIT_SHARE = 0.05
const LIFECYCLE_SCHEDULES = { pull: "* * * * * *", reconcile: "*/2 * * * * *" }
const POLLING_SCHEDULES = { pull: "*/2 * * * * *", reconcile: "*/2 * * * * *" }
// With store webhooks the pull schedule only catches up on what a webhook missed.
const WEBHOOK_SCHEDULES = { pull: "0 */10 * * * *", reconcile: "*/2 * * * * *" }

const target = (value: number, goal: number, direction: "atLeast" | "atMost") => ({
  value,
  target: goal,
  direction,
  ratio: round(value / goal, 3),
  met: direction === "atLeast" ? value >= goal : value <= goal
})

const main = async () => {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      orders: { type: "string" },
      "latency-orders": { type: "string" },
      only: { type: "string" },
      "database-url": { type: "string" },
      databases: { type: "string" },
      out: { type: "string" },
      "cpu-profile": { type: "string" }
    }
  })
  const quick = values.quick ?? false
  const orders = Number(values.orders ?? (quick ? 60 : 1000))
  const latencyOrders = Number(values["latency-orders"] ?? (quick ? 10 : 100))
  const only = new Set((values.only ?? "throughput,calls,latency").split(",").map((s) => s.trim()))
  const databaseUrl = values["database-url"] ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
  const wanted = new Set((values.databases ?? "postgres,pglite").split(",").map((s) => s.trim()))
  const postgres: Database | undefined = wanted.has("postgres") && (await reachable(databaseUrl))
    ? { kind: "postgres", url: databaseUrl }
    : undefined
  const pglite: Database = { kind: "pglite" }
  const skipped: Array<string> = []
  if (postgres === undefined) skipped.push(`PostgreSQL runs: ${databaseUrl.replace(/\/\/[^@]*@/, "//…@")} is not reachable`)
  const loadAtStart = loadAverage()

  const lifecycle: Array<LifecycleResult> = []
  const latency: Array<LatencyResult> = []
  // The full run waits out the daemon's one-off catch-up report (a minute after start) before its orders come.
  const afterCatchUpReport = !quick
  const common = {
    cpuProfile: values["cpu-profile"],
    schedules: LIFECYCLE_SCHEDULES,
    driverIntervalMs: 250,
    timeoutMs: quick ? 120_000 : 600_000,
    mappingSource,
    afterCatchUpReport
  }
  const runs: Array<{ readonly label: string; readonly run: () => Promise<void> }> = []
  if (only.has("throughput") || only.has("calls")) {
    if (postgres !== undefined) {
      runs.push({
        label: `lifecycle, PostgreSQL, ${orders} orders, no POD webhooks`,
        run: async () => {
          lifecycle.push(
            await runLifecycle({ ...common, name: "postgres, no POD webhooks", database: postgres, podWebhooks: false, orders })
          )
        }
      })
    }
    if (only.has("throughput") && wanted.has("pglite")) {
      runs.push({
        label: `lifecycle, PGlite, ${orders} orders, no POD webhooks`,
        run: async () => {
          lifecycle.push(await runLifecycle({ ...common, name: "pglite, no POD webhooks", database: pglite, podWebhooks: false, orders }))
        }
      })
    }
    if (only.has("calls")) {
      const database = postgres ?? pglite
      const webhookRuns = [
        { name: `${database.kind}, POD webhooks`, extra: {} },
        { name: `${database.kind}, POD webhooks, tracking topic only`, extra: { podWebhookTopics: ["TOPIC_TRACKING_ORDER_UPDATED"] } },
        { name: `${database.kind}, POD webhooks, ${SPLIT_SHARE * 100} % in two boxes`, extra: { splitShare: SPLIT_SHARE } }
      ]
      for (const { name, extra } of webhookRuns) {
        runs.push({
          label: `lifecycle, ${orders} orders, ${name}`,
          run: async () => {
            lifecycle.push(await runLifecycle({ ...common, ...extra, name, database, podWebhooks: true, orders }))
          }
        })
      }
      if (postgres === undefined && !only.has("throughput")) {
        runs.push({
          label: `lifecycle, PGlite, ${orders} orders, no POD webhooks`,
          run: async () => {
            lifecycle.push(await runLifecycle({ ...common, name: "pglite, no POD webhooks", database: pglite, podWebhooks: false, orders }))
          }
        })
      }
    }
  }
  if (only.has("latency")) {
    const pace = quick ? 300 : 500
    // Quick: one database only.
    const databases = postgres === undefined ? [pglite] : quick ? [postgres] : [postgres, pglite]
    const combos = [false, true].flatMap((shopifyBucketLifted) =>
      databases.flatMap((database) => [false, true].map((storeWebhooks) => ({ shopifyBucketLifted, database, storeWebhooks })))
    )
    for (const { shopifyBucketLifted, database, storeWebhooks } of combos) {
      const name = `${database.kind}, ${storeWebhooks ? "Shopify webhooks" : "polling every 2 s"}, ${
        shopifyBucketLifted ? "Shopify bucket lifted" : "Shopify Standard bucket"
      }`
      runs.push({
        label: `latency, ${name}, ${latencyOrders} orders`,
        run: async () => {
          latency.push(
            await runLatency({
              name,
              database,
              storeWebhooks,
              shopifyBucketLifted,
              orders: latencyOrders,
              paceMs: pace,
              schedules: storeWebhooks ? WEBHOOK_SCHEDULES : POLLING_SCHEDULES,
              timeoutMs: 120_000,
              mappingSource,
              afterCatchUpReport
            })
          )
        }
      })
    }
  }

  const loads: Array<{ readonly run: string; readonly before: Array<number>; readonly after: Array<number> }> = []
  for (const { label, run } of runs) {
    process.stdout.write(`running: ${label}…\n`)
    const before = loadAverage()
    await run()
    loads.push({ run: label, before, after: loadAverage() })
  }

  const byName = (name: string) => lifecycle.find((r) => r.name === name)
  const pgThroughput = byName("postgres, no POD webhooks")
  const withoutWebhooks = pgThroughput ?? byName("pglite, no POD webhooks")
  const withWebhooks = lifecycle.find((r) => r.podWebhooks && r.name.endsWith("POD webhooks"))
  const trackingTopicOnly = lifecycle.find((r) => r.name.endsWith("tracking topic only"))
  const split = lifecycle.find((r) => r.name.endsWith("in two boxes"))
  const figures = {
    ordersPerSecondPerCorePostgres: pgThroughput && target(pgThroughput.ordersPerSecondPerCore, TARGETS.ordersPerSecondPerCore, "atLeast"),
    ordersPerSecondPerCorePostgresCountingServer: pgThroughput?.ordersPerSecondPerCoreWithPostgres != null
      ? target(pgThroughput.ordersPerSecondPerCoreWithPostgres, TARGETS.ordersPerSecondPerCore, "atLeast")
      : undefined,
    ordersPerSecondPerCorePglite: byName("pglite, no POD webhooks") &&
      target(byName("pglite, no POD webhooks")!.ordersPerSecondPerCore, TARGETS.ordersPerSecondPerCore, "atLeast"),
    callsPerOrderWithoutWebhooks: withoutWebhooks &&
      target(withoutWebhooks.pod.callsPerOrder, TARGETS.callsPerOrderWithoutWebhooks, "atMost"),
    callsPerOrderWithWebhooks: withWebhooks && target(withWebhooks.pod.callsPerOrder, TARGETS.callsPerOrderWithWebhooks, "atMost"),
    callsPerOrderTrackingTopicOnly: trackingTopicOnly?.pod.callsPerOrder,
    /** Of the calls per order: the look-ups before a first draft (drafts and orders by reference id), reported apart. */
    lookUpsWithoutWebhooks: withoutWebhooks?.pod.lookUps,
    lookUpsWithWebhooks: withWebhooks?.pod.lookUps,
    callsPerOrderWithWebhooksSplit: split && { value: split.pod.callsPerOrder, share: SPLIT_SHARE, packages: split.packages },
    packagesMissed: lifecycle.reduce((sum, r) => sum + r.packages.missed, 0),
    latencyMs: Object.fromEntries(latency.map((r) => [r.name, r.latencyMs && { p50: r.latencyMs.p50, p95: r.latencyMs.p95 }]))
  }

  if (lifecycle.length > 0) {
    console.table(lifecycle.map((r) => ({
      run: r.name,
      orders: r.orders,
      "wall s": r.wallSeconds,
      "orders/s": r.ordersPerSecond,
      "drafts/s": r.draftsPerSecond,
      "cores": r.cpu.coresUsed,
      "orders/s/core": r.ordersPerSecondPerCore,
      "+pg server": r.ordersPerSecondPerCoreWithPostgres,
      "POD calls/order": r.pod.callsPerOrder,
      "of which look-ups": r.pod.lookUps.perOrder,
      "boxes shown/shipped": `${r.packages.shown}/${r.packages.shipped}`,
      "SQL/order": r.sql.perOrder,
      "Shopify req/order": r.shopify.requestsPerOrder,
      done: r.completed
    })))
  }
  if (latency.length > 0) {
    console.table(
      latency.map((r) => ({
        run: r.name,
        orders: r.orders,
        drafted: r.drafted,
        ...r.latencyMs,
        "by fifth": r.meanMsByArrivalFifth.join(" "),
        "Shopify cost": r.shopify.costSpent
      }))
    )
  }

  const report = {
    benchmark: "podsync pipeline",
    quick,
    command: quick ? "npm run build && node dist/bench/pipeline.js --quick" : "npm run build && node dist/bench/pipeline.js",
    note: "Throughput: N orders appear in the Shopify simulator at once (bulk); wall time from then until the daemon's /status " +
      "counts all N fulfilled, while a driver checks out (paid) and ships everything at the POD simulator every driverIntervalMs. " +
      "Both simulators' limits are lifted (POD rateLimit false, daemon budget 1,000,000 per 10 s; Shopify cost bucket 1e9) and " +
      "they run in a child process, so cpu.daemonSeconds (process.cpuUsage of this process) is the daemon's (with PGlite when " +
      "embedded, plus the light driver loop). ordersPerSecondPerCore = orders ÷ daemon CPU seconds (orders/s ÷ cores used); " +
      "the 'WithPostgres' variant adds the CPU of the PostgreSQL server processes serving the daemon's connections (/proc). " +
      "POD calls per order: requests the POD simulator counted from the orders' appearance until it was quiet after the last " +
      "fulfilment, ÷ N; start-up requests (catalog, webhook subscriptions, and in the full run the one-off catch-up report a " +
      "minute after start, which the full run waits out before its orders come) are listed apart. Latency: from just before an " +
      "order's creation request to its draft's created_at at the POD simulator, orders one at a time at a jittered pace, " +
      "the POD simulator at its real limit (100/10 s, daemon budget default), the Shopify simulator with its Standard cost bucket " +
      "(2,000 points, 100/s) or lifted; meanMsByArrivalFifth shows whether a backlog builds over the run.",
    targets: TARGETS,
    figures,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      node: process.version,
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: loadAverage()
    },
    loadAverages: loads,
    skipped,
    lifecycle,
    latency
  }
  const out = values.out ?? (quick ? undefined : path.join(root, "bench", "results", "pipeline.json"))
  if (out !== undefined) {
    fs.mkdirSync(path.dirname(out), { recursive: true })
    fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`)
    console.log(`figures written to ${path.relative(process.cwd(), out)}`)
  } else {
    console.log(JSON.stringify({ figures, machine: report.machine }, null, 2))
  }
  const broken = lifecycle.filter((r) => !r.completed || r.pod.duplicateReferenceIds > 0)
    .map((r) =>
      `${r.name}: ${
        r.completed ? "" : `not all fulfilled (${JSON.stringify(r.finalStates)}) `
      }${r.pod.duplicateReferenceIds} duplicate reference ids`
    )
    .concat(latency.filter((r) => r.drafted < r.orders).map((r) => `${r.name}: ${r.drafted} of ${r.orders} drafted`))
  if (broken.length > 0) {
    console.error(`runs that went wrong:\n  ${broken.join("\n  ")}`)
    process.exitCode = 1
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
