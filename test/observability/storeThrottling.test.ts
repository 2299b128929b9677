/**
 * Store throttling made visible: every refusal counted for /metrics, one log line per episode
 * (the first refusal after a quiet minute), on the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, TestClock } from "effect"
import { MetricsRegistry } from "../../src/observability/MetricsRegistry.js"
import { StoreApiMetrics } from "../../src/observability/StoreApiMetrics.js"
import { QUIET_MS, reportStoreThrottling, startsEpisode } from "../../src/observability/StoreThrottling.js"

const capturedLogs = () => {
  const lines: Array<{ readonly message: string; readonly annotations: Record<string, unknown> }> = []
  const layer = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ message, annotations }) =>
      void lines.push({ message: [message].flat().join(" "), annotations: Object.fromEntries(annotations) })
    )
  )
  return { lines, layer }
}

const scrape = Effect.flatMap(MetricsRegistry, (m) => m.scrape)
const metricsLive = Layer.provideMerge(StoreApiMetrics.Default, MetricsRegistry.Default)
const throttled = { said: "THROTTLED: a query of 622 points, 100 of 1000 available, restoring 50/s", waitMs: 10_440 }

describe("store throttling", () => {
  it("starts an episode with the first refusal, and again only after a quiet minute", () => {
    expect(startsEpisode(null, 0)).toBe(true)
    expect(startsEpisode(0, QUIET_MS - 1)).toBe(false)
    expect(startsEpisode(0, QUIET_MS)).toBe(true)
  })

  it.effect("counts every refusal per store and logs one line per episode, saying what the store said and the wait", () => {
    const logs = capturedLogs()
    return Effect.gen(function*() {
      const shopify = yield* reportStoreThrottling("acme-shopify", "shopify")
      const woo = yield* reportStoreThrottling("acme-woo", "woocommerce")
      // An episode: refusals 10 s apart for 50 s.
      for (let i = 0; i < 6; i++) {
        yield* shopify(throttled)
        yield* TestClock.adjust(10_000)
      }
      yield* woo({ said: "HTTP 429, Retry-After: 7", waitMs: 7000 })
      // 59 s after the last one: the same episode. Then a quiet minute, and a new one.
      yield* TestClock.adjust(49_000)
      yield* shopify(throttled)
      yield* TestClock.adjust(QUIET_MS)
      yield* shopify({ ...throttled, waitMs: 2000 })

      const episodes = logs.lines.filter((line) => line.message.includes("is throttling podsync"))
      expect(episodes.map((line) => line.annotations)).toEqual([
        { store: "acme-shopify", platform: "shopify", said: throttled.said, waitMs: 10_440 },
        { store: "acme-woo", platform: "woocommerce", said: "HTTP 429, Retry-After: 7", waitMs: 7000 },
        { store: "acme-shopify", platform: "shopify", said: throttled.said, waitMs: 2000 }
      ])
      expect(episodes[0]!.message).toBe(
        `store acme-shopify (shopify) is throttling podsync: ${throttled.said}; waiting 10440 ms. ` +
          "Further refusals are counted in podsync_store_throttled_total and logged again after a quiet minute."
      )
      const text = yield* scrape
      expect(text).toContain(`podsync_store_throttled_total{store="acme-shopify",platform="shopify"} 8`)
      expect(text).toContain(`podsync_store_throttled_total{store="acme-woo",platform="woocommerce"} 1`)
    }).pipe(Effect.provide(Layer.merge(metricsLive, logs.layer)))
  })

  it.effect("still logs an episode where no metrics are provided (one-off commands)", () => {
    const logs = capturedLogs()
    return Effect.gen(function*() {
      const report = yield* reportStoreThrottling("acme-etsy", "etsy")
      yield* report({ said: "HTTP 429: Too many requests", waitMs: 1000 })
      yield* report({ said: "HTTP 429: Too many requests", waitMs: 2000 })
      expect(logs.lines.filter((line) => line.message.includes("is throttling podsync"))).toHaveLength(1)
    }).pipe(Effect.provide(logs.layer))
  })
})
