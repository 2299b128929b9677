// The two outage runs of the outage benchmark, each against fresh simulators (in their child
// process) and a fresh daemon in this process:
//
//  - POD outage: every API route of the POD simulator answers 503 (a fault with no count) while
//    orders appear in the store one by one, spread evenly over the outage; the fault is cleared at
//    the recovery moment R; measured: from R until the POD simulator holds a draft for every order.
//  - Store outage: orders drafted and checked out normally, then every Shopify API request answers
//    503 while the POD simulator ships them one by one, spread evenly over the outage; measured:
//    from R until the Shopify simulator holds a fulfillment for every order.
//
// The POD simulator keeps its real limit (100 requests / 10 s; the daemon's budget its default),
// the Shopify simulator Shopify's Standard cost bucket; the daemon pulls every 2 s.
import { performance } from "node:perf_hooks"
import type { RunLog } from "./outage-log.js"
import { type Database, startDaemon } from "./pipeline-daemon.js"
import { MAPPED_SKUS, orderTemplate } from "./pipeline-lifecycle.js"
import { getJson, podQuiet, podStats, post, round, shopifyStats, sleep, statusCounts } from "./pipeline-measure.js"
import { startSims } from "./pipeline-sims.js"

export const SCHEDULES = { pull: "*/2 * * * * *", reconcile: "*/2 * * * * *" }
/** What the POD fault board takes: no route (every API route), no count (until cleared). */
export const POD_OUTAGE_FAULT = { kind: "error5xx", status: 503 }
/** What the Shopify simulator's fault rules take: operation "*" (every GraphQL request), no count. */
export const STORE_OUTAGE_FAULT = { kind: "error5xx", operation: "*", status: 503 }

export interface OutageScenario {
  readonly name: string
  readonly database: Database
  /** Orders that appear during the POD outage, or that the POD service ships during the store outage. */
  readonly orders: number
  readonly outageSeconds: number
  /** How long to wait for the drain after R before giving up (recorded as not drained). */
  readonly drainTimeoutMs: number
  readonly mappingSource: string
  /** Wait for the daemon's one-off catch-up report (a minute after start) before the outage begins. */
  readonly afterCatchUpReport: boolean
  readonly log: RunLog
}

/** Requests a simulator counted in a phase. */
export interface PhaseRequests {
  readonly total: number
  readonly byRoute: Record<string, number>
  readonly byStatus: Record<string, number>
}

export interface TimelinePoint {
  /** Seconds from R (negative during the outage). */
  readonly t: number
  /** Orders done at the simulator (drafted at the POD service, or fulfilled in the store). */
  readonly done: number
  /** The daemon's /status counts. */
  readonly states: Record<string, number>
}

