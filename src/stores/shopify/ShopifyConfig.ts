/**
 * Plain values a Shopify connector is built from (the `stores[].shopify`
 * block of the config plus the store's `fulfillment.notifyCustomer`).
 */
import type { Duration, Redacted } from "effect"

export interface ShopifyConnectorConfig {
  readonly storeKey: string
  /** `acme.myshopify.com` */
  readonly shop: string
  readonly accessToken: Redacted.Redacted<string>
  /** The app's client secret that signs webhooks. */
  readonly webhookSecret: Redacted.Redacted<string>
  /** The secret before a rotation; Shopify may keep signing with it for up to an hour. */
  readonly previousWebhookSecret?: Redacted.Redacted<string>
  /** Pinned Admin API version, `YYYY-MM`. */
  readonly apiVersion: string
  /** Default `https://<shop>`; simulators and proxies set it. */
  readonly baseUrl?: string
  /** Whether a fulfilment push asks Shopify to email the buyer (a push may override it). */
  readonly notifyCustomer: boolean
  /** Orders per page of a pull (default 10, which keeps a page's query cost well under 1,000 points). */
  readonly pageSize?: number
  /** How far before the watermark a pull re-reads, for Shopify's search index lag (default 300 s). */
  readonly overlapSeconds?: number
  /** Per-request timeout (default 30 s); a timed-out write is ambiguous. */
  readonly requestTimeout?: Duration.DurationInput
}

export const DEFAULT_PAGE_SIZE = 10
export const DEFAULT_OVERLAP_SECONDS = 300
export const DEFAULT_REQUEST_TIMEOUT = "30 seconds"

export const graphqlUrl = (config: Pick<ShopifyConnectorConfig, "shop" | "apiVersion" | "baseUrl">): string =>
  `${(config.baseUrl ?? `https://${config.shop}`).replace(/\/+$/, "")}/admin/api/${config.apiVersion}/graphql.json`
