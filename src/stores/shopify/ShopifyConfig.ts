/**
 * Plain values a Shopify connector is built from (the `stores[].shopify`
 * block of the config plus the store's `fulfillment.notifyCustomer`).
 */
import type { Redacted } from "effect"
import type { ConnectorTuning, PullLimits, StoreBudgetConfig, WebhookSecretsConfig } from "../ConnectorConfig.js"

export { DEFAULT_REQUEST_TIMEOUT } from "../ConnectorConfig.js"

/**
 * `webhookSecret` is the app's client secret; after a rotation Shopify may keep
 * signing with the previous one for up to an hour.
 */
export interface ShopifyConnectorConfig extends ConnectorTuning, WebhookSecretsConfig, StoreBudgetConfig {
  /** `acme.myshopify.com` */
  readonly shop: string
  readonly accessToken: Redacted.Redacted<string>
  /** Pinned Admin API version, `YYYY-MM`. */
  readonly apiVersion: string
  /** Default `https://<shop>`; simulators and proxies set it. */
  readonly baseUrl?: string
  /** Whether a fulfilment push asks Shopify to email the buyer (a push may override it). */
  readonly notifyCustomer: boolean
}

export const SHOPIFY_PULL_LIMITS: PullLimits = {
  // Keeps a page's query cost well under 1,000 points.
  defaultPageSize: 10,
  // Shopify's search index lags behind writes.
  defaultOverlapSeconds: 300
}

export const graphqlUrl = (config: Pick<ShopifyConnectorConfig, "shop" | "apiVersion" | "baseUrl">): string =>
  `${(config.baseUrl ?? `https://${config.shop}`).replace(/\/+$/, "")}/admin/api/${config.apiVersion}/graphql.json`
