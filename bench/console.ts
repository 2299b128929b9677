// The console with 100k stored orders: how long the overview, its live fragment and the
// needs-a-person queue take to answer (server time, measured on this machine's loopback from
// the daemon's own process), against the bound of 300 ms p95.
//
//   npm run build && node dist/bench/console.js [--orders 100000] [--runs 40]
//   (TEST_DATABASE_URL=postgres://… also measures on PostgreSQL)
//
// Writes bench/results/console.json.
import * as fs from "node:fs"
import * as path from "node:path"
import { parseArgs } from "node:util"
import * as net from "node:net"
import * as os from "node:os"
import { Duration, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { sql } from "kysely"
import pg from "pg"
import { DaemonLive } from "../src/app/DaemonLive.js"
import { loadConfig } from "../src/config/loadConfig.js"
import { Db, DbLive } from "../src/db/Db.js"
import { migrateToLatest } from "../src/db/Migrator.js"
import { startPodSimulator } from "../src/simulator/pod/index.js"
import { startShopifySimulator } from "../src/simulator/shopify/index.js"

interface Database {
  readonly name: string
  readonly layer: Layer.Layer<Db>
}

const pglite: Database = {
  name: "pglite",
  layer: Layer.tap(DbLive({ url: Option.none(), dataDir: "memory://" }), (c) => Effect.provide(migrateToLatest, c)).pipe(Layer.orDie)
}

/** A schema of its own on the PostgreSQL server at `url`, dropped afterwards. */
const postgres = (url: string): Database => {
  const schema = `bench_console_${process.pid}`
  const admin = (statement: string) =>
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(statement)
      await client.end()
    })
  const made = Layer.scopedDiscard(
    Effect.acquireRelease(admin(`create schema "${schema}"`), () => admin(`drop schema "${schema}" cascade`))
  )
  const db = DbLive({ url: Option.some(Redacted.make(url)), dataDir: "unused", schema })
  return { name: "postgres", layer: Layer.tap(Layer.provideMerge(db, made), (c) => Effect.provide(migrateToLatest, c)).pipe(Layer.orDie) }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const configFile = (podUrl: string, shopifyUrl: string, port: number) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-bench-console-"))
  const mappings = path.join(dir, "mappings.csv")
  fs.copyFileSync("config/mappings/demo-shopify.csv", mappings)
  const file = path.join(dir, "podsync.yaml")
  fs.writeFileSync(
    file,
    [
      `dataDir: ${path.join(dir, "data")}`,
      "log: { level: none }",
      `server: { host: 127.0.0.1, port: ${port} }`,
      `pod: { baseUrl: "${podUrl}", clientKey: sim-client-key, clientSecret: sim-client-secret, timeoutMs: 5000 }`,
      "stores:",
      "  - key: demo-shopify",
      "    platform: shopify",
      "    podStoreId: store-demo",
      `    shopify: { shop: acme.myshopify.com, accessToken: shpat_sim_token, webhookSecret: shopify-sim-webhook-secret, baseUrl: "${shopifyUrl}" }`,
      `    mappings: ${mappings}`,
      'schedules: { pull: "0 0 * * * *", reconcile: "0 0 * * * *", catalog: "0 0 * * * *", report: "0 0 6 * * *" }',
      `reports: { dir: ${path.join(dir, "reports")} }`
    ].join("\n")
  )
  return file
}

const { values } = parseArgs({ options: { orders: { type: "string" }, runs: { type: "string" } } })
const ORDERS = Number(values.orders ?? 100_000)
const RUNS = Number(values.runs ?? 40)
const BOUND_MS = 300

const FIRST_NAMES = ["Anna", "Jean", "Maria-Antonietta", "Liam", "Sofia", "Noah", "Emma", "Lukas", "Chloé", "Mateo", "Yuki", "Olivia"]
const LAST_NAMES = [
  "Schmidt",
  "Dupont",
  "Castellano de la Vega",
  "Smith",
  "Rossi",
  "Novak",
  "García",
  "Müller",
  "Kowalski",
  "Tanaka",
  "Brown"
]
const SKUS = Array.from(
  { length: 40 },
  (_, n) =>
    `${["TEE", "HOODIE", "MUG", "POSTER"][n % 4]}-${["BLK", "WHT", "NAVY", "HEATHER", "RED"][n % 5]}-${
      ["S", "M", "L", "XL", "XXL"][Math.floor(n / 8) % 5]
    }-${n}`
)

