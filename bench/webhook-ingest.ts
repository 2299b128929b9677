// Webhook ingest: how many signed store deliveries a `podsync start` daemon takes in, how fast it
// answers, and what it weighs, on PGlite and on PostgreSQL (issue #22). The daemon runs as
// `podsync start` in a process of its own, as a user runs it: one Shopify store (the simulator),
// 100k orders already stored (every one finished, so the pipeline is idle), POD and Shopify
// simulators in this process. Every delivery is a new event id. In the same run:
//
//  - the floor: a bare node:http receiver (bench/webhook-floor.ts) doing only the HMAC check and
//    the JSON parse, at the same load; each daemon figure is also given as a ratio to it;
//  - max: 50 connections sending as fast as they are answered for `--seconds`;
//  - steady: 500 deliveries/s for `--seconds` (achieved rate, p50, p99);
//  - idle: RSS 3 s after ready and a minute on (settled), before any delivery;
//  - burst: `--burst` deliveries (50k) at 50 connections, then RSS every 5 s for two minutes (settled: the last sample);
//  - memory floor: a bare PGlite instance (bench/webhook-pglite-floor.ts) on the same data dir.
//
//   npm run build && node dist/bench/webhook-ingest.js [--label before|after] [--databases pglite,postgres]
//   options: --seconds 10, --burst 50000, --orders 100000, --quick (a small smoke run; writes nothing),
//            --cpu-prof DIR (a V8 CPU profile of the daemon, written when it stops),
//            --node-flags=FLAGS (node options for the daemon, e.g. --node-flags=--max-semi-space-size=4),
//            --soak-minutes N (after the burst: 200 deliveries/s for N minutes, RSS every 30 s; default none),
//            --database-url URL (default $TEST_DATABASE_URL, then postgres://postgres@127.0.0.1:5432/test)
//   Writes bench/results/webhook-ingest.json, keeping the other label's figures there.
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { Effect, Layer, Option, Redacted } from "effect"
import { sql } from "kysely"
import pg from "pg"
import { Db, DbLive } from "../src/db/Db.js"
import { migrateToLatest } from "../src/db/Migrator.js"
import { startPodSimulator } from "../src/simulator/pod/index.js"
import { startShopifySimulator } from "../src/simulator/shopify/index.js"
import { closedLoad, openLoad, type Target } from "./webhook-load.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = here.includes(`${path.sep}dist${path.sep}`) ? path.join(here, "..", "..") : path.join(here, "..")
const STORE = "demo-shopify"

const TARGETS = {
  acceptedPerSecond: { postgres: 2000, pglite: 1000 },
  steadyRate: 500,
  steadyP99Ms: 50,
  rssMb: { postgres: 150, pglite: 300 }
}

const { values } = parseArgs({
  options: {
    label: { type: "string", default: "after" },
    databases: { type: "string", default: "pglite,postgres" },
    seconds: { type: "string" },
    burst: { type: "string" },
    "burst-seconds": { type: "string", default: "180" },
    orders: { type: "string" },
    connections: { type: "string", default: "50" },
    quick: { type: "boolean", default: false },
    "database-url": { type: "string" },
    "cpu-prof": { type: "string" },
    "node-flags": { type: "string", default: "" },
    "soak-minutes": { type: "string" }
  }
})
const QUICK = values.quick
const SECONDS = Number(values.seconds ?? (QUICK ? 2 : 10))
const BURST = Number(values.burst ?? (QUICK ? 2000 : 50_000))
const ORDERS = Number(values.orders ?? (QUICK ? 1000 : 100_000))
const CONNECTIONS = Number(values.connections)
const DATABASE_URL = values["database-url"] ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const megabytes = (kb: number) => Math.round(kb / 1024)

/** VmRSS and VmHWM (the peak) of a process, in MB. */
const memoryOf = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN)
  return { rssMb: megabytes(field("VmRSS")), peakMb: megabytes(field("VmHWM")) }
}

/**
 * Fulfilled orders only, so that no stage claims them (the match stage looks at cancelled and
 * not-ours orders again): the pipeline idles and webhooks are all the daemon does.
 */
