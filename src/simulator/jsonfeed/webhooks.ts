/**
 * Webhook deliveries as docs/jsonfeed.md §8 asks a seller to send them:
 *
 *   POST <podsync>/webhooks/<store key>
 *   Content-Type: application/json
 *   X-Podsync-Delivery: <delivery id, the same on every retry of this event>
 *   X-Podsync-Timestamp: <Unix seconds of this attempt>
 *   X-Podsync-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body, keyed with the shared secret>
 *
 *   {"delivery_id":"…","timestamp":…,"type":"order.updated","order_id":"…","updated_at":"…"}
 *
 * The body repeats the delivery id and timestamp so the signature covers
 * them. A retry keeps the delivery id and is re-stamped and re-signed.
 * Duplicates (the same bytes again) and reordering (newest first) on demand.
 */
import { createHmac, randomUUID } from "node:crypto"
import { iso, type StoredOrder } from "./model.js"
import type { OrderEvent } from "./store.js"
import type { WebhookEnvelope, WebhookType } from "./wire.js"

export const webhookTypes: ReadonlyArray<WebhookType> = ["order.created", "order.updated", "order.cancelled", "ping"]

/** `sha256=<hex>`: the X-Podsync-Signature of a raw body. */
export const signWebhookBody = (secret: string, rawBody: string | Uint8Array): string =>
  `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`

/** The body and headers of one attempt of a delivery. */
export const signedDelivery = (
  secret: string,
  envelope: WebhookEnvelope
): { readonly body: string; readonly headers: Record<string, string> } => {
  const body = JSON.stringify(envelope)
  return {
    body,
    headers: {
      "Content-Type": "application/json",
      "User-Agent": "podsync-jsonfeed-simulator",
      "X-Podsync-Delivery": envelope.delivery_id,
      "X-Podsync-Timestamp": String(envelope.timestamp),
      "X-Podsync-Signature": signWebhookBody(secret, body)
    }
  }
}

export interface WebhookSettings {
  /** Send each delivery `delayMs` after its event; when false, only `deliver()` sends. */
  autoDeliver: boolean
  delayMs: number
  /** Extra copies of every automatic delivery. */
  duplicates: number
  /** Send each automatic batch newest first. */
  reorder: boolean
  /** A delivery answered non-2xx (or not at all) is retried this many times… */
  retries: number
  /** …after retryDelayMs, doubling each time. */
  retryDelayMs: number
}

export const defaultWebhookSettings = (): WebhookSettings => ({
  autoDeliver: true, delayMs: 50, duplicates: 0, reorder: false, retries: 2, retryDelayMs: 1000
})

export interface Subscription { readonly id: number; readonly address: string }

interface PendingDelivery {
  readonly deliveryId: string
  readonly type: WebhookType
  readonly orderId: string | null
  readonly updatedAt: string | null
  readonly address: string
  readonly attempt: number
}

export interface DeliveryRecord {
  readonly deliveryId: string
  readonly type: WebhookType
  readonly orderId: string | null
  readonly address: string
  readonly attempt: number
  readonly status: number | null
  readonly error: string | null
}

export class Webhooks {
  settings: WebhookSettings = defaultWebhookSettings()
  private subscriptions: Array<Subscription> = []
  private pending: Array<PendingDelivery> = []
  private log: Array<DeliveryRecord> = []
  private timer: NodeJS.Timeout | null = null
  private readonly retryTimers = new Set<NodeJS.Timeout>()
  private readonly inFlight = new Set<AbortController>()
  private nextSubscriptionId = 1
  private closed = false

  constructor(private readonly secret: string, private readonly now: () => number) {}

  subscribe(address: string): Subscription {
    const existing = this.subscriptions.find((s) => s.address === address)
    if (existing) return existing
    const subscription = { id: this.nextSubscriptionId++, address }
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

  /** Queues one delivery per subscription for an order event. */
  readonly onOrderEvent = (event: OrderEvent, order: StoredOrder): void => {
    this.enqueue(event, order.id, iso(order.updatedAt))
  }

  /** Queues a `ping` to every subscription (what a seller sends to test the setup). */
  ping(): void { this.enqueue("ping", null, null) }

  private enqueue(type: WebhookType, orderId: string | null, updatedAt: string | null): void {
    if (this.subscriptions.length === 0) return
    for (const s of this.subscriptions) {
      this.pending.push({ deliveryId: `dlv_${randomUUID()}`, type, orderId, updatedAt, address: s.address, attempt: 1 })
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
      const attempt = this.sign(delivery)
      for (let i = 0; i < copies; i++) {
        await this.send(delivery, attempt)
        sent += 1
      }
    }
    return sent
  }

  private sign(d: PendingDelivery) {
    const envelope: WebhookEnvelope = {
      delivery_id: d.deliveryId,
      timestamp: Math.floor(this.now() / 1000),
      type: d.type,
      ...(d.orderId === null ? {} : { order_id: d.orderId }),
      ...(d.updatedAt === null ? {} : { updated_at: d.updatedAt })
    }
    return signedDelivery(this.secret, envelope)
  }

  private async send(d: PendingDelivery, signed: { body: string; headers: Record<string, string> }): Promise<void> {
    const controller = new AbortController()
    this.inFlight.add(controller)
    const timeout = setTimeout(() => controller.abort(), 5000)
    const record = { deliveryId: d.deliveryId, type: d.type, orderId: d.orderId, address: d.address, attempt: d.attempt }
    try {
      const response = await fetch(d.address, { method: "POST", signal: controller.signal, headers: signed.headers, body: signed.body })
      await response.arrayBuffer().catch(() => undefined)
      this.log.push({ ...record, status: response.status, error: null })
      if (!response.ok) this.retryLater(d)
    } catch (error) {
      this.log.push({ ...record, status: null, error: error instanceof Error ? error.message : String(error) })
      this.retryLater(d)
    } finally {
      clearTimeout(timeout)
      this.inFlight.delete(controller)
    }
  }

  /** The same delivery id again, later, re-stamped and re-signed, while retries remain. */
  private retryLater(d: PendingDelivery): void {
    if (this.closed || d.attempt > this.settings.retries) return
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer)
      const next = { ...d, attempt: d.attempt + 1 }
      void this.send(next, this.sign(next))
    }, this.settings.retryDelayMs * 2 ** (d.attempt - 1))
    timer.unref()
    this.retryTimers.add(timer)
  }

  private clearTimers(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    for (const t of this.retryTimers) clearTimeout(t)
    this.retryTimers.clear()
  }

  close(): void {
    this.closed = true
    this.clearTimers()
    for (const controller of [...this.inFlight]) controller.abort()
    this.inFlight.clear()
  }
}
