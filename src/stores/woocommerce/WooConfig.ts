/**
 * Plain values a WooCommerce connector is built from (the `stores[].woocommerce` block of the config).
 */
import type { Redacted } from "effect"
import type { ConnectorTuning, PullLimits, StoreBudgetConfig, WebhookSecretsConfig } from "../ConnectorConfig.js"

export { DEFAULT_REQUEST_TIMEOUT } from "../ConnectorConfig.js"

/**
 * Where the consumer key and secret travel (store-apis.md §0, WooCommerce's authentication docs):
 * - `header`: HTTP Basic in the `Authorization` header;
 * - `query`: `consumer_key` / `consumer_secret` in the query string, over HTTPS (for hosts that strip
 *   the header: Apache with CGI/FastCGI);
 * - `auto` (default): the header, until the store answers 401 "Consumer key is missing" (or refuses as
 *   if no key was sent) to a request that carried it: from then on, the query string.
 */
export type WooAuthentication = "auto" | "header" | "query"

/** `webhookSecret` is the one secret set on all the store's order webhooks. */
export interface WooCommerceConnectorConfig extends ConnectorTuning, WebhookSecretsConfig, StoreBudgetConfig {
  /** The site URL (`https://shop.example.com`); the REST API is at `<url>/wp-json`. */
  readonly url: string
  /**
   * The site's home URL (WordPress's `home_url('/')`), which webhooks name as their source
   * (`X-WC-Webhook-Source`), when it differs from `url` (WordPress in a folder, the API on another
   * host). Default: `url`, compared by host only.
   */
  readonly homeUrl?: string
  readonly consumerKey: Redacted.Redacted<string>
  readonly consumerSecret: Redacted.Redacted<string>
  readonly authentication?: WooAuthentication
  /** Least time between two requests to the store (default 1000 ms: about one request a second). */
  readonly minRequestIntervalMs?: number
  /**
   * How tracking reaches the buyer: a Shipment Tracking item (the extension), a customer note (emailed
   * to the buyer: carrier, number, link), or (default) the extension when the store answers its
   * routes, else the customer note.
   */
  readonly trackingMode?: "auto" | "shipment-tracking" | "note"
}

/** 100 orders a page is WooCommerce's maximum. */
export const WOO_PULL_LIMITS: PullLimits = { defaultPageSize: 100, maxPageSize: 100, defaultOverlapSeconds: 300 }
export const DEFAULT_MIN_REQUEST_INTERVAL_MS = 1000

/** `<url>/wp-json`, without a trailing slash. */
export const restRoot = (url: string): string => `${url.replace(/\/+$/, "")}/wp-json`

const loopback = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

/**
 * Why the URL must not be used, or undefined. Consumer keys travel as HTTP Basic credentials, which a
 * store accepts only over HTTPS (plain HTTP would need OAuth 1.0a and exposes the key): plain HTTP is
 * refused except on the loopback interface, where the simulators run.
 */
export const urlProblem = (url: string): string | undefined => {
  if (!URL.canParse(url)) return `"${url}" is not an absolute URL`
  const parsed = new URL(url)
  if (parsed.protocol === "https:") return undefined
  if (parsed.protocol === "http:" && loopback.has(parsed.hostname)) return undefined
  return `refusing to send the consumer key to ${parsed.protocol}//${parsed.host}: WooCommerce stores must be reached over https://`
}
