// One full lifecycle run: N orders appear in the Shopify simulator at once, a driver loop checks
// them out and ships them at the POD simulator, and the daemon takes each through pull, match,
// draft, reconcile and fulfill. Measures wall and CPU time from the orders' appearance until the
// daemon has fulfilled all of them, and every POD request it made on the way.
import * as fs from "node:fs"
import { Session } from "node:inspector/promises"
import { performance } from "node:perf_hooks"
import pg from "pg"
import { type Database, REPORT_CATCH_UP_MS, startDaemon } from "./pipeline-daemon.js"
import {
  type BackendCpu,
  podDeliveries,
  podQuiet,
  post,
  postgresBackendCpu,
  requestsBetween,
  round,
  shopifyStats,
  sleep,
  statusCounts,
  lookUpCalls
} from "./pipeline-measure.js"
import { startSims } from "./pipeline-sims.js"
import { installSqlCounter, type SqlTimings, sqlCounter } from "./pipeline-sql.js"

/** Store SKUs the demo mapping carries (config/mappings/demo-shopify.csv), cycled through. */
export const MAPPED_SKUS = ["UTS01-FOREST-S", "UTS01-DARKHE-M", "UTS01-MILITA-S", "UTS01-SPORTG-S", "UTS01-CHARCO-S", "UTS01-WHITE-S"]

export const orderTemplate = (sku: string, n: number) => ({
  financialStatus: "PAID",
  lineItems: [{
    sku,
    title: "Podsync Tee",
    quantity: 1 + (n % 2),
    price: "24.00",
    customAttributes: [{ key: "design_front", value: `https://cdn.example.com/d/${n}.png` }]
  }]
})

export interface LifecycleScenario {
  readonly name: string
  readonly database: Database
  readonly podWebhooks: boolean
  /** The POD topics subscribed with `podWebhooks` (default: all seven). */
  readonly podWebhookTopics?: ReadonlyArray<string>
  /** The share of orders the POD service ships in two boxes, the second a driver turn after the first. */
  readonly splitShare?: number
  readonly orders: number
  readonly schedules: { readonly pull: string; readonly reconcile: string }
  /** How often the driver checks out and ships everything at the POD simulator. */
  readonly driverIntervalMs: number
  readonly timeoutMs: number
  readonly mappingSource: string
  /** Wait for the daemon's one-off catch-up report before the orders come, so that it is not counted. */
  readonly afterCatchUpReport: boolean
  /** Write a V8 CPU profile of this process over the measured window to this file (`--cpu-profile`). */
  readonly cpuProfile?: string | undefined
}

/** Seconds from the orders' appearance until every order had reached each point, as /status counted them. */
export interface Milestones {
  /** All N stored by the pull. */
  readonly pulled: number | null
  /** None left in pulled (all matched). */
  readonly matched: number | null
  /** None left before drafted. */
  readonly drafted: number | null
  /** All N shipped or fulfilled. */
  readonly shipped: number | null
  readonly fulfilled: number | null
}

const PRE_MATCH = ["pulled"]
const PRE_DRAFT = ["pulled", "ready", "in_doubt", "held"]
const SHIPPED = ["shipped", "fulfilled"]

const sum = (states: Record<string, number>, names?: ReadonlyArray<string>) =>
  Object.entries(states).filter(([name]) => names === undefined || names.includes(name)).reduce((a, [, n]) => a + n, 0)

const reached = (states: Record<string, number>, n: number): Record<keyof Milestones, boolean> => ({
  pulled: sum(states) >= n,
  matched: sum(states) >= n && sum(states, PRE_MATCH) === 0,
  drafted: sum(states) >= n && sum(states, PRE_DRAFT) === 0,
  shipped: sum(states, SHIPPED) >= n,
  fulfilled: (states["fulfilled"] ?? 0) >= n
})

