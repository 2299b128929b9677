/**
 * Pure verification of a WooCommerce webhook delivery (order.created, order.updated, order.deleted,
 * or any other topic; the caller decides what to do with a topic).
 *
 * - `X-WC-Webhook-Signature` must be base64(HMAC-SHA256(raw body, key)) under the configured secret
 *   or, during a rotation, the previous one. WooCommerce signs with the stored secret after
 *   `wp_specialchars_decode` (WordPress stores `<` as `&lt;`): each secret is tried as configured and,
 *   when it holds entities (copied from where WordPress shows the stored form), decoded.
 * - The ping WooCommerce sends when a webhook is saved is unsigned, with the form body
 *   `webhook_id=<id>` and no X-WC-* headers. It is accepted as topic `webhook.ping` (so the daemon
 *   answers 200, without which WooCommerce refuses to save the webhook) and carries no order: ignore it.
 * - `X-WC-Webhook-Source`, when sent, is the site's home (`home_url('/')`): it must be the configured
 *   `homeUrl` (host and path), or without one the REST address's host (`www.` aside).
 * - The body is the REST resource, or `{"order": {…}}` for a webhook on the legacy API (its
 *   `order_number`, `updated_at` in UTC).
 * - Dedup key: `X-WC-Webhook-Delivery-ID` is a hash of the webhook id and the current second, so two
 *   different events within one second share it; the key is therefore the order version the payload
 *   carries (topic, id, `date_modified_gmt`), which every copy of one delivery shares. Payloads
 *   without a version (order.deleted sends `{"id":N}`) are keyed by webhook, delivery id and body.
 */
import { createHash } from "node:crypto"
import { Either, Redacted } from "effect"
import type { VerifiedWebhook } from "../../domain/StoreTypes.js"
import type { WebhookAdmission } from "../StoreConnector.js"
import { accepted } from "../WebhookAdmission.js"
import { base64HmacMatches, headerValue, parseSignedJson, payloadText, rejecter, configuredSecrets } from "../WebhookSignature.js"
import type { WebhookSecrets, WebhookVerifier } from "../WebhookSignature.js"
import { gmtTimestamp } from "./WooNormalize.js"

export interface WooWebhookSecrets extends WebhookSecrets {
  /** The site URL, to check `X-WC-Webhook-Source` when no home URL is configured. */
  readonly url: string
  /** The site's home (`home_url('/')`), when it differs from `url`. */
  readonly homeUrl?: string
}

export const PING_TOPIC = "webhook.ping"

/** WooCommerce saves a webhook only after a 2xx to its unsigned ping; there is nothing to do with it. */
export const admitWooWebhook = (webhook: VerifiedWebhook): WebhookAdmission =>
  webhook.topic === PING_TOPIC ? { _tag: "Ignore", reason: "ping" } : accepted

const siteHost = (url: string): string | undefined => {
  if (!URL.canParse(url)) return undefined
  return new URL(url).host.toLowerCase().replace(/^www\./, "")
}

/** A home URL's host (`www.` aside) and path, without the trailing slash `home_url('/')` adds. */
const siteHome = (url: string): string | undefined => {
  if (!URL.canParse(url)) return undefined
  const parsed = new URL(url)
  return `${parsed.host.toLowerCase().replace(/^www\./, "")}${parsed.pathname.replace(/\/+$/, "")}`
}

/** Whether `source` is the store's home: the configured home URL, else the REST address's host. */
export const isStoreSource = (secrets: Pick<WooWebhookSecrets, "url" | "homeUrl">, source: string): boolean =>
  secrets.homeUrl !== undefined
    ? siteHome(source) !== undefined && siteHome(source) === siteHome(secrets.homeUrl)
    : siteHost(source) !== undefined && siteHost(source) === siteHost(secrets.url)

