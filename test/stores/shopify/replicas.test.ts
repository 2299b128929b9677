/**
 * Issue #21: replicas of the daemon on one database spend one Shopify cost bucket. Two
 * connectors (as two replicas have, each with its own HTTP client and, on PostgreSQL, its own
 * connection pool) read one simulated shop in a burst, in real time, against the simulator's
 * real cost bucket. Sharing the bucket through the database keeps THROTTLED answers at 1 % or
 * under; each pacing itself alone, they spend the same points and are throttled.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Clock, Effect, Layer, Logger, Option, Stream } from "effect"
import { Db } from "../../../src/db/Db.js"
import type { StoreBuckets } from "../../../src/domain/StoreBucket.js"
import { MetricsRegistry } from "../../../src/observability/MetricsRegistry.js"
import { StoreApiMetrics } from "../../../src/observability/StoreApiMetrics.js"
import { reportStoreThrottling } from "../../../src/observability/StoreThrottling.js"
import { makeSqlStoreBuckets } from "../../../src/repos/SqlStoreBucket.js"
import type { RunningShopifySimulator } from "../../../src/simulator/shopify/index.js"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"
import { otherReplicaDb, testDatabases } from "../../support/database.js"
import { admin, connectTo, type SimStats, startSimulator, stats } from "./harness.js"

// Shopify's Standard bucket, refilling fast so that the test takes seconds: the burst asks about
// 6,200 points, 12 s of refill when shared. At 1,000 points a second (twice this) a loaded machine
// spread the separate replicas' requests out until only 1 of 93 was throttled; at 500 the two must
// send half as fast to stay within it.
const bucket = { maximumAvailable: 1000, restoreRate: 500 }
const ORDERS = 30
// Each replica pulls the shop (pages of 10 orders: 622 points asked each) while its fulfil stage
// reads orders back, several at once (62 points each).
const PAGE_SIZE = 10
const READS_PER_REPLICA = 20
const READ_CONCURRENCY = 8

interface Burst {
  /** Pages and reads the replicas made (each one GraphQL query when not throttled). */
  readonly calls: number
  readonly throttled: number
  readonly requests: number
}

/** Each replica reads once (so both have learnt the bucket), then both pull and read at once. */
const burst = (sim: RunningShopifySimulator, replicas: ReadonlyArray<StoreConnector>, ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* Effect.forEach(replicas, (connector) => connector.getOrder(ids[0]!), { discard: true })
    const before = yield* stats(sim)
    const work = yield* Effect.forEach(
      replicas,
      (connector, r) =>
        Effect.all([
          Effect.map(Stream.runCollect(connector.pull(null)), Chunk.toReadonlyArray),
          Effect.forEach(
            Array.from({ length: READS_PER_REPLICA }, (_, i) => ids[(i + r) % ids.length]!),
            (id) => connector.getOrder(id),
            { concurrency: READ_CONCURRENCY }
          )
        ], { concurrency: "unbounded" }),
      { concurrency: "unbounded" }
    )
    for (const [pages, reads] of work) {
      expect(pages.flatMap((page) => page.orders)).toHaveLength(ORDERS)
      expect(reads.every(Option.isSome)).toBe(true)
    }
    const after: SimStats = yield* stats(sim)
    return {
      calls: work.reduce((sum, [pages, reads]) => sum + pages.length + reads.length, 0),
      throttled: after.throttled - before.throttled,
      requests: after.requests - before.requests
    } satisfies Burst
  })

const seededShop = Effect.gen(function*() {
  const sim = yield* startSimulator({ bucket })
  const { ids } = yield* admin<{ ids: ReadonlyArray<string> }>(sim, "POST", "orders/bulk", { count: ORDERS })
  // gid://shopify/Order/1001 → 1001, the id getOrder takes.
  return { sim, ids: ids.map((gid) => gid.split("/").pop()!) }
})

/** Log lines of the test, as the daemon's logger would write them. */
const capturedLogs = () => {
  const lines: Array<string> = []
  const layer = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void lines.push([message].flat().join(" "))))
  return { lines, layer }
}

/** Both replicas' throttling reported as StoresLive reports it, on one metrics registry. */
const reporters = Effect.all([reportStoreThrottling("acme-shopify", "shopify"), reportStoreThrottling("acme-shopify", "shopify")])

