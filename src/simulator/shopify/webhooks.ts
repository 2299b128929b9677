import { createHmac, randomUUID } from "node:crypto"
import { SubscribedWebhooks } from "../kit/queuedWebhooks.js"
import { defaultRetryingSettings, type QueueSettings, type RetrySettings } from "../kit/webhookQueue.js"
import type { StoredOrder } from "./model.js"
import { restOrder } from "./restOrder.js"
import type { OrderTopic } from "./store.js"

/**
 * Signed webhook deliveries (store-apis.md §1.7): the REST-shaped order, `X-Shopify-Hmac-Sha256` = base64
 * HMAC-SHA256 of the raw body keyed with the webhook secret. Deliveries are queued when the event happens
 * (so the payload is that moment's order) and sent shortly after, or when asked, with duplicates
 * (the very same delivery sent again) and reordering (newest first) on demand.
 */

export const webhookTopics: ReadonlyArray<OrderTopic> = ["orders/create", "orders/updated", "orders/cancelled"]

/**
 * `autoDeliver`, `delayMs`, `duplicates`, `reorder` (see QueueSettings); a delivery answered with a
 * non-2xx status (or not at all) is sent again `retries` times after `retryDelayMs`, doubling each time
 * (Shopify retries 8 times over 4 hours).
 */
export type WebhookSettings = QueueSettings & RetrySettings

export interface Subscription {
  readonly id: number
  readonly topic: OrderTopic
  readonly address: string
}

interface PendingDelivery {
  readonly webhookId: string
  readonly eventId: string
  readonly topic: OrderTopic
  readonly address: string
  readonly body: string
  readonly triggeredAt: string
  readonly attempt: number
}

export interface DeliveryRecord {
  readonly webhookId: string
  readonly eventId: string
  readonly topic: string
  readonly address: string
  readonly orderId: number
  readonly attempt: number
  readonly status: number | null
  readonly error: string | null
}

export const signWebhook = (secret: string, rawBody: string | Uint8Array): string =>
  createHmac("sha256", secret).update(rawBody).digest("base64")

export const defaultWebhookSettings = defaultRetryingSettings

export class Webhooks extends SubscribedWebhooks<PendingDelivery, WebhookSettings, DeliveryRecord, Subscription> {
  constructor(
    private readonly shop: string,
    private readonly secret: string,
    private readonly apiVersion: string,
    private readonly now: () => number
  ) {
    super(defaultWebhookSettings)
  }

  subscribe(topic: OrderTopic, address: string): Subscription {
    return this.addSubscription((s) => s.topic === topic && s.address === address, (id) => ({ id, topic, address }))
  }

  /** Called for every order event; queues one delivery per matching subscription. */
  readonly onOrderEvent = (topic: OrderTopic, order: StoredOrder): void => {
    const targets = this.subscriptions.filter((s) => s.topic === topic)
    if (targets.length === 0) return
    const eventId = randomUUID()
    const body = JSON.stringify(restOrder(order))
    const triggeredAt = new Date(this.now()).toISOString()
    this.queue.enqueue(targets.map((s) => ({ webhookId: randomUUID(), eventId, topic, address: s.address, body, triggeredAt, attempt: 1 })))
  }

  protected dispatch(d: PendingDelivery): () => Promise<void> {
    return () => this.send(d)
  }

  /** One attempt; a retry is the same delivery (same ids and body) again, later, while retries remain. */
  private async send(d: PendingDelivery): Promise<void> {
    const orderId = (JSON.parse(d.body) as { id: number }).id
    const result = await this.queue.post(
      d.address,
      {
        "Content-Type": "application/json",
        "X-Shopify-Topic": d.topic,
        "X-Shopify-Hmac-Sha256": signWebhook(this.secret, d.body),
        "X-Shopify-Shop-Domain": this.shop,
        "X-Shopify-API-Version": this.apiVersion,
        "X-Shopify-Webhook-Id": d.webhookId,
        "X-Shopify-Event-Id": d.eventId,
        "X-Shopify-Triggered-At": d.triggeredAt
      },
      d.body,
      true
    )
    const entry = { webhookId: d.webhookId, eventId: d.eventId, topic: d.topic, address: d.address, orderId, attempt: d.attempt }
    this.logAttempt(entry, result, d.attempt, () => void this.send({ ...d, attempt: d.attempt + 1 }))
  }
}
