// Store → draft latency: orders appear in the Shopify simulator one at a time at a steady
// (jittered) pace; each one's latency is from just before its creation request until the draft's
// created_at at the POD simulator. The daemon learns of new orders either by polling (the pull
// schedule) or from the store's webhooks (orders/create, orders/updated, orders/cancelled
// subscribed to its /webhooks/<store key>, the pull schedule then rare). The POD simulator keeps
// its real limit (100 requests / 10 s); the Shopify simulator its Standard cost bucket (2,000
// points, 100 a second) unless `shopifyBucketLifted`.
import { type Database, REPORT_CATCH_UP_MS, startDaemon } from "./pipeline-daemon.js"
import { orderTemplate, MAPPED_SKUS } from "./pipeline-lifecycle.js"
import { getJson, percentile, podQuiet, podStats, post, round, shopifyStats, sleep } from "./pipeline-measure.js"
import { startSims } from "./pipeline-sims.js"

export interface LatencyScenario {
  readonly name: string
  readonly database: Database
  readonly storeWebhooks: boolean
  readonly shopifyBucketLifted: boolean
  readonly orders: number
  /** Mean time between two orders; each gap is drawn uniformly from ±40 % of it, so arrivals do not lock to the schedule. */
  readonly paceMs: number
  readonly schedules: { readonly pull: string; readonly reconcile: string }
  readonly timeoutMs: number
  readonly mappingSource: string
  /** Wait for the daemon's one-off catch-up report before the orders come, so that it does not compete with them. */
  readonly afterCatchUpReport: boolean
}

export interface LatencyResult {
  readonly name: string
  readonly database: Database["kind"]
  readonly storeWebhooks: boolean
  readonly shopifyBucketLifted: boolean
  readonly orders: number
  readonly drafted: number
  readonly paceMs: number
  readonly afterCatchUpReport: boolean
  readonly schedules: LatencyScenario["schedules"]
  readonly latencyMs:
    | { readonly p50: number; readonly p95: number; readonly min: number; readonly max: number; readonly mean: number }
    | null
  /** Mean latency of each fifth of the orders in order of arrival: growth shows a backlog building. */
  readonly meanMsByArrivalFifth: ReadonlyArray<number>
  readonly rejected429: number
  /** Shopify GraphQL requests and query cost over the run, and how many were throttled. */
  readonly shopify: { readonly requests: number; readonly costSpent: number; readonly throttled: number }
}

const SHOPIFY_TOPICS = ["orders/create", "orders/updated", "orders/cancelled"]
const POD_AUTH = { "X-Gearment-Client-Key": "sim-client-key", "X-Gearment-Client-Secret": "sim-client-secret" }

/** reference_id → created_at (ms) of every draft at the POD simulator, read through its API. */
const draftTimes = async (podUrl: string): Promise<Map<string, number>> => {
  const out = new Map<string, number>()
  for (let page = 1;; page++) {
    const body = await getJson(`${podUrl}/api/v3/orders/draft?paging.limit=100&paging.page=${page}`, POD_AUTH)
    const drafts = body.data as Array<{ reference_id: string; created_at: string }>
    for (const draft of drafts) {
      const at = Date.parse(draft.created_at)
      const known = out.get(draft.reference_id)
      if (known === undefined || at < known) out.set(draft.reference_id, at)
    }
    if (drafts.length < 100 || page >= Number(body.paging?.total_page ?? page)) return out
  }
}

export const runLatency = async (scenario: LatencyScenario): Promise<LatencyResult> => {
  const sims = await startSims({ podLimitLifted: false, shopifyBucketLifted: scenario.shopifyBucketLifted })
  try {
    const daemon = await startDaemon({
      podUrl: sims.podUrl,
      shopifyUrl: sims.shopifyUrl,
      database: scenario.database,
      podLimitLifted: false,
      podWebhooks: false,
      schedules: scenario.schedules,
      mappingSource: scenario.mappingSource
    })
    try {
      if (scenario.storeWebhooks) {
        for (const topic of SHOPIFY_TOPICS) {
          await post(`${sims.shopifyUrl}/__sim/webhooks/subscribe`, { topic, address: `${daemon.url}/webhooks/${daemon.storeKey}` })
        }
      }
      if (scenario.afterCatchUpReport) await sleep(Math.max(0, daemon.startedAt + REPORT_CATCH_UP_MS - Date.now()))
      await podQuiet(sims.podUrl, 1_500, 60_000)
      const createdAt = new Map<string, number>()
      for (let i = 0; i < scenario.orders; i++) {
        const sentAt = Date.now()
        const order = await post(`${sims.shopifyUrl}/__sim/orders`, orderTemplate(MAPPED_SKUS[i % MAPPED_SKUS.length]!, i))
        createdAt.set(`${daemon.storeKey}:${order.legacyResourceId}`, sentAt)
        await sleep(scenario.paceMs * (0.6 + 0.8 * Math.random()))
      }
      const deadline = Date.now() + scenario.timeoutMs
      while ((await podStats(sims.podUrl)).drafts < scenario.orders && Date.now() < deadline) await sleep(250)
      const drafts = await draftTimes(sims.podUrl)
      const latencies: Array<number> = []
      for (const [reference, at] of createdAt) {
        const draftAt = drafts.get(reference)
        if (draftAt !== undefined) latencies.push(draftAt - at)
      }
      const fifths = [0, 1, 2, 3, 4].map((k) =>
        latencies.slice(Math.floor((k * latencies.length) / 5), Math.floor(((k + 1) * latencies.length) / 5))
      )
        .filter((part) => part.length > 0)
        .map((part) => Math.round(part.reduce((a, b) => a + b, 0) / part.length))
      const stats = await podStats(sims.podUrl)
      const shop = await shopifyStats(sims.shopifyUrl)
      return {
        name: scenario.name,
        database: scenario.database.kind,
        storeWebhooks: scenario.storeWebhooks,
        shopifyBucketLifted: scenario.shopifyBucketLifted,
        orders: scenario.orders,
        drafted: latencies.length,
        paceMs: scenario.paceMs,
        afterCatchUpReport: scenario.afterCatchUpReport,
        schedules: scenario.schedules,
        latencyMs: latencies.length === 0 ? null : {
          p50: percentile(latencies, 50),
          p95: percentile(latencies, 95),
          min: Math.min(...latencies),
          max: Math.max(...latencies),
          mean: round(latencies.reduce((a, b) => a + b, 0) / latencies.length, 0)
        },
        meanMsByArrivalFifth: fifths,
        rejected429: stats.rejected429,
        shopify: { requests: shop.requests, costSpent: shop.costSpent, throttled: shop.throttled }
      }
    } finally {
      await daemon.stop()
    }
  } finally {
    await sims.stop()
  }
}
