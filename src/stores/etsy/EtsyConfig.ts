/**
 * Plain values an Etsy connector is built from: the `stores[].etsy` block of
 * the config (shopId, keystring, sharedSecret, refreshToken, baseUrl) plus
 * optional settings with sensible defaults.
 */
import type { Redacted } from "effect"
import type { StoreTokenStore } from "../../domain/StoreToken.js"
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
  /** The seller's OAuth refresh token: the first of the line Etsy rotates (the newest is kept in `tokens`). */
  readonly refreshToken: Redacted.Redacted<string>
  /** Default `https://api.etsy.com`; simulators and proxies set it. */
  readonly baseUrl?: string
  readonly receiptFilter?: EtsyReceiptFilter
  /** Requests of the daily quota a pull leaves for pushes and look-ups (default 100). */
  readonly dailyReserve?: number
  /** Body encoding of createReceiptShipment (default json, as the current spec; form as older versions). */
  readonly shipmentBody?: "json" | "form"
  /**
   * The country packages ship from (ISO 3166-1 alpha-2), whose carriers `getShippingCarriers` lists.
   * Default: the shop's own (`shipping_from_country_iso` of getShop).
   */
  readonly shipsFromCountry?: string
  /**
   * Where the access token and the newest refresh token are kept (replicas share them, a restart
   * finds them); default this connector's own memory.
   */
  readonly tokens?: StoreTokenStore
  /**
   * False where `tokens` outlive nothing this process does (`podsync check` without the daemon's
   * database): no refresh is made, since Etsy would answer with a new refresh token that nothing
   * keeps and refuse the configured one from then on. Default true.
   */
  readonly refreshTokenKept?: boolean
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
