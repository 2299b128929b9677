/**
 * Pure verification of a POD webhook delivery, as the service publishes it
 * (shared reference pod-real-service.md, section 1; ARCHITECTURE.md, "HTTP
 * surface of the daemon").
 *
 * - `X-Connect-Signature` is HMAC-SHA256 over `<URL path> + <nonce> +
 *   <timestamp> + <base64url(body)>`, with the nonce and timestamp exactly as
 *   sent in `X-Connect-Nonce` and `X-Connect-Timestamp`, keyed with the API
 *   client secret (there is no separate webhook secret; `pod.webhooks.signingKey`
 *   may override it). The service's Go sample encodes the body's base64url
 *   WITH `=` padding, its NodeJS sample without: both are accepted (they
 *   differ whenever the body's length is not a multiple of 3).
 * - The service sends the signature in base64url with padding; hex, base64
 *   and base64url, padded or not, are all accepted (an optional `sha256=`
 *   prefix too), since the encoding was long undocumented.
 * - The timestamp's unit: a value below 10^11 is read as seconds (10^11 s is
 *   the year 5138), anything larger as milliseconds (10^11 ms is 1973). More
 *   than 5 minutes from now, in either direction, is stale.
 * - `X-Connect-Client-Key` (the API client key), when one is expected, must
 *   match it.
 *
 * Secrets are compared in constant time; the reasons given never contain
 * them. The body is then read as a V3 or V1 payload (PodWebhookEvents.ts); a
 * correctly signed body that is not JSON is still a verified delivery
 * (`payload` undefined), so the sender is answered 200 and stops retrying.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Either, Redacted, Schema } from "effect"
import { headerValue, type WebhookDelivery } from "../domain/StoreTypes.js"
import { type PodWebhookHint, podWebhookHint } from "./PodWebhookEvents.js"

export { podWebhookHint }

export const POD_SIGNATURE_HEADERS = {
  timestamp: "X-Connect-Timestamp",
  nonce: "X-Connect-Nonce",
  signature: "X-Connect-Signature",
  clientKey: "X-Connect-Client-Key"
} as const

/** How far a delivery's timestamp may be from our clock. */
export const POD_WEBHOOK_MAX_SKEW_MS = 5 * 60 * 1000

/** Timestamps at or above this are milliseconds, below it seconds. */
const MILLISECONDS_FROM = 1e11

export interface PodWebhookSecrets {
  /** The key of the HMAC: the API client secret, unless `pod.webhooks.signingKey` overrides it. */
  readonly signingKey: Redacted.Redacted<string>
  /** The expected `X-Connect-Client-Key`, when one is expected. */
  readonly clientKey?: Redacted.Redacted<string>
}

export interface PodWebhookDelivery extends WebhookDelivery {
  /** The URL path the sender signed: the configured `signedPath`, else the request's path. */
  readonly path: string
}

/** What a verified delivery is about; every field of the hint is a hint, the order is re-read from the API. */
export interface VerifiedPodWebhook extends PodWebhookHint {
  /** The inbox key: a nonce is used once. */
  readonly nonce: string
  readonly timestampMillis: number
  /** The parsed body; undefined when the signed body is not JSON. */
  readonly payload: unknown
}

export const PodWebhookRejection = Schema.Literal(
  "missing_headers",
  "bad_signature",
  "bad_timestamp",
  "stale_timestamp",
  "wrong_client_key"
)
export type PodWebhookRejection = typeof PodWebhookRejection.Type

/** A delivery we do not trust: answer 401 and do nothing else. */
export class PodWebhookRejectedError extends Schema.TaggedError<PodWebhookRejectedError>()("PodWebhookRejectedError", {
  reason: PodWebhookRejection,
  detail: Schema.String
}) {
  override get message(): string {
    return `POD webhook rejected (${this.reason}): ${this.detail}`
  }
}

/** The text the sender signs, with the body's base64url padded (the Go sample) or not (the NodeJS sample). */
export const podSignedContent = (path: string, nonce: string, timestamp: string, rawBody: Uint8Array, padded = true): string => {
  const unpadded = Buffer.from(rawBody).toString("base64url")
  return path + nonce + timestamp + (padded ? unpadded.padEnd(Math.ceil(unpadded.length / 4) * 4, "=") : unpadded)
}