const throttledCounter = Effect.flatMap(MetricsRegistry, (metrics) =>
  Effect.promise(async () => {
    const metric = await metrics.registry.getSingleMetric("podsync_store_throttled_total")?.get()
    return metric?.values.reduce((sum, v) => sum + v.value, 0) ?? 0
  }))

const metricsLayer = StoreApiMetrics.Default.pipe(Layer.provideMerge(MetricsRegistry.Default))

// In real time: the simulator's bucket and the database's clock both run on it.
const live = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withClock(effect, Clock.make())

const figures: Record<string, Burst> = {}

describe("two replicas reading one Shopify store at once", () => {
  it.scopedLive("pacing alone, each spends the points the other spends, and both are throttled", () => {
    const logs = capturedLogs()
    return Effect.gen(function*() {
      const [first, second] = yield* reporters
      // About 8 % on an idle machine (13–17 % before answers discounted in-flight takes); on a loaded
      // one the requests spread out and collide less (1.1 % seen), and on a starved one a whole burst
      // once spread out enough to collide not at all (0 of 46). So the control asserts only that pacing
      // alone is throttled, in one of up to three bursts (each on a new shop, with a full bucket): what
      // it shows is that the burst can overdraw a bucket, which the shared tests below then must not.
      let result: Burst | undefined
      for (let attempt = 1; attempt <= 3 && (result === undefined || result.throttled === 0); attempt++) {
        const { sim, ids } = yield* seededShop
        const replicas = [
          yield* connectTo(sim, { pageSize: PAGE_SIZE, onThrottled: first! }),
          yield* connectTo(sim, { pageSize: PAGE_SIZE, onThrottled: second! })
        ]
        result = yield* burst(sim, replicas, ids)
        console.log(
          `separate buckets, burst ${attempt}: ${result.throttled} THROTTLED of ${result.requests} requests (${result.calls} pages and reads)`
        )
      }
      if (result === undefined) return yield* Effect.dieMessage("no burst ran")
      figures["separate"] = result
      expect(result.throttled).toBeGreaterThan(0)
      // Every THROTTLED answer counted once for /metrics, and one log line per replica for the episode.
      expect(yield* throttledCounter).toBe(result.throttled)
      const episodes = logs.lines.filter((line) => line.includes("is throttling podsync"))
      expect(episodes.length).toBeGreaterThanOrEqual(1)
      expect(episodes.length).toBeLessThanOrEqual(2)
      expect(episodes[0]).toMatch(/store acme-shopify \(shopify\) is throttling podsync: THROTTLED: a query of \d+ points/)
    }).pipe(Effect.provide(Layer.merge(metricsLayer, logs.layer)))
  }, 120_000)

  for (const database of testDatabases()) {
    it.layer(database.layer)((it) => {
      it.scoped(`sharing the bucket in ${database.name}, they stay within it (THROTTLED at most 1 %)`, () =>
        live(Effect.gen(function*() {
          const { sim, ids } = yield* seededShop
          const pools = [yield* Db, yield* otherReplicaDb(database)]
          const buckets: ReadonlyArray<StoreBuckets> = pools.map((db) => makeSqlStoreBuckets(db.kysely))
          const [first, second] = yield* reporters
          const replicas = [
            yield* connectTo(sim, { pageSize: PAGE_SIZE, buckets: buckets[0]!, onThrottled: first! }),
            yield* connectTo(sim, { pageSize: PAGE_SIZE, buckets: buckets[1]!, onThrottled: second! })
          ]
          const result = yield* burst(sim, replicas, ids)
          figures[database.name] = result
          expect(result.throttled / result.requests).toBeLessThanOrEqual(0.01)
          expect(yield* throttledCounter).toBe(result.throttled)
          // The contrast: the same burst without sharing was throttled.
          if (figures["separate"] !== undefined) expect(figures["separate"].throttled).toBeGreaterThan(result.throttled)
          console.log(
            `shared bucket in ${database.name}: ${result.throttled} THROTTLED of ${result.requests} requests (${result.calls} pages and reads)`
          )
        })).pipe(Effect.provide(metricsLayer)), 60_000)
    })
  }
})