export interface OutageResult {
  readonly name: string
  readonly kind: "pod" | "store"
  readonly database: Database["kind"]
  readonly orders: number
  readonly outageSeconds: number
  readonly schedules: typeof SCHEDULES
  /** Whether the daemon's one-off catch-up report was over before the outage began. */
  readonly catchUpReport: "over before the outage" | "not seen within 180 s" | "not waited for"
  readonly fault: Record<string, unknown>
  /** Orders not yet done at R (no draft at the POD service, or no fulfillment in the store). */
  readonly waitingAtRecovery: number
  /** The daemon's /status counts at R. */
  readonly statesAtRecovery: Record<string, number>
  /** Whether every order was done within the drain timeout. */
  readonly drained: boolean
  /** Seconds from R until every order was done at the simulator; null when not drained. */
  readonly drainSeconds: number | null
  /** Seconds from R until the daemon's /status counted every order past the step (drafted, or fulfilled). */
  readonly drainSecondsDaemonView: number | null
  /** Orders still not done when the wait ended. */
  readonly leftAtEnd: number
  /** Seconds from R until 25 %, 50 %, 75 % and all of the waiting orders were done. */
  readonly drainMilestones: Record<string, number | null>
  readonly requests: {
    readonly pod: { readonly outage: PhaseRequests; readonly drain: PhaseRequests }
    readonly shopify: {
      readonly outage: { readonly total: number; readonly faultsInjected: number }
      readonly drain: { readonly total: number; readonly throttled: number; readonly operations: Record<string, number> }
    }
  }
  /** Orders with more than one draft (POD) or more than one fulfillment (store): must be 0. */
  readonly duplicates: number
  /** Drafts per reference id of the run's orders, as the POD simulator counts them: { "1": n } is right. */
  readonly draftsPerReferenceId: Record<string, number>
  /** Fulfillments per store order of the run's orders (store outage only). */
  readonly fulfillmentsPerOrder: Record<string, number> | null
  /** /readyz just before R: does the daemon say anything is wrong? */
  readonly readyzBeforeRecovery: { readonly status: number; readonly body: unknown }
  /** /status just before R, without the order counts (in statesAtRecovery) and traffic counters. */
  readonly statusBeforeRecovery: unknown
  readonly timeline: ReadonlyArray<TimelinePoint>
  readonly logs: ReturnType<RunLog["summary"]>
}

const PRE_DRAFT = ["pulled", "held", "ready", "in_doubt"]

const sumOf = (states: Record<string, number>, names?: ReadonlyArray<string>) =>
  Object.entries(states).filter(([name]) => names === undefined || names.includes(name)).reduce((a, [, n]) => a + n, 0)

const deltas = (before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>) => {
  const out: Record<string, number> = {}
  for (const [key, count] of Object.entries(after)) {
    const delta = count - (before[key] ?? 0)
    if (delta > 0) out[key] = delta
  }
  return out
}

interface PodSnapshot {
  readonly total: number
  readonly requests: Record<string, number>
  readonly byStatus: Record<string, number>
  readonly draftsByReferenceId: Record<string, number>
}

const podSnapshot = (podUrl: string): Promise<PodSnapshot> => podStats(podUrl) as unknown as Promise<PodSnapshot>

const podBetween = (before: PodSnapshot, after: PodSnapshot): PhaseRequests => ({
  total: after.total - before.total,
  byRoute: deltas(before.requests, after.requests),
  byStatus: deltas(before.byStatus, after.byStatus)
})

interface ShopSnapshot {
  readonly requests: number
  readonly throttled: number
  readonly operations: Record<string, number>
  readonly faultsInjected: Record<string, number>
  readonly fulfillmentsByOrder: Record<string, number>
}

const shopSnapshot = (shopifyUrl: string): Promise<ShopSnapshot> => shopifyStats(shopifyUrl) as unknown as Promise<ShopSnapshot>

const histogram = (values: ReadonlyArray<number>) => {
  const out: Record<string, number> = {}
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1
  return out
}

const readyz = async (daemonUrl: string) => {
  const response = await fetch(`${daemonUrl}/readyz`)
  return { status: response.status, body: (await response.json()) as unknown }
}

const statusSummary = async (daemonUrl: string) => {
  const { orders: _orders, traffic: _traffic, generatedAt: _generatedAt, ...rest } = await getJson(`${daemonUrl}/status`)
  return rest as unknown
}

const del = async (url: string) => {
  const response = await fetch(url, { method: "DELETE" })
  if (!response.ok) throw new Error(`DELETE ${url}: ${response.status} ${await response.text()}`)
}

/** Sleeps until `at` (a performance.now() time). */
const until = (at: number) => sleep(Math.max(0, at - performance.now()))

/**
 * Samples about once a second (the daemon's /status and the simulator's count of done orders)
 * until stopped: where the orders waited, before and after R.
 */