const seed = (orders: number) =>
  Effect.flatMap(
    Db,
    (db) =>
      db.use((k) =>
        sql`insert into store_orders (store_key, store_order_id, reference_id, state, raw, normalized, pod_draft_id, updated_at, created_at)
        select ${STORE}, (4000000000 + i)::text, ${STORE} || ':' || (4000000000 + i), 'fulfilled',
          jsonb_build_object('id', 4000000000 + i, 'name', '#' || i, 'email', 'buyer' || i || '@example.com',
            'line_items', jsonb_build_array(jsonb_build_object('sku', 'UTS01-FOREST-S', 'quantity', 1, 'price', '16.63'))),
          jsonb_build_object('name', '#' || i), 'draft-' || i,
          now() - ((i % 720) || ' hours')::interval, now() - ((i % 720) || ' hours')::interval
        from generate_series(1, ${orders}) as i`.execute(k)
      )
  )

interface Database {
  readonly name: "pglite" | "postgres"
  /** The config's database lines. */
  readonly configLines: ReadonlyArray<string>
  readonly layer: Layer.Layer<Db>
  readonly cleanUp: () => Promise<void>
}

const admin = async (statement: string) => {
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try {
    return await client.query(statement)
  } finally {
    await client.end()
  }
}

const databaseOf = async (name: "pglite" | "postgres", dir: string): Promise<Database> => {
  const migrated = (layer: Layer.Layer<Db, unknown>) => Layer.tap(layer, (c) => Effect.provide(migrateToLatest, c)).pipe(Layer.orDie)
  if (name === "pglite") {
    return {
      name,
      configLines: [],
      layer: migrated(DbLive({ url: Option.none(), dataDir: path.join(dir, "data") })),
      cleanUp: async () => undefined
    }
  }
  const schema = `bench_ingest_${process.pid}`
  await admin(`drop schema if exists "${schema}" cascade`)
  await admin(`create schema "${schema}"`)
  return {
    name,
    configLines: ["database:", `  url: "${DATABASE_URL}?options=-c%20search_path%3D${schema}"`],
    layer: migrated(DbLive({ url: Option.some(Redacted.make(DATABASE_URL)), dataDir: "unused", schema })),
    cleanUp: async () => void (await admin(`drop schema if exists "${schema}" cascade`))
  }
}

const writeConfig = (dir: string, database: Database, port: number, podUrl: string, shopifyUrl: string) => {
  const mappings = path.join(dir, "mappings.csv")
  fs.copyFileSync(path.join(root, "config", "mappings", "demo-shopify.csv"), mappings)
  const file = path.join(dir, "podsync.yaml")
  fs.writeFileSync(
    file,
    [
      ...database.configLines,
      `dataDir: ${path.join(dir, "data")}`,
      "log: { level: warning, format: json }",
      `server: { host: 127.0.0.1, port: ${port} }`,
      "pod:",
      `  baseUrl: ${podUrl}`,
      "  clientKey: sim-client-key",
      "  clientSecret: sim-client-secret",
      "stores:",
      `  - key: ${STORE}`,
      "    platform: shopify",
      "    podStoreId: store-demo",
      "    shopify:",
      "      shop: acme.myshopify.com",
      "      accessToken: shpat_sim_token",
      "      webhookSecret: shopify-sim-webhook-secret",
      `      baseUrl: ${shopifyUrl}`,
      `    mappings: ${mappings}`,
      // The schedules far apart: the pipeline idles, webhooks are what the daemon does.
      'schedules: { pull: "0 0 * * * *", reconcile: "0 0 * * * *", catalog: "0 0 */6 * * *", report: "0 0 6 * * *" }',
      `reports: { dir: ${path.join(dir, "reports")} }`
    ].join("\n") + "\n"
  )
  return file
}

const freePort = async () => {
  const net = await import("node:net")
  return new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
}

const waitReady = async (url: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ok = await fetch(url).then((r) => r.ok, () => false)
    if (ok) return
    if (Date.now() > deadline) throw new Error(`${url} not ready within ${timeoutMs} ms`)
    await sleep(200)
  }
}

