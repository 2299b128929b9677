import { createHmac, randomUUID } from "node:crypto"
import type { StoredReceipt } from "./model.js"
import type { ReceiptEvent } from "./store.js"

/**
 * Etsy webhooks (store-apis.md §3.5; commercial apps only): a thin payload `{event_type, resource_url,
 * shop_id}` signed the "Standard Webhooks" way: headers `webhook-id`, `webhook-timestamp` (Unix
 * seconds) and `webhook-signature` = `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the
 * endpoint secret without its `whsec_` prefix, base64-decoded. Every attempt is signed afresh with its
 * own timestamp; retries and duplicates keep the `webhook-id`. With `previousSecret` set (a rotation),
 * the header carries two space-separated signatures, the old one first.
 */

export const webhookEvents: ReadonlyArray<ReceiptEvent> = ["order.paid", "order.canceled", "order.shipped"]

export interface WebhookSettings {
  autoDeliver: boolean
  delayMs: number
  duplicates: number
  reorder: boolean
  retries: number
  retryDelayMs: number
  previousSecret: string | null
}

export interface Subscription { readonly id: number; readonly url: string; readonly events: ReadonlyArray<ReceiptEvent> }

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

export const defaultWebhookSettings = (): WebhookSettings => ({
  autoDeliver: true, delayMs: 50, duplicates: 0, reorder: false, retries: 2, retryDelayMs: 1000, previousSecret: null
})

export class Webhooks {
  private subscriptions: Subscription[] = []
  private pending: PendingDelivery[] = []
  private log: DeliveryRecord[] = []
  private timer: NodeJS.Timeout | null = null
  private readonly retryTimers = new Set<NodeJS.Timeout>()
  private readonly inFlight = new Set<AbortController>()
  private nextId = 1
  private closed = false
  settings: WebhookSettings = defaultWebhookSettings()

  constructor(
    private readonly secret: string,
    private readonly shopId: number,
    private readonly resourceBase: () => string,
    private readonly now: () => number
  ) {}

  subscribe(url: string, events: ReadonlyArray<ReceiptEvent>): Subscription {
    const subscription = { id: this.nextId++, url, events }
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

  readonly onReceiptEvent = (event: ReceiptEvent, receipt: StoredReceipt): void => {
    const targets = this.subscriptions.filter((s) => s.events.includes(event))
    if (targets.length === 0) return
    const body = JSON.stringify({
      event_type: event,
      resource_url: `${this.resourceBase()}/v3/application/shops/${this.shopId}/receipts/${receipt.receipt_id}`,
      shop_id: this.shopId
    })
    for (const s of targets) {
      this.pending.push({ messageId: `msg_${randomUUID().replace(/-/g, "")}`, event, url: s.url, body, receiptId: receipt.receipt_id, attempt: 1 })
    }
    if (this.settings.autoDeliver && this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null
        void this.deliver({ duplicates: this.settings.duplicates, reorder: this.settings.reorder })
      }, this.settings.delayMs)
      this.timer.unref()
    }
  }

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

  private signatureHeader(messageId: string, timestamp: number, body: string): string {
    const current = webhookSignature(this.secret, messageId, timestamp, body)
    const previous = this.settings.previousSecret
    return previous === null ? current : `${webhookSignature(previous, messageId, timestamp, body)} ${current}`
  }

  private async send(d: PendingDelivery): Promise<void> {
    const controller = new AbortController()
    this.inFlight.add(controller)
    const timeout = setTimeout(() => controller.abort(), 5000)
    const timestamp = Math.floor(this.now() / 1000)
    const record = { messageId: d.messageId, event: d.event, url: d.url, receiptId: d.receiptId, attempt: d.attempt }
    try {
      const response = await fetch(d.url, {
        method: "POST",
        signal: controller.signal,
        headers: {
          "content-type": "application/json",
          "webhook-id": d.messageId,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": this.signatureHeader(d.messageId, timestamp, d.body)
        },
        body: d.body
      })
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
    for (const controller of this.inFlight) controller.abort()
    this.inFlight.clear()
  }
}