const hmac = (key: Redacted.Redacted<string>, content: string): Buffer =>
  createHmac("sha256", Redacted.value(key)).update(content, "utf8").digest()

/** The signature's bytes from hex, base64 or base64url; undefined when it is none of them. */
export const decodeSignature = (text: string): Buffer | undefined => {
  const value = text.trim().replace(/^sha256=/i, "")
  if (/^[0-9a-f]{64}$/i.test(value)) return Buffer.from(value, "hex")
  // Node's base64 decoder reads both alphabets; padding is optional.
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return Buffer.from(value, "base64")
  return undefined
}

/** The timestamp in milliseconds, whichever unit it was sent in; undefined when it is not a number. */
export const timestampMillis = (text: string): number | undefined => {
  if (!/^\d{1,16}(\.\d+)?$/.test(text.trim())) return undefined
  const value = Number(text.trim())
  return value >= MILLISECONDS_FROM ? value : value * 1000
}

const sameSecret = (given: string, expected: Redacted.Redacted<string>): boolean => {
  // Compare digests, so lengths never differ and the time says nothing about the secret.
  const a = createHmac("sha256", "podsync-compare").update(given, "utf8").digest()
  const b = createHmac("sha256", "podsync-compare").update(Redacted.value(expected), "utf8").digest()
  return timingSafeEqual(a, b)
}

const parseJson = (rawBody: Uint8Array): unknown => {
  try {
    return JSON.parse(Buffer.from(rawBody).toString("utf8"))
  } catch {
    return undefined
  }
}

export const verifyPodWebhook = (
  secrets: PodWebhookSecrets,
  delivery: PodWebhookDelivery,
  nowMillis: number
): Either.Either<VerifiedPodWebhook, PodWebhookRejectedError> => {
  const reject = (reason: PodWebhookRejection, detail: string) => Either.left(new PodWebhookRejectedError({ reason, detail }))

  if (secrets.clientKey !== undefined) {
    const clientKey = headerValue(delivery, POD_SIGNATURE_HEADERS.clientKey)
    if (clientKey === undefined || !sameSecret(clientKey, secrets.clientKey)) {
      return reject("wrong_client_key", "X-Connect-Client-Key is missing or is not the expected API client key")
    }
  }
  const signature = headerValue(delivery, POD_SIGNATURE_HEADERS.signature)
  const nonce = headerValue(delivery, POD_SIGNATURE_HEADERS.nonce)
  const timestamp = headerValue(delivery, POD_SIGNATURE_HEADERS.timestamp)
  if (signature === undefined || nonce === undefined || timestamp === undefined) {
    const missing = [
      signature === undefined ? POD_SIGNATURE_HEADERS.signature : undefined,
      nonce === undefined ? POD_SIGNATURE_HEADERS.nonce : undefined,
      timestamp === undefined ? POD_SIGNATURE_HEADERS.timestamp : undefined
    ].filter((name) => name !== undefined)
    return reject("missing_headers", `missing ${missing.join(", ")}`)
  }

  const given = decodeSignature(signature)
  const matches = (padded: boolean) => {
    const expected = hmac(secrets.signingKey, podSignedContent(delivery.path, nonce, timestamp, delivery.rawBody, padded))
    return given !== undefined && given.length === expected.length && timingSafeEqual(given, expected)
  }
  // Both forms are always computed, so the time taken says nothing about which one matched.
  const [padded, unpadded] = [matches(true), matches(false)]
  if (!padded && !unpadded) {
    return reject("bad_signature", `X-Connect-Signature does not match the body signed for path ${delivery.path}`)
  }

  const at = timestampMillis(timestamp)
  if (at === undefined) return reject("bad_timestamp", "X-Connect-Timestamp is not a number of seconds or milliseconds")
  if (Math.abs(nowMillis - at) > POD_WEBHOOK_MAX_SKEW_MS) {
    return reject("stale_timestamp", `X-Connect-Timestamp is ${Math.round((nowMillis - at) / 1000)} s from now (at most 300 s allowed)`)
  }

  const payload = parseJson(delivery.rawBody)
  return Either.right({ nonce, timestampMillis: at, payload, ...podWebhookHint(payload) })
}
