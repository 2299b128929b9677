import { createHmac, randomUUID } from "node:crypto"
import { SubscribedWebhooks } from "../kit/queuedWebhooks.js"
import { defaultRetryingSettings, type QueueSettings, type RetrySettings } from "../kit/webhookQueue.js"
import type { StoredReceipt } from "./model.js"
import type { ReceiptEvent } from "./store.js"

/**
 * Etsy webhooks (commercial apps only), one endpoint per app for all the shops that authorised it,
 * signed the "Standard Webhooks" way: headers `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature` = `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the endpoint
 * secret without its `whsec_` prefix, base64-decoded. Every attempt is signed afresh with its own
 * timestamp; retries and duplicates keep the `webhook-id`. With `previousSecret` set (a rotation), the
 * header carries two space-separated signatures, the old one first.
 *
 * The body is what Etsy's webhook page publishes (store-apis.md §0): `{event_type: "ORDER_PAID",
 * event_id, created_at (Unix seconds), data: {shop_id, receipt_id, resource_url}}`; with the setting
 * `payload: "thin"`, the flat form deliveries were seen in (`{event_type: "order.paid", resource_url,
 * shop_id}`, store-apis.md §3.5).
 */

export const webhookEvents: ReadonlyArray<ReceiptEvent> = ["order.paid", "order.canceled", "order.shipped"]

/** An event's name in the published envelope: `order.paid` → `ORDER_PAID`. */
export const envelopeEventType = (event: ReceiptEvent): string => event.toUpperCase().replace(".", "_")

export type WebhookPayload = "envelope" | "thin"

export interface WebhookSettings extends QueueSettings, RetrySettings {
  previousSecret: string | null
  payload: WebhookPayload
}

export interface Subscription {
  readonly id: number
  readonly url: string
  readonly events: ReadonlyArray<ReceiptEvent>
}

interface PendingDelivery {
  readonly messageId: string
  readonly event: ReceiptEvent
  readonly url: string
  readonly body: string
  readonly receiptId: number
  readonly attempt: number
}

export interface DeliveryRecord {
  readonly messageId: string
  readonly event: string
  readonly url: string
  readonly receiptId: number
  readonly attempt: number
  readonly status: number | null
  readonly error: string | null
}

export const webhookSignature = (secret: string, messageId: string, timestamp: number, body: string): string => {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64")
  return `v1,${createHmac("sha256", key).update(`${messageId}.${timestamp}.${body}`).digest("base64")}`
}

export const defaultWebhookSettings = (): WebhookSettings => ({ ...defaultRetryingSettings(), previousSecret: null, payload: "envelope" })

export class Webhooks extends SubscribedWebhooks<PendingDelivery, WebhookSettings, DeliveryRecord, Subscription> {
  constructor(
    private readonly secret: string,
    private readonly resourceBase: () => string,
    private readonly now: () => number
  ) {
    super(defaultWebhookSettings)
  }

  subscribe(url: string, events: ReadonlyArray<ReceiptEvent>): Subscription {
    return this.addSubscription(null, (id) => ({ id, url, events }))
  }

  /** The listener of one shop's receipt events. */
  readonly forShop = (shopId: number) => (event: ReceiptEvent, receipt: StoredReceipt): void => {
    const targets = this.subscriptions.filter((s) => s.events.includes(event))
    if (targets.length === 0) return
    const resourceUrl = `${this.resourceBase()}/v3/application/shops/${shopId}/receipts/${receipt.receipt_id}`
    const body = JSON.stringify(
      this.settings.payload === "thin"
        ? { event_type: event, resource_url: resourceUrl, shop_id: shopId }
        : {
          event_type: envelopeEventType(event),
          event_id: randomUUID(),
          created_at: Math.floor(this.now() / 1000),
          data: { shop_id: shopId, receipt_id: receipt.receipt_id, resource_url: resourceUrl }
        }
    )
    this.queue.enqueue(targets.map((s) => ({
      messageId: `msg_${randomUUID().replace(/-/g, "")}`,
      event,
      url: s.url,
      body,
      receiptId: receipt.receipt_id,
      attempt: 1
    })))
  }

  protected dispatch(d: PendingDelivery): () => Promise<void> {
    return () => this.send(d)
  }

  private signatureHeader(messageId: string, timestamp: number, body: string): string {
    const current = webhookSignature(this.secret, messageId, timestamp, body)
    const previous = this.settings.previousSecret
    return previous === null ? current : `${webhookSignature(previous, messageId, timestamp, body)} ${current}`
  }

  /** One attempt, signed afresh with its own timestamp; retries keep the `webhook-id`. */
  private async send(d: PendingDelivery): Promise<void> {
    const timestamp = Math.floor(this.now() / 1000)
    const result = await this.queue.post(
      d.url,
      {
        "content-type": "application/json",
        "webhook-id": d.messageId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": this.signatureHeader(d.messageId, timestamp, d.body)
      },
      d.body,
      false
    )
    const entry = { messageId: d.messageId, event: d.event, url: d.url, receiptId: d.receiptId, attempt: d.attempt }
    this.logAttempt(entry, result, d.attempt, () => void this.send({ ...d, attempt: d.attempt + 1 }))
  }
}
