// Signed webhook deliveries: queued shortly after each event, retried on non-200,
// and on demand flushed at once with duplicates and in reverse order.
// Signature: hex HMAC-SHA256 keyed with the signing key over
// `<URL path> + <nonce> + <timestamp> + <base64url(body)>`; timestamp in seconds.
import { createHmac, randomBytes } from "node:crypto"
import { ORDER_STATUS_PREFIX } from "./enums.js"
import type { SimEvent, SimState, WebhookRecord } from "./state.js"
import type { Json } from "./wire.js"
import { iso } from "./wire.js"

export interface DeliveryOptions {
  readonly signingKey: string
  readonly clientKey: string
  readonly delayMs: number
  readonly retryAttempts: number
  readonly retryBaseDelayMs: number
  readonly timeoutMs: number
}

interface PendingDelivery {
  readonly id: string
  readonly webhookId: string
  readonly url: string
  readonly topic: string
  readonly orderId: string
  readonly body: string
  attempts: number
  nextAt: number
}

export interface DeliveryAttempt {
  readonly delivery_id: string
  readonly webhook_id: string
  readonly url: string
  readonly topic: string
  readonly order_id: string
  readonly attempt: number
  readonly duplicate: boolean
  readonly nonce: string
  readonly at: string
  readonly status: number | null
  readonly error?: string
}

export const signWebhook = (signingKey: string, urlPath: string, nonce: string, timestamp: string, body: string): string =>
  createHmac("sha256", signingKey).update(urlPath + nonce + timestamp + Buffer.from(body, "utf8").toString("base64url")).digest("hex")

const eventType = (topic: string): string => topic.replace(/^TOPIC_/, "").toLowerCase()

export const eventPayload = (event: SimEvent, version: string, now: number): Json => {
  const { order } = event
  const draft = order.draft
  const trackings = order.trackings.map((t) => ({ tracking_number: t.trackingNo, carrier: t.carrier, tracking_url: t.url, tracking_type: t.type }))
  const status = order.status.toLowerCase()
  if (version === "VERSION_V1") {
    return {
      type: eventType(event.topic),
      data: {
        gearment_ord_id: order.id,
        gearment_ord_name: `#${draft.legacyNumber}`,
        ord_status: status,
        verify_address: true,
        order_id: draft.referenceId ?? "",
        trackings
      }
    }
  }
  return {
    type: eventType(event.topic),
    created_at: iso(now),
    order: {
      gearment_id: order.id,
      gearment_name: `#${draft.legacyNumber}`,
      vendor_id: draft.referenceId ?? "",
      verify_address: true,
      ord_status: status,
      order_status: ORDER_STATUS_PREFIX + order.status,
      order_id: order.id,
      draft_id: draft.id,
      store_id: draft.storeId,
      trackings
    }
  }
}

export class WebhookDelivery {
  private pending: Array<PendingDelivery> = []
  private log: Array<DeliveryAttempt> = []
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> = Promise.resolve()
  private readonly abort = new AbortController()
  private counter = 0
  private auto = true

  constructor(private readonly state: SimState, private readonly options: DeliveryOptions) {
    state.onEvent((event) => this.enqueue(event))
  }

  get autoDeliver(): boolean {
    return this.auto
  }

  /** Pausing keeps events queued until a flush; resuming sends what is due. */
  set autoDeliver(enabled: boolean) {
    this.auto = enabled
    if (!enabled && this.timer !== undefined) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
    this.schedule()
  }

  attempts(): ReadonlyArray<DeliveryAttempt> {
    return this.log
  }

  queued(): number {
    return this.pending.length
  }

