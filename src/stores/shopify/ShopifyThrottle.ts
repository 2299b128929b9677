/**
 * Pacing inside Shopify's GraphQL cost bucket (a leaky bucket per app and shop: `maximumAvailable`
 * points, refilled at `restoreRate` points per second, each query pre-charged its requested cost).
 *
 * Nothing is hard-coded: the bucket (domain/StoreBucket.ts, shared by every replica using the
 * same shop and token) is whatever the last answer's `extensions.cost.throttleStatus` said,
 * refilled for the time since, less what was taken after that answer's own query. Before each
 * query the gate waits until the bucket holds the query's expected cost, and takes it out at
 * once, so concurrent callers, here or in another replica, do not spend the same points twice.
 */
import { type BucketReading, storeCredentialId } from "../../domain/StoreBucket.js"
import type { ShopifyConnectorConfig } from "./ShopifyConfig.js"

export interface ThrottleStatus {
  readonly maximumAvailable: number
  readonly currentlyAvailable: number
  readonly restoreRate: number
}

/** The bucket's name: the app and shop pair, as the shop and its access token (hashed). */
export const shopifyCredential = (config: Pick<ShopifyConnectorConfig, "shop" | "accessToken" | "clientId">): string =>
  // Shopify's bucket is the app's on the shop: a client-credentials app keeps it across its tokens.
  storeCredentialId(
    "shopify",
    config.accessToken !== undefined ? [config.shop, config.accessToken] : [config.shop, "app", config.clientId ?? ""]
  )

/** An answer's throttleStatus as the bucket's reading. */
export const readingOf = (status: ThrottleStatus): BucketReading => ({
  capacity: status.maximumAvailable,
  available: status.currentlyAvailable,
  restorePerSecond: status.restoreRate
})

/** The wait a THROTTLED answer asks for: (requested − available) / restoreRate seconds. */
export const millisAfterThrottled = (requestedQueryCost: number, status: ThrottleStatus): number =>
  status.restoreRate <= 0
    ? 1000
    : Math.ceil((Math.max(0, requestedQueryCost - status.currentlyAvailable) / status.restoreRate) * 1000)

/** What a THROTTLED answer said, in words for the log. */
export const throttledSaid = (requestedQueryCost: number, status: ThrottleStatus | undefined): string =>
  status === undefined
    ? `THROTTLED (no cost extension) for a query of ${requestedQueryCost} points`
    : `THROTTLED: a query of ${requestedQueryCost} points, ${status.currentlyAvailable} of ${status.maximumAvailable} available, restoring ${status.restoreRate}/s`
