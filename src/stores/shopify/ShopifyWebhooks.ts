/**
 * Pure verification of a Shopify webhook delivery (orders/create,
 * orders/updated, orders/cancelled, or any other topic; the caller decides
 * what to do with a topic).
 *
 * - `X-Shopify-Hmac-Sha256` must be the base64 HMAC-SHA256 of the raw body
 *   under the current secret or, during a rotation, the previous one.
 * - `X-Shopify-Shop-Domain`, when sent, must be the configured shop.
 * - The dedup key is `X-Shopify-Event-Id` (shared by every retry and
 *   duplicate of one event, Shopify's advice) scoped by topic, since one
 *   merchant action can raise several topics; without it, the delivery id.
 *   Deliveries are hints: the order is re-read before anything is done.
 */
import { Either } from "effect"
import { canonicalTimestamp } from "../../domain/StoreTypes.js"
import { base64HmacMatches, headerValue, parseSignedJson, payloadText, rejecter, configuredSecrets } from "../WebhookSignature.js"
import type { WebhookSecrets, WebhookVerifier } from "../WebhookSignature.js"

export interface ShopifyWebhookSecrets extends WebhookSecrets {
  readonly shop: string
}

/**
 * A signature that fails under the configured secret is most often a webhook the seller created by
 * hand in the Shopify admin: those are signed with the key that admin page shows, not the app's.
 */
export const BAD_SIGNATURE = "X-Shopify-Hmac-Sha256 does not match the body under the configured webhook secret. Webhooks created " +
  "by hand in the Shopify admin (Settings › Notifications › Webhooks) are signed with the key shown on that page, not with the " +
  "app's client secret: set the store's webhookSecret to that key, or have the app's own webhook subscriptions send them"

export const verifyShopifyWebhook: WebhookVerifier<ShopifyWebhookSecrets> = (secrets, delivery) => {
  const reject = rejecter(secrets.storeKey)
  const signature = headerValue(delivery, "X-Shopify-Hmac-Sha256")
  if (signature === undefined) return reject("missing_signature", "no X-Shopify-Hmac-Sha256 header")
  if (!base64HmacMatches(signature, delivery.rawBody, configuredSecrets(secrets))) {
    return reject("bad_signature", BAD_SIGNATURE)
  }

  const shop = headerValue(delivery, "X-Shopify-Shop-Domain")
  if (shop !== undefined && shop.toLowerCase() !== secrets.shop.toLowerCase()) {
    return reject("wrong_shop", `delivery is for ${shop}, this store is ${secrets.shop}`)
  }
  const topic = headerValue(delivery, "X-Shopify-Topic")
  const deliveryId = headerValue(delivery, "X-Shopify-Webhook-Id")
  const eventId = headerValue(delivery, "X-Shopify-Event-Id")
  if (topic === undefined) return reject("missing_headers", "no X-Shopify-Topic header")
  if (deliveryId === undefined && eventId === undefined) {
    return reject("missing_headers", "neither X-Shopify-Event-Id nor X-Shopify-Webhook-Id is present")
  }

  const parsed = parseSignedJson(secrets.storeKey, delivery.rawBody)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const payload = parsed.right
  const isOrderTopic = topic.startsWith("orders/")
  const storeOrderId = isOrderTopic ? payloadText(payload, "id") : undefined
  const updatedAtText = isOrderTopic ? payloadText(payload, "updated_at") : undefined
  const orderUpdatedAt = updatedAtText === undefined ? undefined : canonicalTimestamp(updatedAtText)
  const triggeredAtText = headerValue(delivery, "X-Shopify-Triggered-At")
  const triggeredAt = triggeredAtText === undefined ? undefined : canonicalTimestamp(triggeredAtText)

  return Either.right({
    storeKey: secrets.storeKey,
    topic,
    dedupKey: eventId !== undefined
      ? `${secrets.storeKey}:shopify-event:${topic}:${eventId}`
      : `${secrets.storeKey}:shopify-delivery:${deliveryId}`,
    payload,
    ...(deliveryId === undefined ? {} : { deliveryId }),
    ...(eventId === undefined ? {} : { eventId }),
    ...(storeOrderId === undefined ? {} : { storeOrderId }),
    ...(orderUpdatedAt === undefined ? {} : { orderUpdatedAt }),
    ...(triggeredAt === undefined ? {} : { triggeredAt })
  })
}