/**
 * Orders of three stores (EUR, EUR, USD) over the last 30 days, most fulfilled, about 4 % in front of a person
 * and 3 % drafted, with what the list shows and searches: order number, buyer, email, one to three SKUs, total.
 */
const seed = (orders: number) =>
  Effect.flatMap(
    Db,
    (db) =>
      db.use(async (k) => {
        await sql`insert into store_orders (store_key, store_order_id, reference_id, state, held_reason, held_details, raw, normalized,
            pod_draft_id, pod_order_id, pod_status, last_error, updated_at, created_at, next_attempt_at)
          select s.store_key, i::text, s.store_key || ':' || i, s.state,
            case when s.state = 'held' then (array['unmatched','out_of_stock','address'])[1 + i % 3] end,
            case when s.state = 'held' then jsonb_build_object('message', 'held for the benchmark') end,
            '{}'::jsonb,
            jsonb_build_object('name', '#' || (1000 + i), 'storeKey', s.store_key, 'storeOrderId', i::text,
              'createdAt', to_char((now() - ((i % 720) || ' hours')::interval) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
              'email', 'buyer' || i || '@example.com',
              'shipTo', jsonb_build_object('name', (array[${sql.join(FIRST_NAMES)}]::text[])[1 + i % ${FIRST_NAMES.length}] || ' ' ||
                (array[${sql.join(LAST_NAMES)}]::text[])[1 + (i / 7) % ${LAST_NAMES.length}], 'countryCode', 'DE'),
              'lines', (select jsonb_agg(jsonb_build_object('lineId', 'line-' || n, 'sku', (array[${
          sql.join(SKUS)
        }]::text[])[1 + (i * 7 + n * 13) % ${SKUS.length}],
                 'title', 'Logo Tee', 'quantity', 1 + n)) from generate_series(1, 1 + i % 3) as n),
              'total', jsonb_build_object('currency_code', case when s.store_key = 'shop-c' then 'USD' else 'EUR' end,
                'units', 19 + i % 80, 'nanos', (i % 100) * 10000000)),
            case when s.state in ('drafted','checked_out','cancel_pending','pod_on_hold','in_production','shipped','fulfilled') then 'draft-' || i end,
            case when s.state in ('checked_out','in_production','shipped','fulfilled') then 'ord-' || i end,
            case when s.state = 'drafted' then 'VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT'
                 when s.state = 'checked_out' then (array['VENDOR_ORDER_STATUS_AWAITING_PAYMENT','VENDOR_ORDER_STATUS_PAYMENT_FAILED'])[1 + i % 2] end,
            case when s.state = 'failed' then jsonb_build_object('message', 'refused by the benchmark') end,
            now() - ((i % 720) || ' hours')::interval, now() - ((i % 720) || ' hours')::interval, null
          from generate_series(1, ${orders}) as i,
            lateral (select (array['demo-shopify','shop-b','shop-c'])[1 + i % 3] as store_key,
              case when i % 1000 < 850 then 'fulfilled' when i % 1000 < 900 then 'shipped' when i % 1000 < 930 then 'drafted'
                   when i % 1000 < 934 then 'checked_out'
                   when i % 1000 < 940 then 'in_production' when i % 1000 < 970 then 'held' when i % 1000 < 980 then 'failed'
                   when i % 1000 < 985 then 'cancel_pending' when i % 1000 < 990 then 'pod_on_hold'
                   when i % 1000 < 995 then 'not_pod' else 'cancelled' end as state) as s`.execute(k)
        // As autovacuum would have by then: the planner knows the table's figures.
        await sql`analyze store_orders`.execute(k)
      })
  )

/** The cursor of the row `depth` rows down the newest-first list: a deep page's link. */
const deepCursor = (depth: number) =>
  Effect.flatMap(
    Db,
    (db) =>
      db.use((k) =>
        sql<{ c: string }>`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '_' || id as c
        from store_orders order by created_at desc, id desc offset ${depth} limit 1`.execute(k)
      )
  ).pipe(Effect.map((r) => r.rows[0]?.c ?? ""))

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN

