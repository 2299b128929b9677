/**
 * The v3 credential header pairs the POD service's published texts name. They
 * disagree: the overview, the migration guide and the shipping-coverage group
 * say X-Gearment-Client-Key/-Secret (podsync's default, and the pair seen
 * working live); the catalog, order and webhook groups say X-API-Key/-Secret.
 * `podsync check` tries the other pair when the configured one is refused, so
 * a seller learns which `pod.authHeaders` to set instead of guessing.
 */
import { DEFAULT_AUTH_HEADERS } from "./PodClient.js"

export interface AuthHeaderPair {
  readonly key: string
  readonly secret: string
}

export const X_API_AUTH_HEADERS: AuthHeaderPair = { key: "X-API-Key", secret: "X-API-Secret" }

export const PUBLISHED_AUTH_HEADERS: ReadonlyArray<AuthHeaderPair> = [DEFAULT_AUTH_HEADERS, X_API_AUTH_HEADERS]

const samePair = (a: AuthHeaderPair, b: AuthHeaderPair) =>
  a.key.toLowerCase() === b.key.toLowerCase() && a.secret.toLowerCase() === b.secret.toLowerCase()

/** The published pairs other than the configured one, in the order worth trying. */
export const otherPublishedAuthHeaders = (configured: AuthHeaderPair): ReadonlyArray<AuthHeaderPair> =>
  PUBLISHED_AUTH_HEADERS.filter((pair) => !samePair(pair, configured))

/** `X-API-Key/X-API-Secret`, for messages. */
export const describeAuthHeaders = (pair: AuthHeaderPair): string => `${pair.key}/${pair.secret}`

/** The config line that selects a pair, as a seller would paste it. */
export const authHeadersSetting = (pair: AuthHeaderPair): string => `pod.authHeaders: { key: ${pair.key}, secret: ${pair.secret} }`
