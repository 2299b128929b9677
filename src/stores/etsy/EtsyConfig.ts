/**
 * Plain values an Etsy connector is built from: the `stores[].etsy` block of
 * the config (shopId, keystring, sharedSecret, refreshToken, baseUrl) plus
 * optional settings with sensible defaults.
 */
import type { Effect, Redacted } from "effect"
import type { ConnectorTuning, PullLimits, StoreBudgetConfig, WebhookSecretsConfig } from "../ConnectorConfig.js"

export { DEFAULT_REQUEST_TIMEOUT } from "../ConnectorConfig.js"

/**
 * Which receipts a pull walks. `paidUnshipped` (default) asks Etsy for
 * `was_paid=true&was_shipped=false`, the work queue: a paid receipt cancelled
 * before it ships keeps `is_paid` and so still comes through as cancelled.
 * `all` walks every change (unpaid, shipped and delivered receipts too).
 */
export type EtsyReceiptFilter = "paidUnshipped" | "all"

/**
 * The webhook secrets are the endpoint's (`whsec_…`); only commercial apps get
 * webhooks, so without a secret webhooks are off.
 */
export interface EtsyConnectorConfig extends ConnectorTuning, Partial<WebhookSecretsConfig>, StoreBudgetConfig {
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
  readonly receiptFilter?: EtsyReceiptFilter
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
/**
 * Each page costs one request of the daily quota, so pages are as large as Etsy allows (100); at
 * least 2, since every page after the first starts with the anchor (EtsyCursor.ts).
 */
export const ETSY_PULL_LIMITS: PullLimits = { defaultPageSize: 100, minPageSize: 2, maxPageSize: 100, defaultOverlapSeconds: 300 }
export const DEFAULT_DAILY_RESERVE = 100

export const baseUrlOf = (config: Pick<EtsyConnectorConfig, "baseUrl">): string => (config.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "")

export const applicationUrl = (config: Pick<EtsyConnectorConfig, "baseUrl">, path: string): string =>
  `${baseUrlOf(config)}/v3/application${path}`

export const tokenUrl = (config: Pick<EtsyConnectorConfig, "baseUrl">): string => `${baseUrlOf(config)}/v3/public/oauth/token`
