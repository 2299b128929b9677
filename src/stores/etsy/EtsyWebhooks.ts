/**
 * Pure verification of an Etsy webhook delivery (store-apis.md §3.5; only
 * commercial apps get them). Etsy signs the "Standard Webhooks" way:
 *
 * - headers `webhook-id`, `webhook-timestamp` (Unix seconds), `webhook-signature`;
 * - signed content `"<id>.<timestamp>.<raw body>"`, HMAC-SHA256 keyed with the
 *   endpoint secret without its `whsec_` prefix, base64-decoded;
 * - the header holds space-separated `v1,<base64>` signatures (several during
 *   a rotation); one match under the current or previous secret is enough,
 *   every comparison in constant time.
 *
 * The payload names one receipt, which is re-read from the API (the daemon
 * reads that one receipt, not the whole shop). Two forms are read:
 * - the envelope Etsy's webhook page publishes (store-apis.md §0):
 *   `{event_type: "ORDER_PAID", event_id, created_at, data: {…}}`, the receipt
 *   in `data` (`receipt_id`, a `resource_url`, or a `receipt` object) and the
 *   shop in `data.shop_id`;
 * - the flat form deliveries were seen in: `{event_type: "order.paid",
 *   resource_url, shop_id}`.
 * The dedup key is the `webhook-id`, which Etsy keeps for every retry of a
 * message; the envelope's `event_id` is kept as the event id. The timestamp is
 * signed, so `triggeredAt` can be trusted; rejecting stale deliveries needs a
 * clock, which this pure check does not have: the connector's `admitWebhook`
 * compares `triggeredAt` with now.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Either, Redacted } from "effect"
import { headerValue, parseSignedJson, payloadText, rejecter, type WebhookVerifier } from "../WebhookSignature.js"
import { isoOfSeconds } from "./EtsyCursor.js"

export interface EtsyWebhookSecrets {
  readonly storeKey: string
  readonly shopId: string
  readonly webhookSecret?: Redacted.Redacted<string>
  readonly previousWebhookSecret?: Redacted.Redacted<string>
}

/** The HMAC key of a `whsec_…` endpoint secret. */
export const signingKey = (secret: Redacted.Redacted<string>): Buffer =>
  Buffer.from(Redacted.value(secret).trim().replace(/^whsec_/, ""), "base64")

/** The base64 signatures a `webhook-signature` header offers (`v1,` prefixed; a bare value is taken as v1). */
export const offeredSignatures = (header: string): Array<string> =>
  header
    .split(/\s+/)
    .filter((part) => part !== "")
    .flatMap((part) => {
      const comma = part.indexOf(",")
      if (comma < 0) return [part]
      return part.slice(0, comma) === "v1" ? [part.slice(comma + 1)] : []
    })

const signatureMatches = (offered: ReadonlyArray<string>, content: Buffer, keys: ReadonlyArray<Buffer>): boolean => {
  let matched = false
  for (const key of keys) {
    const expected = createHmac("sha256", key).update(content).digest()
    for (const signature of offered) {
      const given = Buffer.from(signature, "base64")
      const same = given.length === expected.length && timingSafeEqual(given, expected)
      matched = matched || same
    }
  }
  return matched
}

/** A payload's field that is an object, or undefined. */
const objectField = (payload: unknown, name: string): unknown => {
  const value = typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>)[name] : undefined
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined
}

/** The receipt a payload (or its `data`) names: `receipt_id`, a receipt object's id, or a `resource_url` ending in it. */
const receiptOf = (part: unknown): string | undefined => {
  const named = payloadText(part, "receipt_id") ?? payloadText(objectField(part, "receipt"), "receipt_id")
  if (named !== undefined) return /^\d{1,19}$/.test(named) ? named : undefined
  const resourceUrl = payloadText(part, "resource_url")
  return resourceUrl === undefined ? undefined : /\/receipts\/(\d+)(?:[/?#]|$)/.exec(resourceUrl)?.[1]
}

export const verifyEtsyWebhook: WebhookVerifier<EtsyWebhookSecrets> = (secrets, delivery) => {
  const reject = rejecter(secrets.storeKey)
  const configured = [secrets.webhookSecret, secrets.previousWebhookSecret].filter((s) => s !== undefined)
  if (configured.length === 0) {
    return reject("bad_signature", "webhooks are off for this store: no etsy webhookSecret is configured")
  }
  const signature = headerValue(delivery, "webhook-signature")
  if (signature === undefined) return reject("missing_signature", "no webhook-signature header")
  const id = headerValue(delivery, "webhook-id")
  const timestamp = headerValue(delivery, "webhook-timestamp")
  if (id === undefined || timestamp === undefined) return reject("missing_headers", "webhook-id and webhook-timestamp are required")
  if (!/^\d{1,12}$/.test(timestamp)) return reject("missing_headers", `webhook-timestamp "${timestamp}" is not Unix seconds`)

  const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, "utf8"), Buffer.from(delivery.rawBody)])
  if (!signatureMatches(offeredSignatures(signature), content, configured.map(signingKey))) {
    return reject("bad_signature", "no webhook-signature matches the delivery under the endpoint secret")
  }

  const parsed = parseSignedJson(secrets.storeKey, delivery.rawBody)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const payload = parsed.right
  const topic = payloadText(payload, "event_type")
  if (topic === undefined) return reject("malformed_body", "the payload has no event_type")
  const data = objectField(payload, "data")
  const shopId = payloadText(data, "shop_id") ?? payloadText(payload, "shop_id")
  if (shopId !== undefined && shopId !== secrets.shopId) {
    return reject("wrong_shop", `delivery is for shop ${shopId}, this store is shop ${secrets.shopId}`)
  }
  const storeOrderId = receiptOf(data) ?? receiptOf(payload)
  const eventId = payloadText(payload, "event_id")

  return Either.right({
    storeKey: secrets.storeKey,
    topic,
    dedupKey: `${secrets.storeKey}:etsy-webhook:${id}`,
    deliveryId: id,
    triggeredAt: isoOfSeconds(Number(timestamp)),
    payload,
    ...(eventId === undefined ? {} : { eventId }),
    ...(storeOrderId === undefined ? {} : { storeOrderId })
  })
}
