/**
 * Plain values a JSON feed connector is built from: the `stores[].jsonfeed`
 * block of the config (baseUrl, token, webhookSecret) plus the store's
 * `fulfillment.notifyCustomer`, and tuning with defaults.
 */
import type { Duration, Redacted } from "effect"

export interface JsonFeedConnectorConfig {
  readonly storeKey: string
  /** The contract's `<base>`, e.g. `https://shop.example.com/api/podsync/v1`. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token: Redacted.Redacted<string>
  /** Shared secret of the webhook signature. */
  readonly webhookSecret: Redacted.Redacted<string>
  /** The secret before a rotation, accepted too while the seller switches over. */
  readonly previousWebhookSecret?: Redacted.Redacted<string>
  /** Whether a fulfilment asks the storefront to email the buyer (a push may override it). */
  readonly notifyCustomer: boolean
  /** Orders per page (`limit`), 1–250; default 100. */
  readonly pageSize?: number
  /** How far before the watermark a walk re-reads (`updated_since`), for late commits; default 120 s. */
  readonly overlapSeconds?: number
  /** Requests per second podsync allows itself against this storefront; default 5, 0 for no pacing. */
  readonly requestsPerSecond?: number
  /** Per-request timeout (default 30 s); a timed-out write is ambiguous. */
  readonly requestTimeout?: Duration.DurationInput
}

export const DEFAULT_PAGE_SIZE = 100
export const MAX_PAGE_SIZE = 250
export const DEFAULT_OVERLAP_SECONDS = 120
export const DEFAULT_REQUESTS_PER_SECOND = 5
export const DEFAULT_REQUEST_TIMEOUT = "30 seconds"

/** `<base>` + path, with the base's trailing slashes dropped. */
export const feedUrl = (baseUrl: string, path: string): string => `${baseUrl.replace(/\/+$/, "")}${path}`

/** Path of an order's resource; ids are opaque text, so they are percent-encoded. */
export const orderPath = (storeOrderId: string, rest = ""): string => `/orders/${encodeURIComponent(storeOrderId)}${rest}`
