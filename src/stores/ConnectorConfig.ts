/**
 * What every platform's connector config holds besides its credentials: the
 * store key, the webhook secrets of a rotation, and the pull's tuning. Each
 * platform's config extends it and states its own defaults and limits.
 */
import type { Duration, Effect, Redacted } from "effect"
import type { StoreBuckets } from "../domain/StoreBucket.js"
import type { PullSettings } from "./OverlapWalk.js"

export interface WebhookSecretsConfig {
  /** The secret that signs the store's webhooks. */
  readonly webhookSecret: Redacted.Redacted<string>
  /** The secret before a rotation, accepted alongside the current one while the seller switches over. */
  readonly previousWebhookSecret?: Redacted.Redacted<string>
}

export interface ConnectorTuning {
  readonly storeKey: string
  /** Orders per page of a pull (each platform's default and limits are beside its config). */
  readonly pageSize?: number
  /** How far before the watermark a walk re-reads, for late commits, index lag and clock skew. */
  readonly overlapSeconds?: number
  /** Per-request timeout (default 30 s); a timed-out write is ambiguous. */
  readonly requestTimeout?: Duration.DurationInput
}

/** The store refused a request for its rate limit (THROTTLED, 429, 503): what it said, and how long we wait. */
export interface StoreThrottle {
  readonly said: string
  readonly waitMs: number
}

/**
 * Where a connector keeps its API budget, and whom it tells when the store throttles it. Without
 * `buckets`, the budget is this connector's alone, in memory; replicas give every connector of a
 * credential the same shared buckets.
 */
export interface StoreBudgetConfig {
  readonly buckets?: StoreBuckets
  readonly onThrottled?: (throttle: StoreThrottle) => Effect.Effect<void>
}

export const DEFAULT_REQUEST_TIMEOUT = "30 seconds"

/** A platform's page sizes and overlap. */
export interface PullLimits {
  readonly defaultPageSize: number
  readonly minPageSize?: number
  readonly maxPageSize?: number
  readonly defaultOverlapSeconds: number
}

/** The pull's settings from a config: its page size (whole, within the platform's limits) and overlap, or the defaults. */
export const pullSettingsOf = (config: ConnectorTuning, limits: PullLimits): PullSettings => ({
  storeKey: config.storeKey,
  pageSize: Math.min(
    limits.maxPageSize ?? Number.POSITIVE_INFINITY,
    Math.max(limits.minPageSize ?? 1, Math.floor(config.pageSize ?? limits.defaultPageSize))
  ),
  overlapSeconds: config.overlapSeconds ?? limits.defaultOverlapSeconds
})
