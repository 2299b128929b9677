/**
 * Pure verification of a JSON feed webhook delivery (docs/jsonfeed.md §8).
 *
 * - `X-Podsync-Signature: sha256=<hex>` must be the HMAC-SHA256 of the raw
 *   body under the shared secret (or, during a rotation, the previous one).
 * - The signed body repeats `delivery_id` and `timestamp`; the
 *   `X-Podsync-Delivery` and `X-Podsync-Timestamp` headers must agree with
 *   it, so a replay cannot be re-dated without the secret.
 * - The dedup key is the delivery id: every retry and duplicate of one event
 *   carries it. Deliveries are hints; the order is re-read before use.
 *
 * The port keeps this free of clocks, so the replay bound is the caller's:
 * `triggeredAt` is the signed timestamp, and `isWithinReplayWindow` says
 * whether it is close enough to now (the webhook route answers 401 if not).
 */
import { timingSafeEqual } from "node:crypto"
import { DateTime, Either, Option, type Redacted, Schema } from "effect"
import { canonicalTimestamp, type VerifiedWebhook, type WebhookDelivery } from "../../domain/StoreTypes.js"
import { type WebhookRejection, WebhookRejectedError } from "../StoreErrors.js"
import { headerValue, hmacSha256 } from "../WebhookSignature.js"
import { JsonFeedWebhookEnvelope } from "./JsonFeedSchemas.js"

export interface JsonFeedWebhookSecrets {
  readonly storeKey: string
  readonly webhookSecret: Redacted.Redacted<string>
  readonly previousWebhookSecret?: Redacted.Redacted<string>
}

/** How far a delivery's signed timestamp may be from now, either way. */
export const REPLAY_WINDOW_SECONDS = 300

/** True when a verified delivery's signed timestamp is within `windowSeconds` of `nowMillis`. */
export const isWithinReplayWindow = (
  webhook: Pick<VerifiedWebhook, "triggeredAt">,
  nowMillis: number,
  windowSeconds: number = REPLAY_WINDOW_SECONDS
): boolean => {
  if (webhook.triggeredAt === undefined) return false
  const at = Date.parse(webhook.triggeredAt)
  return !Number.isNaN(at) && Math.abs(nowMillis - at) <= windowSeconds * 1000
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i

/** True when `hex` is the HMAC of `body` under any of `secrets`; every secret is tried, in constant time. */
export const hexHmacMatches = (hex: string, body: Uint8Array, secrets: ReadonlyArray<Redacted.Redacted<string>>): boolean => {
  const given = Buffer.from(hex, "hex")
  let matched = false
  for (const secret of secrets) {
    const expected = hmacSha256(secret, body)
    matched = (given.length === expected.length && timingSafeEqual(given, expected)) || matched
  }
  return matched
}

const decodeEnvelope = Schema.decodeUnknownEither(JsonFeedWebhookEnvelope)

export const verifyJsonFeedWebhook = (
  secrets: JsonFeedWebhookSecrets,
  delivery: WebhookDelivery
): Either.Either<VerifiedWebhook, WebhookRejectedError> => {
  const reject = (reason: WebhookRejection, detail: string) =>
    Either.left(new WebhookRejectedError({ storeKey: secrets.storeKey, reason, detail }))

  const signature = headerValue(delivery, "X-Podsync-Signature")
  if (signature === undefined) return reject("missing_signature", "no X-Podsync-Signature header")
  const hex = SIGNATURE.exec(signature)?.[1]
  if (hex === undefined) return reject("bad_signature", "X-Podsync-Signature is not sha256=<64 hex digits>")
  const keys = secrets.previousWebhookSecret === undefined ? [secrets.webhookSecret] : [secrets.webhookSecret, secrets.previousWebhookSecret]
  if (!hexHmacMatches(hex, delivery.rawBody, keys)) {
    return reject("bad_signature", "X-Podsync-Signature does not match the body under the webhook secret")
  }

  const deliveryId = headerValue(delivery, "X-Podsync-Delivery")
  const timestamp = headerValue(delivery, "X-Podsync-Timestamp")
  if (deliveryId === undefined || timestamp === undefined) {
    return reject("missing_headers", "X-Podsync-Delivery and X-Podsync-Timestamp are both required")
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(delivery.rawBody).toString("utf8"))
  } catch {
    return reject("malformed_body", "the signed body is not JSON")
  }
  const envelope = decodeEnvelope(parsed)
  if (Either.isLeft(envelope)) return reject("malformed_body", `the signed body is not a delivery: ${envelope.left.message}`)
  const body = envelope.right
  if (body.delivery_id !== deliveryId || String(body.timestamp) !== timestamp) {
    return reject("bad_signature", "X-Podsync-Delivery / X-Podsync-Timestamp differ from the signed body")
  }
  const isOrderEvent = body.type.startsWith("order.")
  const storeOrderId = body.order_id ?? undefined
  if (isOrderEvent && storeOrderId === undefined) return reject("malformed_body", `a ${body.type} delivery needs order_id`)
  const triggeredAt = Option.getOrUndefined(Option.map(DateTime.make(body.timestamp * 1000), DateTime.formatIso))
  if (triggeredAt === undefined) return reject("malformed_body", `timestamp ${body.timestamp} is not Unix seconds`)
  const orderUpdatedAt = body.updated_at === null || body.updated_at === undefined ? undefined : canonicalTimestamp(body.updated_at)

  return Either.right({
    storeKey: secrets.storeKey,
    topic: body.type,
    dedupKey: `${secrets.storeKey}:jsonfeed-delivery:${deliveryId}`,
    deliveryId,
    triggeredAt,
    payload: parsed,
    ...(storeOrderId === undefined ? {} : { storeOrderId }),
    ...(orderUpdatedAt === undefined ? {} : { orderUpdatedAt })
  })
}
