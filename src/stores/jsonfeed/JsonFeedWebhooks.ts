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
 * The port keeps this free of clocks, so the replay bound is the
 * connector's `admitWebhook`: `triggeredAt` is the signed timestamp, and a
 * delivery too far from now is refused (the webhook route answers 401).
 */
import { DateTime, Either, Option, Schema } from "effect"
import { canonicalTimestamp } from "../../domain/StoreTypes.js"
import {
  headerValue,
  hexHmacMatches,
  parseSignedJson,
  rejecter,
  configuredSecrets,
  type WebhookSecrets,
  type WebhookVerifier
} from "../WebhookSignature.js"
import { JsonFeedWebhookEnvelope } from "./JsonFeedSchemas.js"

export type JsonFeedWebhookSecrets = WebhookSecrets

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i

const decodeEnvelope = Schema.decodeUnknownEither(JsonFeedWebhookEnvelope)

export const verifyJsonFeedWebhook: WebhookVerifier<JsonFeedWebhookSecrets> = (secrets, delivery) => {
  const reject = rejecter(secrets.storeKey)
  const signature = headerValue(delivery, "X-Podsync-Signature")
  if (signature === undefined) return reject("missing_signature", "no X-Podsync-Signature header")
  const hex = SIGNATURE.exec(signature)?.[1]
  if (hex === undefined) return reject("bad_signature", "X-Podsync-Signature is not sha256=<64 hex digits>")
  if (!hexHmacMatches(hex, delivery.rawBody, configuredSecrets(secrets))) {
    return reject("bad_signature", "X-Podsync-Signature does not match the body under the webhook secret")
  }

  const deliveryId = headerValue(delivery, "X-Podsync-Delivery")
  const timestamp = headerValue(delivery, "X-Podsync-Timestamp")
  if (deliveryId === undefined || timestamp === undefined) {
    return reject("missing_headers", "X-Podsync-Delivery and X-Podsync-Timestamp are both required")
  }
  const json = parseSignedJson(secrets.storeKey, delivery.rawBody)
  if (Either.isLeft(json)) return Either.left(json.left)
  const parsed = json.right
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