export interface LifecycleResult {
  readonly name: string
  readonly database: Database["kind"]
  readonly podWebhooks: boolean
  readonly orders: number
  readonly schedules: LifecycleScenario["schedules"]
  readonly driverIntervalMs: number
  readonly afterCatchUpReport: boolean
  readonly completed: boolean
  readonly finalStates: Record<string, number>
  /** Boxes the POD service shipped, tracking numbers the store shows, and orders shown several. */
  readonly packages: { readonly shipped: number; readonly shown: number; readonly missed: number; readonly ordersWithSeveral: number }
  readonly wallSeconds: number
  /** From the orders' appearance until the POD simulator held all N drafts. */
  readonly secondsToAllDrafted: number | null
  readonly milestones: Milestones
  /** Orders by state about once a second: where the orders waited. */
  readonly timeline: ReadonlyArray<{ readonly t: number; readonly states: Record<string, number> }>
  readonly ordersPerSecond: number
  readonly draftsPerSecond: number | null
  readonly cpu: {
    /** This process (the daemon, its PGlite when embedded, and the light driver loop). */
    readonly daemonSeconds: number
    readonly coresUsed: number
    /** PostgreSQL server processes serving the daemon's connections; null on PGlite or a remote server. */
    readonly postgresBackendSeconds: number | null
    readonly simulatorsSeconds: number
  }
  /** orders/s ÷ cores used by the daemon's process = orders per CPU-second of the daemon. */
  readonly ordersPerSecondPerCore: number
  /** The same, counting the PostgreSQL backends' CPU too. */
  readonly ordersPerSecondPerCoreWithPostgres: number | null
  readonly pod: {
    readonly startupRequests: Record<string, number>
    readonly lifecycleRequests: Record<string, number>
    readonly lifecycleTotal: number
    readonly callsPerOrder: number
    readonly callsPerOrderIncludingStartup: number
    /** Of the calls: the look-ups before a first draft (drafts and orders by reference id), by kind, and per order. */
    readonly lookUps: { readonly drafts: number; readonly orders: number; readonly perOrder: number }
    readonly rejected429: number
    readonly duplicateReferenceIds: number
    readonly drafts: number
    /** Seconds from the last fulfilment until the service's last request (late webhook follow-ups). */
    readonly requestsWentOnForSeconds: number
    /** False when the service was still getting requests 300 s after the last fulfilment (counts then cut there). */
    readonly settled: boolean
    /** With POD webhooks: deliveries the simulator made, attempts, and the daemon's answers. */
    readonly webhookDeliveries: { readonly deliveries: number; readonly attempts: number; readonly byStatus: Record<string, number> } | null
  }
  /** SQL statements the daemon sent from the orders' appearance until all were fulfilled, by kind and table. */
  readonly sql: {
    readonly total: number
    readonly perOrder: number
    readonly byKind: Record<string, number>
    readonly statementLatency: SqlTimings
    readonly poolWait: SqlTimings
  }
  /** PostgreSQL only: order_events rows per order, by reason (numbers and ids blanked). */
  readonly eventsPerOrderByReason: Record<string, number> | null
  readonly shopify: {
    readonly requests: number
    readonly requestsPerOrder: number
    readonly costPerOrder: number
    readonly mutations: Record<string, number>
    readonly fulfillments: number
    readonly throttled: number
  }
}

const eventsByReason = async (url: string, schema: string, orders: number) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const rows = (await client.query<{ reason: string; n: number }>(
      `select regexp_replace(coalesce(reason, ''), '[0-9a-f-]{8,}|[0-9]+', '#', 'g') as reason, count(*)::int as n
       from "${schema}".order_events group by 1 order by 2 desc`
    )).rows
    return Object.fromEntries(rows.map((r) => [r.reason, round(r.n / orders, 2)]))
  } finally {
    await client.end()
  }
}

const createInStore = async (shopifyUrl: string, count: number) => {
  // One bulk call per SKU: the orders appear within a few milliseconds.
  const perSku = Math.ceil(count / MAPPED_SKUS.length)
  let made = 0
  for (const [i, sku] of MAPPED_SKUS.entries()) {
    const n = Math.min(perSku, count - made)
    if (n <= 0) break
    await post(`${shopifyUrl}/__sim/orders/bulk`, { count: n, template: orderTemplate(sku, i) })
    made += n
  }
}

/** Boxes the POD service shipped and tracking numbers the store shows, polled until they match or `waitMs` is over. */
const packagesShown = async (podUrl: string, shopifyUrl: string, waitMs: number) => {
  const deadline = performance.now() + waitMs
  for (;;) {
    const shipped = ((await (await fetch(`${podUrl}/__sim/stats`)).json()) as { packages: number }).packages
    const byOrder = ((await (await fetch(`${shopifyUrl}/__sim/stats`)).json()) as { trackingNumbersByOrder: Record<string, Array<string>> })
      .trackingNumbersByOrder
    const shown = Object.values(byOrder).reduce((sum, numbers) => sum + numbers.length, 0)
    const ordersWithSeveral = Object.values(byOrder).filter((numbers) => numbers.length > 1).length
    if (shown >= shipped || performance.now() > deadline) return { shipped, shown, missed: Math.max(0, shipped - shown), ordersWithSeveral }
    await sleep(500)
  }
}