const sampler = (daemonUrl: string, done: () => Promise<number>, recoveryAt: () => number | undefined, origin: number) => {
  const timeline: Array<TimelinePoint> = []
  let running = true
  const loop = (async () => {
    while (running) {
      const next = performance.now() + 1_000
      const [count, states] = await Promise.all([done(), statusCounts(daemonUrl).catch(() => ({}))])
      const now = performance.now()
      timeline.push({ t: round((now - (recoveryAt() ?? origin)) / 1000, 1), done: count, states })
      await until(next)
    }
  })()
  return {
    timeline,
    stop: async () => {
      running = false
      await loop
    }
  }
}

/** Seconds from R until `fraction` of the waiting orders were done, from (t, done) samples at R and after. */
const milestones = (points: ReadonlyArray<{ readonly t: number; readonly done: number }>, doneAtR: number, total: number) => {
  const waiting = total - doneAtR
  const out: Record<string, number | null> = {}
  for (const [label, fraction] of [["25%", 0.25], ["50%", 0.5], ["75%", 0.75], ["100%", 1]] as const) {
    const need = doneAtR + Math.ceil(waiting * fraction)
    out[label] = points.find((p) => p.done >= need)?.t ?? null
  }
  return out
}

/** Fresh simulators and a fresh daemon for one run, both stopped afterwards. */
const withSimsAndDaemon = async <A>(
  scenario: OutageScenario,
  run: (sims: Awaited<ReturnType<typeof startSims>>, daemon: Awaited<ReturnType<typeof startDaemon>>) => Promise<A>
): Promise<A> => {
  const sims = await startSims({ podLimitLifted: false, shopifyBucketLifted: false })
  try {
    const daemon = await startDaemon({
      podUrl: sims.podUrl,
      shopifyUrl: sims.shopifyUrl,
      database: scenario.database,
      podLimitLifted: false,
      podWebhooks: false,
      schedules: SCHEDULES,
      mappingSource: scenario.mappingSource,
      log: { logger: scenario.log.logger, level: "info" }
    })
    try {
      return await run(sims, daemon)
    } finally {
      scenario.log.mark("after", "the daemon stops")
      await daemon.stop()
    }
  } finally {
    await sims.stop()
  }
}

/**
 * A daemon writes the previous day's report a minute after its layers are up (REPORT_CATCH_UP_MS
 * from launch is not always enough: start-up takes seconds), reading the POD service and the
 * store: waits until it has logged the report's line (or its failure), so that the outage does
 * not meet it.
 */
const afterCatchUpReport = async (scenario: OutageScenario): Promise<OutageResult["catchUpReport"]> => {
  if (!scenario.afterCatchUpReport) return "not waited for"
  const over = await scenario.log.logged(/^report \d{4}-\d{2}-\d{2}|^the catch-up report failed/, 180_000)
  return over ? "over before the outage" : "not seen within 180 s"
}

const legacyIdOf = (gid: string) => gid.slice(gid.lastIndexOf("/") + 1)