const node = (script: string, args: ReadonlyArray<string>, log?: string, nodeArgs: ReadonlyArray<string> = []) =>
  spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: root,
    stdio: ["ignore", log === undefined ? "pipe" : fs.openSync(log, "a"), log === undefined ? "pipe" : fs.openSync(log, "a")]
  })

const exited = (child: ReturnType<typeof spawn>) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once("exit", () => r()))

/** The floor receiver in a process of its own, at the same load as the daemon's max run. */
const measureFloor = async (secret: string, shop: string) => {
  const child = node(path.join(here, "webhook-floor.js"), [secret])
  const port = await new Promise<number>((resolve) => createInterface({ input: child.stdout! }).once("line", (l) => resolve(Number(l))))
  const target: Target = { url: `http://127.0.0.1:${port}/webhooks/${STORE}`, secret, shop }
  await closedLoad(target, { connections: CONNECTIONS, seconds: 1 })
  const max = await closedLoad(target, { connections: CONNECTIONS, seconds: SECONDS })
  const memory = memoryOf(child.pid!)
  child.kill("SIGTERM")
  await exited(child)
  return { ...max, ...memory }
}

/** The webhook counters the daemon's /metrics shows, by outcome, and the busy answers it counted. */
const metricsOf = async (port: number) => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const outcomes: Record<string, number> = {}
  for (const match of text.matchAll(/^podsync_webhook_deliveries_total\{([^}]*)\} (\S+)$/gm)) {
    const outcome = /outcome="([^"]+)"/.exec(match[1] ?? "")?.[1]
    const source = /source="([^"]+)"/.exec(match[1] ?? "")?.[1]
    if (outcome !== undefined && source === STORE) outcomes[outcome] = Number(match[2])
  }
  return outcomes
}

/** What the daemon's own /metrics says of its memory (prom-client's process and V8 heap figures), in MB. */
const heapOf = async (port: number) => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const sample = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN)
  const spaces: Record<string, number> = {}
  for (const match of text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="([^"]+)"\} (\S+)$/gm)) {
    spaces[match[1] ?? ""] = Math.round(Number(match[2]) / 1048576)
  }
  return {
    heapTotalMb: Math.round(sample("nodejs_heap_size_total_bytes") / 1048576),
    heapUsedMb: Math.round(sample("nodejs_heap_size_used_bytes") / 1048576),
    externalMb: Math.round(sample("nodejs_external_memory_bytes") / 1048576),
    heapSpacesMb: spaces
  }
}

const bareFloor = async (dataDir: string, settings: "default" | "podsync" = "default") => {
  const child = node(path.join(here, "webhook-pglite-floor.js"), [
    dataDir,
    "select count(*), sum(length(raw::text)) from store_orders",
    settings
  ])
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  await exited(child)
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Record<string, { rssMb: number }>
}

const ratio = (value: number, floor: number) => Math.round((value / floor) * 1000) / 1000

