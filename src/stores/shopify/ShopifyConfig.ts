/**
 * Plain values a Shopify connector is built from (the `stores[].shopify`
 * block of the config plus the store's `fulfillment.notifyCustomer`).
 */
import type { Redacted } from "effect"
import type { StoreTokenStore } from "../../domain/StoreToken.js"
import type { ConnectorTuning, PullLimits, StoreBudgetConfig, WebhookSecretsConfig } from "../ConnectorConfig.js"

export { DEFAULT_REQUEST_TIMEOUT } from "../ConnectorConfig.js"

/**
 * How the app authenticates: a Dev Dashboard app's client id and secret, whose tokens come from the
 * client credentials grant and expire (about 24 hours), or a legacy custom app's static token.
 */
export type ShopifyAppCredentials =
  | { readonly accessToken: Redacted.Redacted<string>; readonly clientId?: undefined; readonly clientSecret?: undefined }
  | { readonly accessToken?: undefined; readonly clientId: string; readonly clientSecret: Redacted.Redacted<string> }

/**
 * `webhookSecret` is the app's client secret (the default with client credentials); after a
 * rotation Shopify may keep signing with the previous one for up to an hour.
 */
export interface ShopifyConnectorSettings extends ConnectorTuning, WebhookSecretsConfig, StoreBudgetConfig {
  /** `acme.myshopify.com` */
  readonly shop: string
  /** Pinned Admin API version, `YYYY-MM`. */
  readonly apiVersion: string
  /** Default `https://<shop>`; simulators and proxies set it. */
  readonly baseUrl?: string
  /** Whether a fulfilment push asks Shopify to email the buyer (a push may override it). */
  readonly notifyCustomer: boolean
  /** Where a client-credentials app's current token is shared (replicas); default this connector's own memory. */
  readonly tokens?: StoreTokenStore
}

export type ShopifyConnectorConfig = ShopifyConnectorSettings & ShopifyAppCredentials

export const SHOPIFY_PULL_LIMITS: PullLimits = {
  // Keeps a page's query cost well under 1,000 points.
  defaultPageSize: 10,
  // Shopify's search index lags behind writes.
  defaultOverlapSeconds: 300
}

export const graphqlUrl = (config: Pick<ShopifyConnectorConfig, "shop" | "apiVersion" | "baseUrl">): string =>
  `${(config.baseUrl ?? `https://${config.shop}`).replace(/\/+$/, "")}/admin/api/${config.apiVersion}/graphql.json`

/** The shop's root: the Admin API and the token endpoint are under it. */
export const shopRoot = (config: Pick<ShopifyConnectorConfig, "shop" | "baseUrl">): string =>
  (config.baseUrl ?? `https://${config.shop}`).replace(/\/+$/, "")

/** The client credentials grant's endpoint. */
export const accessTokenUrl = (config: Pick<ShopifyConnectorConfig, "shop" | "baseUrl">): string =>
  `${shopRoot(config)}/admin/oauth/access_token`
