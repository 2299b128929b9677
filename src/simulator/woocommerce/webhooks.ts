import { createHash, createHmac } from "node:crypto"
import { delivered, QueuedWebhooks } from "../kit/queuedWebhooks.js"
import { defaultQueueSettings, type QueueSettings } from "../kit/webhookQueue.js"
import type { StoredOrder } from "./model.js"
import type { OrderTopic } from "./store.js"

/**
 * Webhooks as `WC_Webhook` delivers them:
 * - body: the REST v3 resource as it was when the event happened (`{"id":N}` for `order.deleted`); a
 *   webhook of API version `legacy_v3` delivers the legacy REST API's order instead, as `{"order": …}`;
 * - `X-WC-Webhook-Source` = `home_url('/')`, the site's home, which may differ from its REST address;
 * - `X-WC-Webhook-Signature` = base64(HMAC-SHA256(raw body, key)), the key being the secret as stored
 *   after `wp_specialchars_decode` (WordPress stores a sanitized secret: a lone `<` as `&lt;`); without
 *   a secret at creation WooCommerce derives a guessable one, and so does the simulator;
 * - `X-WC-Webhook-Delivery-ID` = a hash of (webhook id, current Unix second): two deliveries of one
 *   webhook in the same second share it, so it is no dedup key;
 * - on creation an UNSIGNED ping (form body `webhook_id=<id>`, no X-WC-* headers) goes to the URL;
 * - no retries; each non-2xx answer counts a failure, and past 5 consecutive failures the webhook is
 *   `disabled` (`WC_Webhook::failed_delivery`); a success resets the count.
 * Duplicates (the same delivery sent again) and reordering (newest first) come on demand.
 */

export const webhookTopics: ReadonlyArray<OrderTopic> = ["order.created", "order.updated", "order.deleted"]

/** Which API a webhook's payload is written by: REST v3 (the default) or the legacy REST API v3. */
export const webhookApiVersions = ["wp_api_v3", "legacy_v3"] as const
export type WebhookApiVersion = (typeof webhookApiVersions)[number]

const USER_AGENT = "WooCommerce/9.8.5 Hookshot (WordPress/6.8.1)"
const MAX_FAILURES = 5

export interface WebhookRecord {
  readonly id: number
  name: string
  status: "active" | "paused" | "disabled"
  readonly topic: OrderTopic
  readonly deliveryUrl: string
  /** As WordPress stores it (sanitized). */
  readonly secret: string
  readonly apiVersion: WebhookApiVersion
  readonly createdAt: number
  failureCount: number
}

/** No retry settings: WooCommerce does not retry a failed delivery (see the failure count). */
export type WebhookSettings = QueueSettings

export interface DeliveryRecord {
  readonly webhookId: number
  readonly deliveryId: string | null
  readonly topic: string
  readonly address: string
  readonly resourceId: number | null
  readonly ping: boolean
  readonly status: number | null
  readonly error: string | null
}

interface PendingDelivery {
  readonly webhook: WebhookRecord
  readonly deliveryId: string
  readonly body: string
  readonly resourceId: number
}

export const signWebhook = (secret: string, rawBody: string | Uint8Array): string =>
  createHmac("sha256", secret).update(rawBody).digest("base64")

/** `sanitize_text_field` as far as a secret meets it: a `<` that opens no tag is stored as `&lt;`. */
export const storedSecret = (typed: string): string => typed.trim().replace(/<(?![a-zA-Z/!?])/g, "&lt;")

