import { createHmac, randomUUID } from "node:crypto"
import { WebhookQueue, type DeliverOptions, type QueueSettings, type RetrySettings } from "../kit/webhookQueue.js"
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

export interface Subscription { readonly id: number; readonly topic: OrderTopic; readonly address: string }

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

export const defaultWebhookSettings = (): WebhookSettings => ({
  autoDeliver: true, delayMs: 50, duplicates: 0, reorder: false, retries: 2, retryDelayMs: 1000
})

export class Webhooks {
  private subscriptions: Subscription[] = []
  private log: DeliveryRecord[] = []
  private nextSubscriptionId = 1
  settings: WebhookSettings = defaultWebhookSettings()
  private readonly queue = new WebhookQueue<PendingDelivery>(() => this.settings, (d) => () => this.send(d))

  constructor(
    private readonly shop: string,
    private readonly secret: string,
    private readonly apiVersion: string,
    private readonly now: () => number
  ) {}

  subscribe(topic: OrderTopic, address: string): Subscription {
    const existing = this.subscriptions.find((s) => s.topic === topic && s.address === address)
    if (existing) return existing
    const subscription = { id: this.nextSubscriptionId++, topic, address }
    this.subscriptions.push(subscription)
    return subscription
  }

  listSubscriptions(): ReadonlyArray<Subscription> { return this.subscriptions }
  deliveries(): ReadonlyArray<DeliveryRecord> { return this.log }
  pendingCount(): number { return this.queue.pendingCount() }

  reset(): void {
    this.subscriptions = []
    this.log = []
    this.settings = defaultWebhookSettings()
    this.queue.reset()
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

  /** Sends every queued delivery now, in sequence; returns how many requests were made. */
  deliver(options: DeliverOptions = {}): Promise<number> { return this.queue.deliver(options) }

  /** One attempt; a retry is the same delivery (same ids and body) again, later, while retries remain. */
  private async send(d: PendingDelivery): Promise<void> {
    const orderId = (JSON.parse(d.body) as { id: number }).id
    const result = await this.queue.post(d.address, {
      "Content-Type": "application/json",
      "X-Shopify-Topic": d.topic,
      "X-Shopify-Hmac-Sha256": signWebhook(this.secret, d.body),
      "X-Shopify-Shop-Domain": this.shop,
      "X-Shopify-API-Version": this.apiVersion,
      "X-Shopify-Webhook-Id": d.webhookId,
      "X-Shopify-Event-Id": d.eventId,
      "X-Shopify-Triggered-At": d.triggeredAt
    }, d.body, true)
    this.log.push({ webhookId: d.webhookId, eventId: d.eventId, topic: d.topic, address: d.address, orderId, attempt: d.attempt, ...result })
    if (result.status === null || result.status < 200 || result.status >= 300) {
      this.queue.retryLater(d.attempt, () => void this.send({ ...d, attempt: d.attempt + 1 }))
    }
  }

  close(): void { this.queue.close() }
}