export const runPodOutage = (scenario: OutageScenario): Promise<OutageResult> =>
  withSimsAndDaemon(scenario, async (sims, daemon) => {
    const n = scenario.orders
    const catchUpReport = await afterCatchUpReport(scenario)
    await podQuiet(sims.podUrl, 1_500, 60_000)
    const references: Array<string> = []
    const draftedCount = async () => {
      const drafts = (await podSnapshot(sims.podUrl)).draftsByReferenceId
      return references.filter((r) => (drafts[r] ?? 0) > 0).length
    }

    const podAtStart = await podSnapshot(sims.podUrl)
    const shopAtStart = await shopSnapshot(sims.shopifyUrl)
    await post(`${sims.podUrl}/__sim/faults`, POD_OUTAGE_FAULT)
    const t0 = performance.now()
    scenario.log.mark("outage", "POD outage begins: every POD API route answers 503")
    const recovery: { at?: number } = {}
    const samples = sampler(daemon.url, draftedCount, () => recovery.at, t0 + scenario.outageSeconds * 1000)
    // The orders appear one by one, evenly over the outage (the last half a gap before its end).
    const gapMs = (scenario.outageSeconds * 1000) / n
    for (let i = 0; i < n; i++) {
      await until(t0 + (i + 0.5) * gapMs)
      const order = await post(`${sims.shopifyUrl}/__sim/orders`, orderTemplate(MAPPED_SKUS[i % MAPPED_SKUS.length]!, i))
      references.push(`${daemon.storeKey}:${order.legacyResourceId}`)
    }
    await until(t0 + scenario.outageSeconds * 1000)

    const readyzBeforeRecovery = await readyz(daemon.url)
    const statusBeforeRecovery = await statusSummary(daemon.url)
    const statesAtRecovery = await statusCounts(daemon.url)
    const podAtR = await podSnapshot(sims.podUrl)
    const shopAtR = await shopSnapshot(sims.shopifyUrl)
    await del(`${sims.podUrl}/__sim/faults`)
    const r = performance.now()
    recovery.at = r
    scenario.log.mark("drain", "POD recovery: faults cleared")
    const doneAtR = references.filter((ref) => (podAtR.draftsByReferenceId[ref] ?? 0) > 0).length

    // The drain: the POD simulator's drafts every 250 ms, the daemon's counts every second.
    const points: Array<{ t: number; done: number }> = [{ t: 0, done: doneAtR }]
    let drainSeconds: number | null = null
    let daemonView: number | null = null
    let lastStatusAt = 0
    let podAtDrained: PodSnapshot | undefined
    for (;;) {
      const snapshot = await podSnapshot(sims.podUrl)
      const t = (performance.now() - r) / 1000
      const done = references.filter((ref) => (snapshot.draftsByReferenceId[ref] ?? 0) > 0).length
      points.push({ t: round(t, 2), done })
      if (drainSeconds === null && done >= n) {
        drainSeconds = round(t, 2)
        podAtDrained = snapshot
      }
      if (daemonView === null && performance.now() - lastStatusAt >= 1_000) {
        lastStatusAt = performance.now()
        // A /status the database could not answer (503) counts as not yet.
        const states = await statusCounts(daemon.url).catch((): Record<string, number> => ({}))
        if (sumOf(states) >= n && sumOf(states, PRE_DRAFT) === 0) daemonView = round((performance.now() - r) / 1000, 2)
      }
      if (drainSeconds !== null && daemonView !== null) break
      if (performance.now() - r > scenario.drainTimeoutMs) break
      await sleep(250)
    }
    scenario.log.mark("after", drainSeconds === null ? "drain timed out" : "every order drafted")
    const podAtEnd = podAtDrained ?? (await podSnapshot(sims.podUrl))
    const shopAtEnd = await shopSnapshot(sims.shopifyUrl)
    // A late duplicate would come within seconds of the drain: look again after a pause.
    await sleep(3_000)
    await samples.stop()
    const finalDrafts = (await podSnapshot(sims.podUrl)).draftsByReferenceId
    const perReference = references.map((ref) => finalDrafts[ref] ?? 0)
    const left = perReference.filter((c) => c === 0).length
    return {
      name: scenario.name,
      kind: "pod" as const,
      database: scenario.database.kind,
      orders: n,
      outageSeconds: scenario.outageSeconds,
      schedules: SCHEDULES,
      catchUpReport,
      fault: POD_OUTAGE_FAULT,
      waitingAtRecovery: n - doneAtR,
      statesAtRecovery,
      drained: drainSeconds !== null,
      drainSeconds,
      drainSecondsDaemonView: daemonView,
      leftAtEnd: drainSeconds === null ? n - (points[points.length - 1]?.done ?? 0) : 0,
      drainMilestones: milestones(points, doneAtR, n),
      requests: {
        pod: { outage: podBetween(podAtStart, podAtR), drain: podBetween(podAtR, podAtEnd) },
        shopify: {
          outage: { total: shopAtR.requests - shopAtStart.requests, faultsInjected: 0 },
          drain: {
            total: shopAtEnd.requests - shopAtR.requests,
            throttled: shopAtEnd.throttled - shopAtR.throttled,
            operations: deltas(shopAtR.operations, shopAtEnd.operations)
          }
        }
      },
      duplicates: perReference.filter((c) => c > 1).length,
      draftsPerReferenceId: { ...histogram(perReference), ...(left > 0 ? { "0": left } : {}) },
      fulfillmentsPerOrder: null,
      readyzBeforeRecovery,
      statusBeforeRecovery,
      timeline: samples.timeline,
      logs: scenario.log.summary()
    }
  })

