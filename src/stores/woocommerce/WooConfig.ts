/**
 * Plain values a WooCommerce connector is built from (the `stores[].woocommerce` block of the config).
 */
import type { Duration, Redacted } from "effect"

export interface WooCommerceConnectorConfig {
  readonly storeKey: string
  /** The site URL (`https://shop.example.com`); the REST API is at `<url>/wp-json`. */
  readonly url: string
  readonly consumerKey: Redacted.Redacted<string>
  readonly consumerSecret: Redacted.Redacted<string>
  /** The secret set on the store's order webhooks (one secret for all of them). */
  readonly webhookSecret: Redacted.Redacted<string>
  /** The secret before a rotation, accepted while webhooks are being re-saved with the new one. */
  readonly previousWebhookSecret?: Redacted.Redacted<string>
  /** Orders per page of a pull, 1–100 (default 100, WooCommerce's maximum). */
  readonly pageSize?: number
  /** How far before the watermark a pull re-reads, for late commits and clock skew (default 300 s). */
  readonly overlapSeconds?: number
  /** Least time between two requests to the store (default 1000 ms: about one request a second). */
  readonly minRequestIntervalMs?: number
  /** Per-request timeout (default 30 s); a timed-out write is ambiguous. */
  readonly requestTimeout?: Duration.DurationInput
  /**
   * How tracking is pushed: through the Shipment Tracking extension, as an order note plus meta, or
   * (default) the extension when the store answers its route, else the note.
   */
  readonly trackingMode?: "auto" | "shipment-tracking" | "note"
}

export const DEFAULT_PAGE_SIZE = 100
export const MAX_PAGE_SIZE = 100
export const DEFAULT_OVERLAP_SECONDS = 300
export const DEFAULT_MIN_REQUEST_INTERVAL_MS = 1000
export const DEFAULT_REQUEST_TIMEOUT = "30 seconds"

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