  reset(): void {
    this.pending = []
    this.log = []
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  close(): void {
    this.reset()
    this.abort.abort()
  }

  private matches(webhook: WebhookRecord, event: SimEvent): boolean {
    return webhook.status === "STATUS_ACTIVE" && webhook.canonicalTopic === event.topic && (webhook.storeId === null || webhook.storeId === event.order.draft.storeId)
  }

  private enqueue(event: SimEvent): void {
    const now = this.state.now()
    for (const webhook of this.state.webhooks.values()) {
      if (!this.matches(webhook, event)) continue
      this.counter += 1
      this.pending.push({
        id: `dlv-${this.counter}`,
        webhookId: webhook.id,
        url: webhook.deliveryUrl,
        topic: webhook.topic,
        orderId: event.order.id,
        body: JSON.stringify(eventPayload(event, webhook.version, now)),
        attempts: 0,
        nextAt: now + this.options.delayMs
      })
    }
    this.schedule()
  }

  private schedule(): void {
    if (!this.auto || this.pending.length === 0 || this.abort.signal.aborted) return
    const next = Math.min(...this.pending.map((p) => p.nextAt))
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.exclusive(() => this.deliverDue())
    }, Math.max(0, next - this.state.now()))
    this.timer.unref()
  }

  /** Runs deliveries one batch at a time so a flush never races the timer. */
  private exclusive(work: () => Promise<unknown>): Promise<void> {
    const run = this.running.then(work).then(() => undefined, () => undefined)
    this.running = run
    return run
  }

  private async deliverDue(): Promise<void> {
    const now = this.state.now()
    const due = this.pending.filter((p) => p.nextAt <= now)
    this.pending = this.pending.filter((p) => p.nextAt > now)
    for (const delivery of due) await this.attempt(delivery, false)
    this.schedule()
  }

  /** Sends everything queued now: each delivery 1 + `duplicates` times, in reverse order on demand. */
  flush(duplicates: number, reorder: boolean): Promise<number> {
    let sent = 0
    return this.exclusive(async () => {
      const batch = reorder ? [...this.pending].reverse() : [...this.pending]
      this.pending = []
      for (const delivery of batch) {
        await this.attempt(delivery, false)
        sent += 1
      }
      for (let copy = 0; copy < duplicates; copy++) {
        for (const delivery of batch) {
          await this.send(delivery, true)
          sent += 1
        }
      }
      this.schedule()
    }).then(() => sent)
  }

  private async attempt(delivery: PendingDelivery, duplicate: boolean): Promise<void> {
    const status = await this.send(delivery, duplicate)
    if (status === 200 || this.abort.signal.aborted) return
    if (delivery.attempts < this.options.retryAttempts) {
      delivery.nextAt = this.state.now() + this.options.retryBaseDelayMs * 2 ** (delivery.attempts - 1)
      this.pending.push(delivery)
    }
  }

  private async send(delivery: PendingDelivery, duplicate: boolean): Promise<number | null> {
    delivery.attempts += 1
    const nonce = randomBytes(16).toString("hex")
    const timestamp = String(Math.floor(this.state.now() / 1000))
    let path: string
    try {
      path = new URL(delivery.url).pathname
    } catch {
      path = "/"
    }
    const record = (status: number | null, error?: string): number | null => {
      this.log.push({
        delivery_id: delivery.id,
        webhook_id: delivery.webhookId,
        url: delivery.url,
        topic: delivery.topic,
        order_id: delivery.orderId,
        attempt: delivery.attempts,
        duplicate,
        nonce,
        at: iso(this.state.now()),
        status,
        ...(error === undefined ? {} : { error })
      })
      return status
    }
    try {
      const response = await fetch(delivery.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-connect-timestamp": timestamp,
          "x-connect-nonce": nonce,
          "x-connect-signature": signWebhook(this.options.signingKey, path, nonce, timestamp, delivery.body),
          "x-connect-client-key": this.options.clientKey
        },
        body: delivery.body,
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.options.timeoutMs)])
      })
      await response.arrayBuffer().catch(() => undefined)
      return record(response.status)
    } catch (error) {
      return record(null, error instanceof Error ? error.message : String(error))
    }
  }
}
