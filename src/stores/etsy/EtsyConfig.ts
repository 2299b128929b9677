/**
 * Plain values an Etsy connector is built from: the `stores[].etsy` block of
 * the config (shopId, keystring, sharedSecret, refreshToken, baseUrl) plus
 * optional settings with sensible defaults.
 */
import type { Duration, Effect, Redacted } from "effect"

/**
 * Which receipts a pull walks. `paidUnshipped` (default) asks Etsy for
 * `was_paid=true&was_shipped=false`, the work queue: a paid receipt cancelled
 * before it ships keeps `is_paid` and so still comes through as cancelled.
 * `all` walks every change (unpaid, shipped and delivered receipts too).
 */
export type EtsyReceiptFilter = "paidUnshipped" | "all"

export interface EtsyConnectorConfig {
  readonly storeKey: string
  /** Numeric Etsy shop id. */
  readonly shopId: string
  /** The app's keystring (also the OAuth client_id). */
  readonly keystring: Redacted.Redacted<string>
  /** Sent with the keystring as `x-api-key: <keystring>:<shared_secret>` (required since 2026-02-09). */
  readonly sharedSecret: Redacted.Redacted<string>
  /** The seller's OAuth refresh token; access tokens are obtained (and renewed) from it. */
  readonly refreshToken: Redacted.Redacted<string>
  /** Default `https://api.etsy.com`; simulators and proxies set it. */
  readonly baseUrl?: string
  /** The webhook endpoint secret (`whsec_…`); only commercial apps get webhooks. Without it webhooks are off. */
  readonly webhookSecret?: Redacted.Redacted<string>
  /** The endpoint secret before a rotation, accepted alongside the current one. */
  readonly previousWebhookSecret?: Redacted.Redacted<string>
  readonly receiptFilter?: EtsyReceiptFilter
  /** Receipts per page of a pull, 2–100 (default 100: each page costs one request of the daily quota). */
  readonly pageSize?: number
  /** How far before the watermark a walk re-reads (default 300 s). */
  readonly overlapSeconds?: number
  /** Per-request timeout (default 30 s); a timed-out write is ambiguous. */
  readonly requestTimeout?: Duration.DurationInput
  /** Requests of the daily quota a pull leaves for pushes and look-ups (default 100). */
  readonly dailyReserve?: number
  /** Body encoding of createReceiptShipment (default json, as the current spec; form as older versions). */
  readonly shipmentBody?: "json" | "form"
  /**
   * Called when Etsy answers a refresh with a different refresh token. The
   * connector keeps the newest in memory; persist it here, or a restart
   * presents a token Etsy may no longer accept.
   */
  readonly onRefreshTokenRotated?: (refreshToken: Redacted.Redacted<string>) => Effect.Effect<void>
}

export const DEFAULT_BASE_URL = "https://api.etsy.com"
export const DEFAULT_PAGE_SIZE = 100
export const DEFAULT_OVERLAP_SECONDS = 300
export const DEFAULT_REQUEST_TIMEOUT = "30 seconds"
export const DEFAULT_DAILY_RESERVE = 100

export const baseUrlOf = (config: Pick<EtsyConnectorConfig, "baseUrl">): string =>
  (config.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "")

export const applicationUrl = (config: Pick<EtsyConnectorConfig, "baseUrl">, path: string): string =>
  `${baseUrlOf(config)}/v3/application${path}`

export const tokenUrl = (config: Pick<EtsyConnectorConfig, "baseUrl">): string => `${baseUrlOf(config)}/v3/public/oauth/token`
