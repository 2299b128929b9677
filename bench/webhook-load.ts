// The load generator of the webhook-ingest bench: node:http with a keep-alive agent, as a store's
// delivery fleet would hold its connections. Every request is a new signed Shopify orders/updated
// delivery (a new event id); two shapes of load:
//
//  - closed: `connections` loops, each sending its next request when the last was answered (the
//    most the receiver takes in);
//  - open: requests started at a steady `rate` per second whatever the answers (latency under a
//    load the receiver should hold), at most `connections` sockets.
import { createHmac, randomUUID } from "node:crypto"
import { Agent, request } from "node:http"

export interface LoadResult {
  readonly sent: number
  readonly ok: number
  readonly non2xx: number
  /** Status → count, for the answers that were not 2xx. */
  readonly statuses: Record<string, number>
  readonly errors: number
  readonly seconds: number
  /** 2xx answers per second. */
  readonly acceptedPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
}

export interface Target {
  readonly url: string
  readonly secret: string
  readonly shop: string
}

const ORDER_IDS = 1000

/** A ~2 KB orders/updated body, as Shopify sends (a few line items, addresses, money fields). */
const orderBody = (orderId: number) =>
  JSON.stringify({
    id: 5_610_000_000 + orderId,
    admin_graphql_api_id: `gid://shopify/Order/${5_610_000_000 + orderId}`,
    name: `#${1000 + orderId}`,
    email: `buyer${orderId}@example.com`,
    created_at: "2026-11-21T10:00:00-05:00",
    updated_at: new Date().toISOString(),
    financial_status: "paid",
    fulfillment_status: null,
    currency: "USD",
    total_price: "54.90",
    subtotal_price: "49.90",
    total_tax: "5.00",
    shipping_address: {
      first_name: "Ada",
      last_name: "Lovelace",
      address1: "12 Analytical Row",
      city: "Portland",
      province_code: "OR",
      zip: "97201",
      country_code: "US",
      phone: "+1 503 555 0100"
    },
    line_items: [1, 2, 3].map((n) => ({
      id: orderId * 10 + n,
      variant_id: 44_000_000 + n,
      sku: ["UTS01-FOREST-S", "UTS01-DARKHE-M", "UTS01-WHITE-S"][n - 1],
      title: "Unisex tee",
      quantity: n,
      price: "16.63",
      properties: [{ name: "front", value: `https://cdn.example.com/art/${orderId}-${n}.png` }]
    })),
    shipping_lines: [{ title: "Standard", code: "standard", price: "5.00" }],
    note: null,
    tags: "flash-sale"
  })

/** A new signed delivery: its body and headers. `eventId` defaults to a fresh one. */
export const signedDelivery = (target: Target, eventId: string = randomUUID()) => {
  const body = Buffer.from(orderBody(Math.floor(Math.random() * ORDER_IDS)))
  return {
    body,
    headers: {
      "content-type": "application/json",
      "content-length": String(body.length),
      "x-shopify-topic": "orders/updated",
      "x-shopify-hmac-sha256": createHmac("sha256", target.secret).update(body).digest("base64"),
      "x-shopify-shop-domain": target.shop,
      "x-shopify-webhook-id": randomUUID(),
      "x-shopify-event-id": eventId,
      "x-shopify-triggered-at": new Date().toISOString()
    }
  }
}

interface Answer {
  readonly status: number
  readonly ms: number
  /** The body and the Retry-After header, when the caller asked for them. */
  readonly body?: string
  readonly retryAfter?: string | undefined
}

/** Sends one delivery; answers its status (0 on a socket error) and time. */
export const send = (agent: Agent, target: Target, delivery = signedDelivery(target), keepBody = false): Promise<Answer> =>
  new Promise((resolve) => {
    const started = performance.now()
    const req = request(target.url, { method: "POST", agent, headers: delivery.headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => keepBody && chunks.push(c))
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          ms: performance.now() - started,
          ...(keepBody ? { body: Buffer.concat(chunks).toString("utf8"), retryAfter: res.headers["retry-after"] } : {})
        }))
      res.on("error", () => resolve({ status: 0, ms: performance.now() - started }))
    })
    req.on("error", () => resolve({ status: 0, ms: performance.now() - started }))
    req.end(delivery.body)
  })

const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN

const round1 = (n: number) => Math.round(n * 10) / 10

class Tally {
  private readonly times: Array<number> = []
  private sent = 0
  private ok = 0
  private errors = 0
  private readonly statuses: Record<string, number> = {}
  add(answer: Answer) {
    this.sent++
    if (answer.status === 0) this.errors++
    else if (answer.status >= 200 && answer.status < 300) this.ok++
    else this.statuses[answer.status] = (this.statuses[answer.status] ?? 0) + 1
    this.times.push(answer.ms)
  }
  result(seconds: number): LoadResult {
    const sorted = Float64Array.from(this.times).sort()
    const non2xx = Object.values(this.statuses).reduce((a, b) => a + b, 0)
    return {
      sent: this.sent,
      ok: this.ok,
      non2xx,
      statuses: this.statuses,
      errors: this.errors,
      seconds: round1(seconds),
      acceptedPerSecond: Math.round(this.ok / seconds),
      p50Ms: round1(percentile(sorted, 0.5)),
      p99Ms: round1(percentile(sorted, 0.99)),
      maxMs: round1(sorted.at(-1) ?? NaN)
    }
  }
}

const agentFor = (connections: number) => new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections })

/**
 * `connections` loops, each sending as soon as its last request was answered, for `seconds` or
 * until `total` requests were sent, whichever comes first.
 */
export const closedLoad = async (
  target: Target,
  options: { readonly connections: number; readonly seconds: number; readonly total?: number }
): Promise<LoadResult> => {
  const agent = agentFor(options.connections)
  const tally = new Tally()
  const started = performance.now()
  const deadline = started + options.seconds * 1000
  let issued = 0
  const loop = async () => {
    while (performance.now() < deadline && (options.total === undefined || issued < options.total)) {
      issued++
      tally.add(await send(agent, target))
    }
  }
  await Promise.all(Array.from({ length: options.connections }, loop))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return tally.result(seconds)
}

/**
 * Requests started at `rate` per second for `seconds` (in ticks of 10 ms, so the pace is even),
 * on at most `connections` sockets: a request waits for a free socket when all are busy, and that
 * wait counts in its latency (no coordinated omission).
 */
export const openLoad = async (
  target: Target,
  options: { readonly rate: number; readonly seconds: number; readonly connections: number }
): Promise<LoadResult> => {
  const agent = agentFor(options.connections)
  const tally = new Tally()
  const inFlight: Array<Promise<void>> = []
  const started = performance.now()
  const total = Math.round(options.rate * options.seconds)
  let issued = 0
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * options.rate))
      while (issued < due) {
        issued++
        inFlight.push(send(agent, target).then((answer) => tally.add(answer)))
      }
      if (issued >= total) resolve()
      else setTimeout(tick, 10)
    }
    tick()
  })
  await Promise.all(inFlight)
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return tally.result(seconds)
}
