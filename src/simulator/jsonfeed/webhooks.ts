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
import { SubscribedWebhooks } from "../kit/queuedWebhooks.js"
import { defaultRetryingSettings, type QueueSettings, type RetrySettings } from "../kit/webhookQueue.js"
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

/** The queue's settings (kit/webhookQueue.ts) with retries: a retry keeps the delivery id and is re-signed. */
export type WebhookSettings = QueueSettings & RetrySettings

export const defaultWebhookSettings = defaultRetryingSettings

export interface Subscription {
  readonly id: number
  readonly address: string
}

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

export class Webhooks extends SubscribedWebhooks<PendingDelivery, WebhookSettings, DeliveryRecord, Subscription> {
  constructor(private readonly secret: string, private readonly now: () => number) {
    super(defaultWebhookSettings)
  }

  subscribe(address: string): Subscription {
    return this.addSubscription((s) => s.address === address, (id) => ({ id, address }))
  }

  /** Queues one delivery per subscription for an order event. */
  readonly onOrderEvent = (event: OrderEvent, order: StoredOrder): void => {
    this.enqueue(event, order.id, iso(order.updatedAt))
  }

  /** Queues a `ping` to every subscription (what a seller sends to test the setup). */
  ping(): void {
    this.enqueue("ping", null, null)
  }

  private enqueue(type: WebhookType, orderId: string | null, updatedAt: string | null): void {
    this.queue.enqueue(
      this.subscriptions.map((s) => ({ deliveryId: `dlv_${randomUUID()}`, type, orderId, updatedAt, address: s.address, attempt: 1 }))
    )
  }

  /** Duplicates of one delivery are the same bytes: it is signed once, not once per copy. */
  protected dispatch(d: PendingDelivery): () => Promise<void> {
    const signed = this.sign(d)
    return () => this.send(d, signed)
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

  /** One attempt; a retry keeps the delivery id, later, re-stamped and re-signed, while retries remain. */
  private async send(d: PendingDelivery, signed: { body: string; headers: Record<string, string> }): Promise<void> {
    const result = await this.queue.post(d.address, signed.headers, signed.body, false)
    this.logAttempt(
      { deliveryId: d.deliveryId, type: d.type, orderId: d.orderId, address: d.address, attempt: d.attempt },
      result,
      d.attempt,
      () => {
        const next = { ...d, attempt: d.attempt + 1 }
        void this.send(next, this.sign(next))
      }
    )
  }
}
