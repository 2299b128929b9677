/**
 * Plain values a JSON feed connector is built from: the `stores[].jsonfeed`
 * block of the config (baseUrl, token, webhookSecret) plus the store's
 * `fulfillment.notifyCustomer`, and tuning with defaults.
 */
import type { Redacted } from "effect"
import type { ConnectorTuning, PullLimits, WebhookSecretsConfig } from "../ConnectorConfig.js"

export { DEFAULT_REQUEST_TIMEOUT } from "../ConnectorConfig.js"

/** `webhookSecret` is the shared secret of the webhook signature. */
export interface JsonFeedConnectorConfig extends ConnectorTuning, WebhookSecretsConfig {
  /** The contract's `<base>`, e.g. `https://shop.example.com/api/podsync/v1`. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token: Redacted.Redacted<string>
  /** Whether a fulfilment asks the storefront to email the buyer (a push may override it). */
  readonly notifyCustomer: boolean
  /** Requests per second podsync allows itself against this storefront; default 5, 0 for no pacing. */
  readonly requestsPerSecond?: number
}

/** Pages are the contract's `limit` (1–250); the overlap is its `updated_since` re-read, for late commits. */
export const JSON_FEED_PULL_LIMITS: PullLimits = { defaultPageSize: 100, maxPageSize: 250, defaultOverlapSeconds: 120 }
export const DEFAULT_REQUESTS_PER_SECOND = 5

/** `<base>` + path, with the base's trailing slashes dropped. */
export const feedUrl = (baseUrl: string, path: string): string => `${baseUrl.replace(/\/+$/, "")}${path}`

/** Path of an order's resource; ids are opaque text, so they are percent-encoded. */
export const orderPath = (storeOrderId: string, rest = ""): string => `/orders/${encodeURIComponent(storeOrderId)}${rest}`
