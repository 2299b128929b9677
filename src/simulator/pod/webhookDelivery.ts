// Signed webhook deliveries as the real service publishes them (shared reference
// pod-real-service.md, sections 1 and 2): queued shortly after each event,
// retried on non-200, and on demand flushed at once with duplicates and in
// reverse order (the real service promises neither order nor uniqueness).
//
// - Body: compact JSON, keys in alphabetical order at every depth (a Go map
//   marshals so), the event name in `type`, every value a string.
// - Headers: X-Connect-Timestamp (unix seconds), X-Connect-Nonce (10 random
//   bytes in base64: 16 characters with `==`), X-Connect-Signature, and
//   X-Connect-Client-Key (the API client key); User-Agent go-resty/2.16.2.
// - Signature: base64url WITH `=` padding of HMAC-SHA256, keyed with the API
//   client secret, over `<URL path> + <nonce> + <timestamp> + <base64url(body)>`,
//   the body's base64url padded too, as the published Go sample does.
import { createHmac, randomBytes } from "node:crypto"
import type { WebhookTopic } from "./enums.js"
import type { SimEvent, SimState, WebhookRecord } from "./state.js"
import type { Json } from "./wire.js"
import { iso } from "./wire.js"

export interface DeliveryOptions {
  /** The HMAC key: the API client secret (the service has no separate webhook secret). */
  readonly signingKey: string
  /** Sent as X-Connect-Client-Key and as the V1 `api_key`: the API client key. */
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
  readonly type: string
  readonly version: string
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
  /** The body's `type`. */
  readonly type: string
  readonly version: string
  /** The order's id at the service (the draft's while it has no order). */
  readonly order_id: string
  readonly attempt: number
  readonly duplicate: boolean
  readonly nonce: string
  readonly at: string
  readonly status: number | null
  readonly error?: string
}

/** What the Go sample's `base64.URLEncoding` writes: the URL alphabet WITH `=` padding (Node's base64url drops it). */
export const base64UrlPadded = (bytes: Uint8Array | string): string =>
  Buffer.from(bytes).toString("base64").replaceAll("+", "-").replaceAll("/", "_")

export const signWebhook = (signingKey: string, urlPath: string, nonce: string, timestamp: string, body: string): string =>
  base64UrlPadded(createHmac("sha256", signingKey).update(urlPath + nonce + timestamp + base64UrlPadded(body)).digest())

/** Compact JSON with object keys in alphabetical order at every depth; undefined members are left out. */
export const sortedJson = (value: Json | undefined): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null)
  if (Array.isArray(value)) return `[${value.map((item: Json) => sortedJson(item)).join(",")}]`
  const record = value as { readonly [key: string]: Json | undefined }
  const members = Object.keys(record).sort().flatMap((key) => {
    const member = record[key]
    return member === undefined ? [] : [`${JSON.stringify(key)}:${sortedJson(member)}`]
  })
  return `{${members.join(",")}}`
}

/**
 * The body's `type` per topic and version. The tracking event's name is not settled in the
 * published material: its documentation path says `tracking_updated`, the bundle's V3 enum
 * `tracking_order_updated`; V1 sends the first and V3 the second, so a receiver meets both.
 */
const EVENT_TYPES: Readonly<Record<WebhookTopic, { readonly v1: string; readonly v3: string }>> = {
  TOPIC_ORDER_COMPLETED: { v1: "order_completed", v3: "order_completed" },
  TOPIC_ORDER_CANCELLED: { v1: "order_cancelled", v3: "order_cancelled" },
  TOPIC_TRACKING_ORDER_UPDATED: { v1: "tracking_updated", v3: "tracking_order_updated" },
  TOPIC_ORDER_ON_HOLD: { v1: "order_on_hold", v3: "order_on_hold" },
  TOPIC_SHIPPING_ADDRESS_VERIFIED: { v1: "shipping_address_verified", v3: "shipping_address_verified" },
  TOPIC_SHIPPING_ADDRESS_UNVERIFIED: { v1: "shipping_address_unverified", v3: "shipping_address_unverified" },
  TOPIC_PRODUCT_OUT_OF_STOCK: { v1: "product_out_of_stock", v3: "product_out_of_stock" }
}

export const eventType = (topic: WebhookTopic, version: string): string =>
  version === "VERSION_V1" ? EVENT_TYPES[topic].v1 : EVENT_TYPES[topic].v3