const measureOn = (database: Database) =>
  Effect.scoped(Effect.gen(function*() {
    const pod = yield* Effect.acquireRelease(Effect.promise(() => startPodSimulator({})), (s) => Effect.promise(() => s.close()))
    const shopify = yield* Effect.acquireRelease(Effect.promise(() => startShopifySimulator({})), (s) => Effect.promise(() => s.close()))
    const db = yield* Layer.build(database.layer)
    const seededIn = yield* Effect.timed(seed(ORDERS).pipe(Effect.provide(db)))
    const deep = yield* deepCursor(Math.floor(ORDERS * 0.9)).pipe(Effect.provide(db))
    const today = new Date().toISOString().slice(0, 10)
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10)
    const port = yield* Effect.promise(() => freePort())
    const config = yield* loadConfig(configFile(pod.url, shopify.url, port), {})
    yield* Layer.build(DaemonLive(config, { idle: "1 second" }).pipe(Layer.provide(Layer.succeedContext(db)))).pipe(
      Effect.provide(Layer.merge(Logger.replace(Logger.defaultLogger, Logger.none), Logger.minimumLogLevel(LogLevel.None)))
    )
    const base = `http://127.0.0.1:${port}`
    // On a loopback host without auth the first page gives the session.
    const first = yield* Effect.promise(() => fetch(`${base}/console`))
    const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] ?? ""
    const pages = {
      overview: "/console",
      overviewToday: "/console?range=today",
      overview7Days: "/console?range=7d",
      live: "/console/live",
      queue: "/console/queue",
      queueHeld: "/console/queue?reason=held%3Aunmatched",
      mappings: "/console/mappings",
      orders: "/console/orders",
      ordersDeep: `/console/orders?before=${encodeURIComponent(deep)}`,
      ordersNumber: "/console/orders?q=%2351234",
      ordersEmail: "/console/orders?q=buyer77777%40example.com",
      ordersBuyer: "/console/orders?q=Sofia+Rossi",
      ordersSku: `/console/orders?q=${SKUS[17]}`,
      ordersSkuHeld: `/console/orders?q=${SKUS[17]}&state=held`,
      ordersPodId: "/console/orders?q=ord-4242",
      ordersReference: "/console/orders?q=shop-b%3A60001",
      ordersState: "/console/orders?state=failed",
      ordersStoreWeek: `/console/orders?store=shop-c&from=${weekAgo}&to=${today}`,
      ordersStateStoreDeep: `/console/orders?state=fulfilled&store=shop-b&before=${encodeURIComponent(deep)}`,
      pay: "/console/pay"
    }
    const figures: Record<string, { p50: number; p95: number; max: number; bytes: number }> = {}
    for (const [name, url] of Object.entries(pages)) {
      const times: Array<number> = []
      let bytes = 0
      for (let run = 0; run < RUNS + 3; run++) {
        const started = performance.now()
        const response = yield* Effect.promise(() => fetch(`${base}${url}`, { headers: { cookie } }))
        const body = yield* Effect.promise(() => response.text())
        if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 200)}`)
        if (run >= 3) times.push(performance.now() - started)
        bytes = body.length
      }
      times.sort((a, b) => a - b)
      const round = (ms: number) => Math.round(ms * 10) / 10
      figures[name] = { p50: round(percentile(times, 0.5)), p95: round(percentile(times, 0.95)), max: round(times.at(-1) ?? NaN), bytes }
    }
    return {
      database: database.name,
      orders: ORDERS,
      runs: RUNS,
      seededMs: Math.round(Duration.toMillis(seededIn[0])),
      pages: figures,
      withinBound: Object.values(figures).every((f) => f.p95 <= BOUND_MS)
    }
  }))

const url = process.env.TEST_DATABASE_URL
const results = await Effect.runPromise(
  Effect.forEach(url ? [pglite, postgres(url)] : [pglite], measureOn)
)
const out = {
  what: "GET /console pages with stored orders: milliseconds from request to the last byte, on the daemon's loopback",
  boundMsP95: BOUND_MS,
  machine: { cpus: os.cpus().length, node: process.version, loadAverageAtEnd: os.loadavg().map((l) => Math.round(l * 10) / 10) },
  results
}
const file = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "bench", "results", "console.json")
fs.writeFileSync(file, JSON.stringify(out, null, 2) + "\n")
console.log(JSON.stringify(out, null, 2))
