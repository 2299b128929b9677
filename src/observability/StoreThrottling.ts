/**
 * Store throttling made visible. Every refusal a store gives for its rate limit (Shopify's
 * THROTTLED, a 429, WooCommerce's 503) is counted for /metrics as
 * `podsync_store_throttled_total{store,platform}`, and each episode is logged once: the first
 * refusal after a quiet minute, with what the store said and how long podsync waits, rather than
 * a line per refused request. Connectors report through `onThrottled` in their config.
 */
import { Clock, Effect, Option, Ref } from "effect"
import type { StoreThrottle } from "../stores/ConnectorConfig.js"
import { StoreApiMetrics } from "./StoreApiMetrics.js"

/** A refusal after this long without one starts a new episode. */
export const QUIET_MS = 60_000

/** Whether a refusal at `nowMillis` starts an episode: the first, or the first after a quiet minute. */
export const startsEpisode = (lastMillis: number | null, nowMillis: number): boolean =>
  lastMillis === null || nowMillis - lastMillis >= QUIET_MS

/** One store's `onThrottled`: counted when the metrics are provided (the daemon), logged once per episode always. */
export const reportStoreThrottling = (storeKey: string, platform: string) =>
  Effect.gen(function*() {
    const metrics = yield* Effect.serviceOption(StoreApiMetrics)
    const lastAt = yield* Ref.make<number | null>(null)
    return (throttle: StoreThrottle): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (Option.isSome(metrics)) yield* metrics.value.throttled(storeKey, platform)
        const now = yield* Clock.currentTimeMillis
        if (!startsEpisode(yield* Ref.getAndSet(lastAt, now), now)) return
        yield* Effect.logWarning(
          `store ${storeKey} (${platform}) is throttling podsync: ${throttle.said}; waiting ${throttle.waitMs} ms. ` +
            "Further refusals are counted in podsync_store_throttled_total and logged again after a quiet minute."
        ).pipe(Effect.annotateLogs({ store: storeKey, platform, said: throttle.said, waitMs: throttle.waitMs }))
      })
  })
