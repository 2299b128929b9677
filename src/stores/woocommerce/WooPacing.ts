/**
 * Polite pacing for one WooCommerce store. Core WooCommerce publishes no REST limit, but the host or a
 * WAF in front of WordPress may answer 429 or 503, so the connector (a) spaces its requests at least
 * `intervalMs` apart: a bucket of one token refilled every `intervalMs` (domain/StoreBucket.ts,
 * shared by every replica using the same site and key), and (b) after a 429/503 pauses that bucket
 * until `Retry-After` (seconds or an HTTP date) has passed, or, without one, for an exponential
 * backoff (1 s, 2 s, 4 s … at most 60 s).
 */
import { type BucketShape, storeCredentialId } from "../../domain/StoreBucket.js"
import type { WooCommerceConnectorConfig } from "./WooConfig.js"

/** The bucket's name: the site and the consumer key (hashed). */
export const wooCredential = (config: Pick<WooCommerceConnectorConfig, "url" | "consumerKey">): string =>
  storeCredentialId("woocommerce", [config.url.replace(/\/+$/, ""), config.consumerKey])

/** A bucket that never runs dry: no spacing, but 429/503 pauses still hold every caller. */
const UNSPACED: BucketShape = { capacity: 1e9, restorePerSecond: 1e9 }

/** One request per `intervalMs`: one token, refilled in that time. */
export const politeShape = (intervalMs: number): BucketShape =>
  intervalMs > 0 ? { capacity: 1, restorePerSecond: 1000 / intervalMs } : UNSPACED

export const MAX_BACKOFF_MS = 60_000

/** 1 s, 2 s, 4 s … for the n-th consecutive refusal (n from 1), capped at a minute. */
export const backoffMillis = (attempt: number): number => Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempt - 1))

/**
 * `Retry-After` in milliseconds from now: delta-seconds or an HTTP date; undefined when absent or
 * unreadable (the caller backs off instead). Never negative.
 */
export const retryAfterMillis = (header: string | undefined, nowMillis: number): number | undefined => {
  if (header === undefined || header.trim() === "") return undefined
  const text = header.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000)
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMillis)
}
