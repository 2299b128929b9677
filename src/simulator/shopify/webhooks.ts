import { createHmac, randomUUID } from "node:crypto"
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

export interface WebhookSettings {
  /** Send each delivery automatically `delayMs` after its event; when false, only `deliver()` sends. */
  autoDeliver: boolean
  delayMs: number
  /** Extra copies of every automatic delivery. */
  duplicates: number
  /** Send each automatic batch newest first. */
  reorder: boolean
  /** A delivery answered with a non-2xx status (or not at all) is sent again up to this many times… */
  retries: number
  /** …after retryDelayMs, doubling each time (Shopify retries 8 times over 4 hours). */
  retryDelayMs: number
}

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
  private pending: PendingDelivery[] = []
  private log: DeliveryRecord[] = []
  private timer: NodeJS.Timeout | null = null
  private readonly inFlight = new Set<AbortController>()
  private readonly retryTimers = new Set<NodeJS.Timeout>()
  private nextSubscriptionId = 1
  private closed = false
  settings: WebhookSettings = defaultWebhookSettings()

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
  pendingCount(): number { return this.pending.length }

  reset(): void {
    this.subscriptions = []
    this.pending = []
    this.log = []
    this.settings = defaultWebhookSettings()
    this.clearTimers()
  }

  private clearTimers(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    for (const t of this.retryTimers) clearTimeout(t)
    this.retryTimers.clear()
  }

  /** Called for every order event; queues one delivery per matching subscription. */
  readonly onOrderEvent = (topic: OrderTopic, order: StoredOrder): void => {
    const targets = this.subscriptions.filter((s) => s.topic === topic)
    if (targets.length === 0) return
    const eventId = randomUUID()
    const body = JSON.stringify(restOrder(order))
    const triggeredAt = new Date(this.now()).toISOString()
    for (const s of targets) {
      this.pending.push({ webhookId: randomUUID(), eventId, topic, address: s.address, body, triggeredAt, attempt: 1 })
    }
    if (this.settings.autoDeliver && this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null
        void this.deliver({ duplicates: this.settings.duplicates, reorder: this.settings.reorder })
      }, this.settings.delayMs)
      this.timer.unref()
    }
  }

  /** Sends every queued delivery now, in sequence; returns how many requests were made. */
  async deliver(options: { duplicates?: number; reorder?: boolean } = {}): Promise<number> {
    const batch = this.pending
    this.pending = []
    const ordered = options.reorder ? [...batch].reverse() : batch
    const copies = 1 + Math.max(0, options.duplicates ?? 0)
    let sent = 0
    for (const delivery of ordered) {
      for (let i = 0; i < copies; i++) {
        await this.send(delivery)
        sent += 1
      }
    }
    return sent
  }

  private async send(d: PendingDelivery): Promise<void> {
    const controller = new AbortController()
    this.inFlight.add(controller)
    const timeout = setTimeout(() => controller.abort(), 5000)
    const orderId = (JSON.parse(d.body) as { id: number }).id
    const record = { webhookId: d.webhookId, eventId: d.eventId, topic: d.topic, address: d.address, orderId, attempt: d.attempt }
    try {
      const response = await fetch(d.address, {
        method: "POST",
        signal: controller.signal,
        headers: {
          "Content-Type": "application/json",
          "X-Shopify-Topic": d.topic,
          "X-Shopify-Hmac-Sha256": signWebhook(this.secret, d.body),
          "X-Shopify-Shop-Domain": this.shop,
          "X-Shopify-API-Version": this.apiVersion,
          "X-Shopify-Webhook-Id": d.webhookId,
          "X-Shopify-Event-Id": d.eventId,
          "X-Shopify-Triggered-At": d.triggeredAt
        },
        body: d.body
      })
      await response.arrayBuffer().catch(() => undefined)
      this.log.push({ ...record, status: response.status, error: null })
      if (!response.ok) this.retryLater(d)
    } catch (error) {
      const message = error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ""}` : String(error)
      this.log.push({ ...record, status: null, error: message })
      this.retryLater(d)
    } finally {
      clearTimeout(timeout)
      this.inFlight.delete(controller)
    }
  }

  /** The same delivery (same ids and body) again, later, while retries remain. */
  private retryLater(d: PendingDelivery): void {
    if (this.closed || d.attempt > this.settings.retries) return
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer)
      void this.send({ ...d, attempt: d.attempt + 1 })
    }, this.settings.retryDelayMs * 2 ** (d.attempt - 1))
    timer.unref()
    this.retryTimers.add(timer)
  }

  close(): void {
    this.closed = true
    this.clearTimers()
    const controllers = [...this.inFlight]
    this.inFlight.clear()
    for (const controller of controllers) controller.abort()
  }
}