/** `wp_specialchars_decode($text, ENT_QUOTES)`: the five entities WordPress encodes, decoded once. */
export const wpSpecialcharsDecode = (text: string): string =>
  text
    .replace(/&(?:#0*60|#x0*3c|lt);/gi, "<")
    .replace(/&(?:#0*62|#x0*3e|gt);/gi, ">")
    .replace(/&(?:#0*34|#x0*22|quot);/gi, '"')
    .replace(/&(?:#0*39|#x0*27);/gi, "'")
    .replace(/&(?:#0*38|#x0*26|amp);/gi, "&")

export const defaultWebhookSettings = defaultQueueSettings

export class Webhooks extends QueuedWebhooks<PendingDelivery, WebhookSettings, DeliveryRecord> {
  private hooks: WebhookRecord[] = []
  private nextId = 11

  constructor(
    /** `home_url('/')`: what deliveries name as their source. */
    private readonly sourceUrl: () => string,
    private readonly now: () => number,
    private readonly payload: (order: StoredOrder) => unknown,
    private readonly legacyPayload: (order: StoredOrder) => unknown
  ) {
    super(defaultWebhookSettings)
  }

  list(): ReadonlyArray<WebhookRecord> {
    return this.hooks
  }
  find(id: number): WebhookRecord | undefined {
    return this.hooks.find((h) => h.id === id)
  }

  remove(id: number): WebhookRecord | undefined {
    const found = this.find(id)
    this.hooks = this.hooks.filter((h) => h.id !== id)
    return found
  }

  override reset(): void {
    super.reset()
    this.hooks = []
  }

  /** Creates an active webhook and pings its URL, as saving a webhook in WooCommerce does. */
  async create(
    spec: { topic: OrderTopic; deliveryUrl: string; secret?: string; name?: string; apiVersion?: WebhookApiVersion }
  ): Promise<WebhookRecord> {
    const createdAt = Math.floor(this.now() / 1000) * 1000
    const hook: WebhookRecord = {
      id: this.nextId++,
      name: spec.name ?? `Order ${spec.topic.split(".")[1]}`,
      status: "active",
      topic: spec.topic,
      deliveryUrl: spec.deliveryUrl,
      secret: spec.secret === undefined ? createHash("md5").update(`1${createdAt / 1000}`).digest("hex") : storedSecret(spec.secret),
      apiVersion: spec.apiVersion ?? "wp_api_v3",
      createdAt,
      failureCount: 0
    }
    this.hooks.push(hook)
    await this.ping(hook)
    return hook
  }

  async ping(hook: WebhookRecord): Promise<number | null> {
    const result = await this.queue.post(
      hook.deliveryUrl,
      { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": USER_AGENT },
      `webhook_id=${hook.id}`,
      true
    )
    this.log.push({
      webhookId: hook.id,
      deliveryId: null,
      topic: "ping",
      address: hook.deliveryUrl,
      resourceId: null,
      ping: true,
      ...result
    })
    return result.status
  }

  private deliveryId(hook: WebhookRecord): string {
    return createHmac("md5", "simulated-wp-salt").update(`${hook.id}${Math.floor(this.now() / 1000)}`).digest("hex")
  }

  /** Called for every order event; queues one delivery per active webhook of that topic. */
  readonly onOrderEvent = (topic: OrderTopic, order: StoredOrder): void => {
    const targets = this.hooks.filter((h) => h.topic === topic && h.status === "active")
    if (targets.length === 0) return
    const bodyFor = (apiVersion: WebhookApiVersion) =>
      JSON.stringify(
        topic === "order.deleted"
          ? { id: order.id }
          : apiVersion === "legacy_v3"
          ? { order: this.legacyPayload(order) }
          : this.payload(order)
      )
    this.queue.enqueue(targets.map((webhook) => ({
      webhook,
      deliveryId: this.deliveryId(webhook),
      body: bodyFor(webhook.apiVersion),
      resourceId: order.id
    })))
  }

  protected dispatch(d: PendingDelivery): () => Promise<void> {
    return () => this.send(d)
  }

  private async send(d: PendingDelivery): Promise<void> {
    const hook = d.webhook
    if (hook.status !== "active") return
    const [resource, event] = hook.topic.split(".") as [string, string]
    const result = await this.queue.post(
      hook.deliveryUrl,
      {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-WC-Webhook-Source": this.sourceUrl(),
        "X-WC-Webhook-Topic": hook.topic,
        "X-WC-Webhook-Resource": resource,
        "X-WC-Webhook-Event": event,
        "X-WC-Webhook-Signature": signWebhook(wpSpecialcharsDecode(hook.secret), d.body),
        "X-WC-Webhook-ID": String(hook.id),
        "X-WC-Webhook-Delivery-ID": d.deliveryId
      },
      d.body,
      true
    )
    this.log.push({
      webhookId: hook.id,
      deliveryId: d.deliveryId,
      topic: hook.topic,
      address: hook.deliveryUrl,
      resourceId: d.resourceId,
      ping: false,
      ...result
    })
    if (delivered(result)) {
      hook.failureCount = 0
    } else if (hook.failureCount > MAX_FAILURES) {
      hook.status = "disabled"
    } else {
      hook.failureCount += 1
    }
  }
}

export const webhookView = (siteUrl: string, hook: WebhookRecord) => ({
  id: hook.id,
  name: hook.name,
  status: hook.status,
  topic: hook.topic,
  resource: hook.topic.split(".")[0],
  event: hook.topic.split(".")[1],
  hooks: [`woocommerce_${hook.topic === "order.created" ? "new_order" : hook.topic === "order.updated" ? "update_order" : "delete_order"}`],
  delivery_url: hook.deliveryUrl,
  api_version: hook.apiVersion === "legacy_v3" ? "legacy_v3" : "wp_api_v3",
  date_created: new Date(hook.createdAt).toISOString().slice(0, 19),
  date_created_gmt: new Date(hook.createdAt).toISOString().slice(0, 19),
  date_modified: new Date(hook.createdAt).toISOString().slice(0, 19),
  date_modified_gmt: new Date(hook.createdAt).toISOString().slice(0, 19),
  _links: {
    self: [{ href: `${siteUrl}/wp-json/wc/v3/webhooks/${hook.id}` }],
    collection: [{ href: `${siteUrl}/wp-json/wc/v3/webhooks` }]
  }
})