const isAddressEvent = (topic: WebhookTopic) => topic === "TOPIC_SHIPPING_ADDRESS_VERIFIED" || topic === "TOPIC_SHIPPING_ADDRESS_UNVERIFIED"

/** The order's status in words (`awaiting_fulfillment`, `shipped`); a draft not yet checked out is `pending`, as the published example has it. */
const statusWord = (event: SimEvent): string => event.order?.status.toLowerCase() ?? "pending"

const verifyAddress = (event: SimEvent): string => (event.draft.addressVerified ? "verified" : "unverified")

/**
 * The published V1 envelope `{ api_key, type, data: { gearment_ord_id, gearment_ord_name, ord_status,
 * order_id (the seller's reference), … } }`. Its tracking and stock fields are not published: the
 * flat `tracking_*` and `variant_*` members are this simulator's design.
 */
const v1Payload = (event: SimEvent, clientKey: string): Json => {
  const { draft, order, tracking, variant } = event
  return {
    api_key: clientKey,
    type: eventType(event.topic, "VERSION_V1"),
    data: {
      gearment_ord_id: order?.id ?? draft.id,
      gearment_ord_name: `#${draft.legacyNumber}`,
      ord_status: statusWord(event),
      order_id: draft.referenceId ?? "",
      ...(isAddressEvent(event.topic) ? { verify_address: verifyAddress(event) } : {}),
      ...(tracking === undefined
        ? {}
        : { tracking_company: tracking.carrier, tracking_number: tracking.trackingNo, tracking_url: tracking.url }),
      ...(variant === undefined ? {} : { variant_id: variant.variantId, variant_name: variant.name, variant_sku: variant.sku })
    }
  }
}

/**
 * The published V3 envelope: `{ type, order: { gearment_id, gearment_name, reference, status,
 * vendor_id }, tracking: { company, number, url } }` (tracking on tracking and completed events);
 * the address events carry `{ gearment_id, gearment_name, vendor_id, verify_address, ord_status }`
 * as the published example does. product_out_of_stock's payload is not published: this simulator
 * sends the same `order` plus `variant: { variant_id, sku, name, stock_label }` naming the variant
 * that ran out (one event per order that carries it).
 */
const v3Payload = (event: SimEvent): Json => {
  const { draft, order, tracking, variant } = event
  const ids = { gearment_id: order?.id ?? draft.id, gearment_name: `#${draft.legacyNumber}`, vendor_id: draft.referenceId ?? "" }
  return {
    type: eventType(event.topic, "VERSION_V3"),
    order: isAddressEvent(event.topic)
      ? { ...ids, verify_address: verifyAddress(event), ord_status: statusWord(event) }
      : { ...ids, reference: draft.referenceId ?? "", status: statusWord(event) },
    ...(tracking === undefined ? {} : { tracking: { company: tracking.carrier, number: tracking.trackingNo, url: tracking.url } }),
    ...(variant === undefined
      ? {}
      : { variant: { variant_id: variant.variantId, sku: variant.sku, name: variant.name, stock_label: variant.stockLabel.toLowerCase() } })
  }
}

export const eventPayload = (event: SimEvent, version: string, clientKey: string): Json =>
  version === "VERSION_V1" ? v1Payload(event, clientKey) : v3Payload(event)

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

  /** How many of the batch being delivered are still to be sent. */
  private sending = 0

  attempts(): ReadonlyArray<DeliveryAttempt> {
    return this.log
  }

  /** Deliveries not sent yet, those of a batch being sent one by one included. */
  queued(): number {
    return this.pending.length + this.sending
  }

  reset(): void {
    this.pending = []
    this.sending = 0
    this.log = []
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  close(): void {
    this.reset()
    this.abort.abort()
  }

  private matches(webhook: WebhookRecord, event: SimEvent): boolean {
    return webhook.status === "STATUS_ACTIVE" && webhook.canonicalTopic === event.topic &&
      (webhook.storeId === null || webhook.storeId === event.draft.storeId)
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
        type: eventType(event.topic, webhook.version),
        version: webhook.version,
        orderId: event.order?.id ?? event.draft.id,
        body: sortedJson(eventPayload(event, webhook.version, this.options.clientKey)),
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
    this.sending = due.length
    for (const delivery of due) {
      await this.attempt(delivery, false)
      this.sending -= 1
    }
    this.sending = 0
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
    const nonce = randomBytes(10).toString("base64")
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
        type: delivery.type,
        version: delivery.version,
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
          "user-agent": "go-resty/2.16.2",
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