export const runLifecycle = async (scenario: LifecycleScenario): Promise<LifecycleResult> => {
  installSqlCounter()
  const sims = await startSims({ podLimitLifted: true, shopifyBucketLifted: true })
  try {
    const daemon = await startDaemon({
      podUrl: sims.podUrl,
      shopifyUrl: sims.shopifyUrl,
      database: scenario.database,
      podLimitLifted: true,
      podWebhooks: scenario.podWebhooks,
      ...(scenario.podWebhookTopics === undefined ? {} : { podWebhookTopics: scenario.podWebhookTopics }),
      schedules: scenario.schedules,
      mappingSource: scenario.mappingSource
    })
    let backend: BackendCpu | undefined
    try {
      // Start-up requests (catalog, webhook subscriptions, the catch-up report) are over before the orders come.
      if (scenario.afterCatchUpReport) await sleep(Math.max(0, daemon.startedAt + REPORT_CATCH_UP_MS - Date.now()))
      const atStart = (await podQuiet(sims.podUrl, 1_500, 60_000)).stats
      const lookUpsAtStart = await lookUpCalls(daemon.url)
      const shopAtStart = await shopifyStats(sims.shopifyUrl)
      if (scenario.database.kind === "postgres" && daemon.applicationName !== undefined) {
        backend = await postgresBackendCpu(scenario.database.url, daemon.applicationName)
        await backend.start()
      }
      const simCpu0 = await sims.cpuMicros()
      const profiler = scenario.cpuProfile === undefined ? undefined : new Session()
      if (profiler !== undefined) {
        profiler.connect()
        await profiler.post("Profiler.enable")
        await profiler.post("Profiler.start")
      }
      if ((scenario.splitShare ?? 0) > 0) {
        await post(`${sims.podUrl}/__sim/faults`, { kind: "splitPackages", packages: 2, probability: scenario.splitShare })
      }
      const cpu0 = process.cpuUsage()
      sqlCounter.start()
      const t0 = performance.now()
      await createInStore(sims.shopifyUrl, scenario.orders)
      // The POD service's side (checkout, production, shipping) runs in the simulators' process.
      sims.drive(scenario.driverIntervalMs)

      let allDraftedAt: number | undefined
      const timeline: Array<{ readonly t: number; readonly states: Record<string, number> }> = []
      const milestones: Record<keyof Milestones, number | null> = {
        pulled: null,
        matched: null,
        drafted: null,
        shipped: null,
        fulfilled: null
      }
      let states: Record<string, number> = {}
      let completed = false
      for (;;) {
        if (allDraftedAt === undefined && (await sims.drafts()) >= scenario.orders) allDraftedAt = performance.now()
        await backend?.sample()
        states = await statusCounts(daemon.url)
        const t = round((performance.now() - t0) / 1000, 2)
        if (timeline.length === 0 || t - timeline[timeline.length - 1]!.t >= 1) timeline.push({ t, states })
        for (const [point, done] of Object.entries(reached(states, scenario.orders)) as Array<[keyof Milestones, boolean]>) {
          if (done && milestones[point] === null) milestones[point] = round((performance.now() - t0) / 1000, 2)
        }
        if ((states["fulfilled"] ?? 0) >= scenario.orders) {
          completed = true
          break
        }
        if (performance.now() - t0 > scenario.timeoutMs) break
        await sleep(scenario.driverIntervalMs)
      }
      const t1 = performance.now()
      const cpu = process.cpuUsage(cpu0)
      const sql = sqlCounter.stop()
      if (profiler !== undefined && scenario.cpuProfile !== undefined) {
        const { profile } = await profiler.post("Profiler.stop")
        fs.writeFileSync(scenario.cpuProfile, JSON.stringify(profile))
        profiler.disconnect()
      }
      const simCpu1 = await sims.cpuMicros()
      await backend?.sample()

      // Every box shipped must reach the store: a second box may still be on its way when the last order is fulfilled.
      const packages = await packagesShown(sims.podUrl, sims.shopifyUrl, completed ? 60_000 : 0)
      // Late webhook follow-ups still count: wait until the POD simulator has been quiet a while.
      const settled = await podQuiet(sims.podUrl, 3_000, 300_000)
      const atEnd = settled.stats
      const lookUpsAtEnd = await lookUpCalls(daemon.url)
      const lookUps = { drafts: lookUpsAtEnd.drafts - lookUpsAtStart.drafts, orders: lookUpsAtEnd.orders - lookUpsAtStart.orders }
      const deliveries = scenario.podWebhooks ? await podDeliveries(sims.podUrl) : null
      const shopAtEnd = await shopifyStats(sims.shopifyUrl)
      const startupRequests = atStart.requests
      const lifecycleRequests = requestsBetween(atStart, atEnd)
      const lifecycleTotal = atEnd.total - atStart.total
      const wallSeconds = (t1 - t0) / 1000
      const daemonSeconds = (cpu.user + cpu.system) / 1e6
      const postgresBackendSeconds = backend?.seconds() ?? null
      const ordersPerSecond = scenario.orders / wallSeconds
      const secondsToAllDrafted = allDraftedAt === undefined ? null : (allDraftedAt - t0) / 1000
      const shopRequests = shopAtEnd.requests - shopAtStart.requests
      const events = scenario.database.kind === "postgres" && daemon.schema !== undefined
        ? await eventsByReason(scenario.database.url, daemon.schema, scenario.orders)
        : null
      return {
        name: scenario.name,
        database: scenario.database.kind,
        podWebhooks: scenario.podWebhooks,
        orders: scenario.orders,
        schedules: scenario.schedules,
        driverIntervalMs: scenario.driverIntervalMs,
        afterCatchUpReport: scenario.afterCatchUpReport,
        completed: completed && packages.missed === 0,
        finalStates: states,
        packages,
        wallSeconds: round(wallSeconds, 3),
        secondsToAllDrafted: secondsToAllDrafted === null ? null : round(secondsToAllDrafted, 3),
        milestones,
        timeline,
        ordersPerSecond: round(ordersPerSecond),
        draftsPerSecond: secondsToAllDrafted === null ? null : round(scenario.orders / secondsToAllDrafted),
        cpu: {
          daemonSeconds: round(daemonSeconds, 3),
          coresUsed: round(daemonSeconds / wallSeconds, 3),
          postgresBackendSeconds: postgresBackendSeconds === null ? null : round(postgresBackendSeconds, 3),
          simulatorsSeconds: round((simCpu1 - simCpu0) / 1e6, 3)
        },
        ordersPerSecondPerCore: round(scenario.orders / daemonSeconds),
        ordersPerSecondPerCoreWithPostgres: postgresBackendSeconds === null
          ? null
          : round(scenario.orders / (daemonSeconds + postgresBackendSeconds)),
        pod: {
          startupRequests,
          lifecycleRequests,
          lifecycleTotal,
          callsPerOrder: round(lifecycleTotal / scenario.orders, 3),
          callsPerOrderIncludingStartup: round(atEnd.total / scenario.orders, 3),
          lookUps: { ...lookUps, perOrder: round((lookUps.drafts + lookUps.orders) / scenario.orders, 3) },
          rejected429: atEnd.rejected429,
          duplicateReferenceIds: atEnd.duplicateReferenceIds.length,
          drafts: atEnd.drafts,
          requestsWentOnForSeconds: round(settled.seconds, 1),
          settled: settled.quiet,
          webhookDeliveries: deliveries
        },
        sql: { ...sql, perOrder: round(sql.total / scenario.orders, 1) },
        eventsPerOrderByReason: events,
        shopify: {
          requests: shopRequests,
          requestsPerOrder: round(shopRequests / scenario.orders, 2),
          costPerOrder: round((shopAtEnd.costSpent - shopAtStart.costSpent) / scenario.orders, 1),
          mutations: Object.fromEntries(Object.entries(shopAtEnd.mutations).map(([k, v]) => [k, v - (shopAtStart.mutations[k] ?? 0)])),
          fulfillments: Object.keys(shopAtEnd.fulfillmentsByOrder).length,
          throttled: shopAtEnd.throttled - shopAtStart.throttled
        }
      }
    } finally {
      await backend?.close()
      await daemon.stop()
    }
  } finally {
    await sims.stop()
  }
}