/** `wp_specialchars_decode($text, ENT_QUOTES)`: the entities WordPress encodes, decoded once. */
export const wpSpecialcharsDecode = (text: string): string =>
  text
    .replace(/&(?:#0*60|#x0*3c|lt);/gi, "<")
    .replace(/&(?:#0*62|#x0*3e|gt);/gi, ">")
    .replace(/&(?:#0*34|#x0*22|quot);/gi, '"')
    .replace(/&(?:#0*39|#x0*27);/gi, "'")
    .replace(/&(?:#0*38|#x0*26|amp);/gi, "&")

/** The keys a configured secret may sign with: as configured, and decoded when that differs. */
const signingKeys = (secrets: WebhookSecrets): Array<Redacted.Redacted<string>> =>
  configuredSecrets(secrets).flatMap((secret) => {
    const decoded = wpSpecialcharsDecode(Redacted.value(secret))
    return decoded === Redacted.value(secret) ? [secret] : [secret, Redacted.make(decoded)]
  })

/** The order a payload carries: the REST resource itself, or a legacy API webhook's `{"order": …}`. */
const orderOf = (payload: unknown): unknown => {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return payload
  const wrapped = (payload as Record<string, unknown>)["order"]
  return "id" in payload || typeof wrapped !== "object" || wrapped === null ? payload : wrapped
}

export const verifyWooWebhook: WebhookVerifier<WooWebhookSecrets> = (secrets, delivery) => {
  const reject = rejecter(secrets.storeKey)
  const body = Buffer.from(delivery.rawBody).toString("utf8")

  const signature = headerValue(delivery, "X-WC-Webhook-Signature")
  if (signature === undefined) {
    const ping = /^webhook_id=(\d{1,19})$/.exec(body.trim())
    if (ping !== null) {
      return Either.right({
        storeKey: secrets.storeKey,
        topic: PING_TOPIC,
        dedupKey: `${secrets.storeKey}:woo-ping:${ping[1]}`,
        payload: { webhook_id: Number(ping[1]) }
      })
    }
    return reject("missing_signature", "no X-WC-Webhook-Signature header (and not WooCommerce's ping)")
  }
  if (!base64HmacMatches(signature, delivery.rawBody, signingKeys(secrets))) {
    return reject("bad_signature", "X-WC-Webhook-Signature does not match the body under the webhook secret")
  }

  const source = headerValue(delivery, "X-WC-Webhook-Source")
  if (source !== undefined && !isStoreSource(secrets, source)) {
    return reject(
      "wrong_shop",
      secrets.homeUrl === undefined
        ? `delivery is from ${source}, this store is ${secrets.url} (set woocommerce.homeUrl when the site's home is elsewhere)`
        : `delivery is from ${source}, this store's home is ${secrets.homeUrl}`
    )
  }
  const topic = headerValue(delivery, "X-WC-Webhook-Topic")
  if (topic === undefined) return reject("missing_headers", "no X-WC-Webhook-Topic header")
  const webhookId = headerValue(delivery, "X-WC-Webhook-ID")
  const deliveryId = headerValue(delivery, "X-WC-Webhook-Delivery-ID")

  const parsed = parseSignedJson(secrets.storeKey, body)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const payload = parsed.right

  const resource = headerValue(delivery, "X-WC-Webhook-Resource") ?? topic.split(".")[0]
  const order = orderOf(payload)
  const storeOrderId = resource === "order" ? payloadText(order, "id") : undefined
  const modified = payloadText(order, "date_modified_gmt") ?? payloadText(order, "updated_at")
  const orderUpdatedAt = resource === "order" && modified !== undefined ? gmtTimestamp(modified) : undefined
  const bodyHash = createHash("sha256").update(delivery.rawBody).digest("hex").slice(0, 16)
  const dedupKey = storeOrderId !== undefined && orderUpdatedAt !== undefined
    ? `${secrets.storeKey}:woo:${topic}:${storeOrderId}@${orderUpdatedAt}`
    : `${secrets.storeKey}:woo-delivery:${webhookId ?? "-"}:${deliveryId ?? "-"}:${bodyHash}`

  return Either.right({
    storeKey: secrets.storeKey,
    topic,
    dedupKey,
    payload,
    ...(deliveryId === undefined ? {} : { deliveryId }),
    ...(storeOrderId === undefined ? {} : { storeOrderId }),
    ...(orderUpdatedAt === undefined ? {} : { orderUpdatedAt })
  })
}