export const runStoreOutage = (scenario: OutageScenario): Promise<OutageResult> =>
  withSimsAndDaemon(scenario, async (sims, daemon) => {
    const n = scenario.orders
    // Before the outage, the normal way: the orders appear, are drafted, and checked out (paid).
    const legacyIds: Array<string> = []
    const perSku = Math.ceil(n / MAPPED_SKUS.length)
    for (const [i, sku] of MAPPED_SKUS.entries()) {
      const count = Math.min(perSku, n - legacyIds.length)
      if (count <= 0) break
      const made = await post(`${sims.shopifyUrl}/__sim/orders/bulk`, { count, template: orderTemplate(sku, i) })
      legacyIds.push(...(made.ids as Array<string>).map(legacyIdOf))
    }
    const references = legacyIds.map((id) => `${daemon.storeKey}:${id}`)
    const setupDeadline = performance.now() + 180_000
    const waitFor = async (what: string, check: () => Promise<boolean>) => {
      while (!(await check())) {
        if (performance.now() > setupDeadline) throw new Error(`store outage setup: ${what} did not happen within 180 s`)
        await sleep(500)
      }
    }
    await waitFor("every order drafted", async () => {
      const drafts = (await podSnapshot(sims.podUrl)).draftsByReferenceId
      return references.every((ref) => (drafts[ref] ?? 0) > 0)
    })
    const podOrderIds = (await post(`${sims.podUrl}/__sim/checkout-all`, { paid: true })).order_ids as Array<string>
    if (podOrderIds.length !== n) throw new Error(`store outage setup: checked out ${podOrderIds.length} drafts, expected ${n}`)
    await waitFor("every order checked out in the daemon", async () => ((await statusCounts(daemon.url))["checked_out"] ?? 0) >= n)
    const catchUpReport = await afterCatchUpReport(scenario)

    const fulfilledCount = async () => {
      const byOrder = (await shopSnapshot(sims.shopifyUrl)).fulfillmentsByOrder
      return legacyIds.filter((id) => (byOrder[id] ?? 0) > 0).length
    }
    const podAtStart = await podSnapshot(sims.podUrl)
    const shopAtStart = await shopSnapshot(sims.shopifyUrl)
    await post(`${sims.shopifyUrl}/__sim/faults`, STORE_OUTAGE_FAULT)
    const t0 = performance.now()
    scenario.log.mark("outage", "store outage begins: every Shopify API request answers 503")
    const recovery: { at?: number } = {}
    const samples = sampler(daemon.url, fulfilledCount, () => recovery.at, t0 + scenario.outageSeconds * 1000)
    // The POD service ships the orders one by one, evenly over the outage.
    const gapMs = (scenario.outageSeconds * 1000) / n
    for (const [i, id] of podOrderIds.entries()) {
      await until(t0 + (i + 0.5) * gapMs)
      await post(`${sims.podUrl}/__sim/orders/${encodeURIComponent(id)}/ship`, {})
    }
    await until(t0 + scenario.outageSeconds * 1000)

    const readyzBeforeRecovery = await readyz(daemon.url)
    const statusBeforeRecovery = await statusSummary(daemon.url)
    const statesAtRecovery = await statusCounts(daemon.url)
    const podAtR = await podSnapshot(sims.podUrl)
    const shopAtR = await shopSnapshot(sims.shopifyUrl)
    await del(`${sims.shopifyUrl}/__sim/faults`)
    const r = performance.now()
    recovery.at = r
    scenario.log.mark("drain", "store recovery: faults cleared")
    const doneAtR = legacyIds.filter((id) => (shopAtR.fulfillmentsByOrder[id] ?? 0) > 0).length

    const points: Array<{ t: number; done: number }> = [{ t: 0, done: doneAtR }]
    let drainSeconds: number | null = null
    let daemonView: number | null = null
    let lastStatusAt = 0
    let shopAtDrained: ShopSnapshot | undefined
    for (;;) {
      const snapshot = await shopSnapshot(sims.shopifyUrl)
      const t = (performance.now() - r) / 1000
      const done = legacyIds.filter((id) => (snapshot.fulfillmentsByOrder[id] ?? 0) > 0).length
      points.push({ t: round(t, 2), done })
      if (drainSeconds === null && done >= n) {
        drainSeconds = round(t, 2)
        shopAtDrained = snapshot
      }
      if (daemonView === null && performance.now() - lastStatusAt >= 1_000) {
        lastStatusAt = performance.now()
        const states = await statusCounts(daemon.url).catch((): Record<string, number> => ({}))
        if ((states["fulfilled"] ?? 0) >= n) daemonView = round((performance.now() - r) / 1000, 2)
      }
      if (drainSeconds !== null && daemonView !== null) break
      if (performance.now() - r > scenario.drainTimeoutMs) break
      await sleep(250)
    }
    scenario.log.mark("after", drainSeconds === null ? "drain timed out" : "every order fulfilled in the store")
    const shopAtEnd = shopAtDrained ?? (await shopSnapshot(sims.shopifyUrl))
    const podAtEnd = await podSnapshot(sims.podUrl)
    await sleep(3_000)
    await samples.stop()
    const final = await shopSnapshot(sims.shopifyUrl)
    const perOrder = legacyIds.map((id) => final.fulfillmentsByOrder[id] ?? 0)
    const drafts = references.map((ref) => podAtEnd.draftsByReferenceId[ref] ?? 0)
    return {
      name: scenario.name,
      kind: "store" as const,
      database: scenario.database.kind,
      orders: n,
      outageSeconds: scenario.outageSeconds,
      schedules: SCHEDULES,
      catchUpReport,
      fault: STORE_OUTAGE_FAULT,
      waitingAtRecovery: n - doneAtR,
      statesAtRecovery,
      drained: drainSeconds !== null,
      drainSeconds,
      drainSecondsDaemonView: daemonView,
      leftAtEnd: drainSeconds === null ? n - (points[points.length - 1]?.done ?? 0) : 0,
      drainMilestones: milestones(points, doneAtR, n),
      requests: {
        pod: { outage: podBetween(podAtStart, podAtR), drain: podBetween(podAtR, podAtEnd) },
        shopify: {
          outage: {
            total: shopAtR.requests - shopAtStart.requests,
            faultsInjected: sumOf(deltas(shopAtStart.faultsInjected, shopAtR.faultsInjected))
          },
          drain: {
            total: shopAtEnd.requests - shopAtR.requests,
            throttled: shopAtEnd.throttled - shopAtR.throttled,
            operations: deltas(shopAtR.operations, shopAtEnd.operations)
          }
        }
      },
      duplicates: perOrder.filter((c) => c > 1).length + drafts.filter((c) => c > 1).length,
      draftsPerReferenceId: histogram(drafts),
      fulfillmentsPerOrder: histogram(perOrder),
      readyzBeforeRecovery,
      statusBeforeRecovery,
      timeline: samples.timeline,
      logs: scenario.log.summary()
    }
  })