const measureOn = async (name: "pglite" | "postgres") => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-bench-ingest-"))
  const database = await databaseOf(name, dir)
  const pod = await startPodSimulator({ rateLimit: false })
  const shopify = await startShopifySimulator({ bucket: { maximumAvailable: 20_000, restoreRate: 1_000 } })
  const log = path.join(dir, "daemon.log")
  try {
    const seededAt = performance.now()
    await Effect.runPromise(Effect.scoped(Layer.build(database.layer).pipe(Effect.flatMap((c) => Effect.provide(seed(ORDERS), c)))))
    const seededMs = Math.round(performance.now() - seededAt)
    const port = await freePort()
    const config = writeConfig(dir, database, port, pod.url, shopify.url)
    const target: Target = { url: `http://127.0.0.1:${port}/webhooks/${STORE}`, secret: shopify.webhookSecret, shop: shopify.shop }

    const floor = await measureFloor(target.secret, target.shop)
    console.log(`${name}: floor ${floor.acceptedPerSecond} req/s, p99 ${floor.p99Ms} ms`)

    const daemon = node(
      path.join(root, "bin", "podsync.js"),
      ["start", "--config", config],
      log,
      [
        ...(values["node-flags"] === "" ? [] : values["node-flags"].split(/\s+/)),
        ...(values["cpu-prof"] === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${values["cpu-prof"]}`])
      ]
    )
    await waitReady(`http://127.0.0.1:${port}/readyz`, 120_000)
    // Idle, settled as after the burst: RSS every 5 s for a minute from 3 s after ready (startup's
    // garbage is held until V8's idle-time collection, as the burst's is).
    const idleSamples: Array<number> = []
    for (let i = 0; i < 12; i++) {
      await sleep(i === 0 ? 3000 : 5000)
      idleSamples.push(memoryOf(daemon.pid!).rssMb)
    }
    const idle = { ...memoryOf(daemon.pid!), atStartMb: idleSamples[0] ?? NaN, settlingMb: idleSamples, ...(await heapOf(port)) }
    console.log(
      `${name}: idle with ${ORDERS} orders, RSS ${idle.atStartMb} MB 3 s after ready, ${idle.rssMb} MB a minute on (peak ${idle.peakMb})`
    )

    const warmUp = await closedLoad(target, { connections: CONNECTIONS, seconds: 1 })
    const max = await closedLoad(target, { connections: CONNECTIONS, seconds: SECONDS })
    console.log(`${name}: max ${max.acceptedPerSecond} req/s, p50 ${max.p50Ms} ms, p99 ${max.p99Ms} ms, non-2xx ${max.non2xx}`)
    await sleep(2000)
    const steady = await openLoad(target, { rate: TARGETS.steadyRate, seconds: SECONDS, connections: CONNECTIONS })
    console.log(`${name}: steady ${steady.acceptedPerSecond} req/s, p50 ${steady.p50Ms} ms, p99 ${steady.p99Ms} ms`)
    await sleep(2000)
    const burst = await closedLoad(target, { connections: CONNECTIONS, seconds: Number(values["burst-seconds"]), total: BURST })
    const afterBurstPeak = memoryOf(daemon.pid!)
    // Settled: the hints taken, and V8's idle-time collection done (it comes some 30-100 s after a
    // burst: until then the heap holds the burst's garbage). RSS every 5 s for two minutes: on a
    // slower machine (session 13) the last pass came 100 s after the burst, past a minute's window.
    const samples: Array<number> = []
    for (let i = 0; i < 24; i++) {
      await sleep(5000)
      samples.push(memoryOf(daemon.pid!).rssMb)
    }
    const afterBurst = {
      rssMb: samples.at(-1) ?? NaN,
      settlingMb: samples,
      peakMb: afterBurstPeak.peakMb,
      ...(await heapOf(port))
    }
    console.log(
      `${name}: burst of ${burst.sent}: ${burst.acceptedPerSecond} req/s, p99 ${burst.p99Ms} ms; RSS after ${afterBurst.rssMb} MB (peak ${afterBurst.peakMb})`
    )
    const soak = []
    for (let period = 0; period < Number(values["soak-minutes"] ?? 0) * 2; period++) {
      const half = await openLoad(target, { rate: 200, seconds: 30, connections: CONNECTIONS })
      soak.push({
        atSeconds: (period + 1) * 30,
        ok: half.ok,
        acceptedPerSecond: half.acceptedPerSecond,
        p99Ms: half.p99Ms,
        non2xx: half.non2xx,
        rssMb: memoryOf(daemon.pid!).rssMb,
        ...(await heapOf(port))
      })
      console.log(
        `${name}: soak ${(period + 1) * 30} s: ${half.acceptedPerSecond} req/s, p99 ${half.p99Ms} ms, RSS ${soak.at(-1)?.rssMb} MB (heap ${
          soak.at(-1)?.heapTotalMb
        }, external ${soak.at(-1)?.externalMb})`
      )
    }
    const metrics = await metricsOf(port)
    daemon.kill("SIGTERM")
    await exited(daemon)

    const stored = await Effect.runPromise(Effect.scoped(
      Layer.build(database.layer).pipe(Effect.flatMap((c) =>
        Effect.provide(
          Effect.flatMap(
            Db,
            (db) => db.use((k) => sql<{ n: number }>`select count(*)::int as n from webhook_inbox where source = ${STORE}`.execute(k))
          ),
          c
        )
      ))
    ))
    const pgliteFloor = name === "pglite"
      ? {
        withOrdersDefaultSettings: await bareFloor(path.join(dir, "data")),
        withOrdersPodsyncSettings: await bareFloor(path.join(dir, "data"), "podsync")
      }
      : undefined
    const accepted = warmUp.ok + max.ok + steady.ok + burst.ok + soak.reduce((n, half) => n + half.ok, 0)
    return {
      database: name,
      orders: ORDERS,
      seededMs,
      floor: { acceptedPerSecond: floor.acceptedPerSecond, p50Ms: floor.p50Ms, p99Ms: floor.p99Ms, rssMb: floor.rssMb },
      max: { connections: CONNECTIONS, ...max, ratioToFloor: ratio(max.acceptedPerSecond, floor.acceptedPerSecond) },
      steady: { rate: TARGETS.steadyRate, ...steady, ratioToFloor: ratio(steady.acceptedPerSecond, floor.acceptedPerSecond) },
      burst: { deliveries: BURST, ...burst },
      ...(soak.length > 0 ? { soak: { rate: 200, every30s: soak } } : {}),
      memory: { idle, afterBurst, pgliteFloor },
      metrics,
      // Every 2xx was a new event id: the inbox must hold exactly that many (none lost, none twice).
      inbox: { answered2xx: accepted, stored: stored.rows[0]?.n ?? NaN, exact: (stored.rows[0]?.n ?? NaN) === accepted },
      targets: {
        acceptedPerSecond: { target: TARGETS.acceptedPerSecond[name], met: max.acceptedPerSecond >= TARGETS.acceptedPerSecond[name] },
        steadyP99Ms: {
          target: TARGETS.steadyP99Ms,
          met: steady.p99Ms <= TARGETS.steadyP99Ms && steady.acceptedPerSecond >= TARGETS.steadyRate * 0.97
        },
        non2xx: { target: 0, met: max.non2xx + steady.non2xx + burst.non2xx === 0 },
        rssMb: { target: TARGETS.rssMb[name], met: afterBurst.rssMb <= TARGETS.rssMb[name] && idle.rssMb <= TARGETS.rssMb[name] }
      }
    }
  } finally {
    await Promise.all([pod.close(), shopify.close()])
    await database.cleanUp()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const results = []
for (const name of (values.databases ?? "").split(",").filter((d): d is "pglite" | "postgres" => d === "pglite" || d === "postgres")) {
  results.push(await measureOn(name))
}
const file = path.join(root, "bench", "results", "webhook-ingest.json")
const previous = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as { runs?: Record<string, unknown> }) : {}
const out = {
  what:
    "Signed Shopify orders/updated deliveries (each a new event id) to `podsync start` with 100k finished orders stored; req/s = 2xx answers per second",
  machine: { cpus: os.cpus().length, node: process.version },
  targets: TARGETS,
  // The figures issue #22 reported before the change (same machine, `podsync start`, 10 s runs).
  reportedInIssue: {
    pglite: { maxPerSecond: 174, maxP99Ms: 410, steadyAchieved: 263, steadyP99Ms: 855, floorPerSecond: 8900, rssAfterMb: 565 },
    postgres: { maxPerSecond: 486, maxP99Ms: 200, steadyAchieved: 500, steadyP99Ms: 87, floorPerSecond: 6300, rssAfterMb: 383 }
  },
  runs: { ...previous.runs, [values.label ?? "after"]: { at: new Date().toISOString(), seconds: SECONDS, results } }
}
console.log(JSON.stringify(results, null, 2))
if (QUICK) console.log("(--quick: nothing written)")
else fs.writeFileSync(file, JSON.stringify(out, null, 2) + "\n")
