/**
 * What every platform's connector config holds besides its credentials: the
 * store key, the webhook secrets of a rotation, and the pull's tuning. Each
 * platform's config extends it and states its own defaults and limits.
 */
import type { Duration, Redacted } from "effect"
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
