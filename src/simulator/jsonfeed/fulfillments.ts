/**
 * `POST <base>/orders/{id}/fulfillments` with the contract's rules
 * (docs/jsonfeed.md §6), in the order a seller's server should apply them:
 *
 * 1. no usable `Idempotency-Key` → 400 idempotency_key_required;
 * 2. a fulfilment of this order already carries the key → 200 with it, and
 *    nothing else happens (no second fulfilment, no second email), whatever
 *    the body says;
 * 3. a request with the same key is still running → 409 idempotency_key_in_use;
 * 4. a malformed body → 400 invalid_request;
 * 5. the order cannot take it → 422 (order_cancelled, order_on_hold,
 *    unknown_line, quantity_exceeds_fulfillable, nothing_fulfilled_yet for
 *    a package without lines on an order with no fulfillment, §6.5);
 * 6. otherwise store it (with the key), bump the order's updated_at, email
 *    the buyer if notify_customer, and answer 201.
 */
import { fulfillableQuantity, type StoredFulfillment, type StoredOrder, wireFulfillment } from "./model.js"
import type { FeedState } from "./store.js"
import { type ErrorCode, wireError } from "./wire.js"

export interface ApiAnswer {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

const fail = (status: number, code: ErrorCode, message: string): ApiAnswer => ({ status, body: wireError(code, message) })

/** Visible ASCII, 1 to 255 characters: what fits a header and a database column. */
const USABLE_KEY = /^[\x21-\x7e]{1,255}$/

interface FulfillmentRequest {
  readonly lines: ReadonlyArray<{ readonly lineId: string; readonly quantity: number }>
  readonly tracking: { readonly company: string; readonly number: string; readonly url: string | null }
  readonly notifyCustomer: boolean
}

const asObject = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null

const nonEmpty = (value: unknown): value is string => typeof value === "string" && value.trim() !== ""

/** The body as a request, or what is wrong with it. */
export const readFulfillmentRequest = (body: unknown): FulfillmentRequest | string => {
  const b = asObject(body)
  if (b === null) return "the body must be a JSON object"
  if (!Array.isArray(b.lines)) return "lines must be an array"
  const lines: Array<{ lineId: string; quantity: number }> = []
  for (const [index, item] of b.lines.entries()) {
    const line = asObject(item)
    if (line === null || !nonEmpty(line.line_id)) return `lines[${index}].line_id must be a non-empty string`
    if (typeof line.quantity !== "number" || !Number.isInteger(line.quantity) || line.quantity < 1) {
      return `lines[${index}].quantity must be a positive whole number`
    }
    if (lines.some((l) => l.lineId === line.line_id)) return `line ${line.line_id} appears twice`
    lines.push({ lineId: line.line_id, quantity: line.quantity })
  }
  const tracking = asObject(b.tracking)
  if (tracking === null || !nonEmpty(tracking.company) || !nonEmpty(tracking.number)) {
    return "tracking.company and tracking.number must be non-empty strings"
  }
  const url = tracking.url ?? null
  if (url !== null && (typeof url !== "string" || !/^https?:\/\/\S+$/.test(url))) return "tracking.url must be an http(s) URL or null"
  const notify = b.notify_customer ?? false
  if (typeof notify !== "boolean") return "notify_customer must be true or false"
  return { lines, tracking: { company: tracking.company, number: tracking.number, url }, notifyCustomer: notify }
}

/** Why the order cannot take this fulfilment now, or null when it can. */
const refusal = (order: StoredOrder, request: FulfillmentRequest): ApiAnswer | null => {
  if (order.cancelledAt !== null) return fail(422, "order_cancelled", `order ${order.id} is cancelled`)
  // §6.5: a package without lines is a further box of units an earlier fulfillment covers.
  if (request.lines.length === 0 && !order.fulfillments.some((f) => f.status === "success")) {
    return fail(422, "nothing_fulfilled_yet", `order ${order.id} has no fulfillment for a further package to add to`)
  }
  if (order.holds.length > 0) {
    return fail(
      422,
      "order_on_hold",
      `order ${order.id} is on hold: ${order.holds.map((h) => h.reason ?? "no reason").join(", ")}`
    )
  }
  for (const asked of request.lines) {
    const line = order.lines.find((l) => l.id === asked.lineId)
    if (line === undefined) return fail(422, "unknown_line", `order ${order.id} has no line ${asked.lineId}`)
    const left = fulfillableQuantity(order, line)
    if (asked.quantity > left) {
      return fail(422, "quantity_exceeds_fulfillable", `line ${line.id} has ${left} unit(s) left to fulfil, ${asked.quantity} asked`)
    }
  }
  return null
}

export class FulfillmentDesk {
  /** Keys of requests being processed right now, as `<order id> <key>`. */
  private readonly running = new Set<string>()

  /** `trackingOnly`: whether it takes a further box without lines (§6.5), as the contract now says. */
  constructor(private readonly state: FeedState, private readonly trackingOnly = true) {}

  reset(): void {
    this.running.clear()
  }

  /**
   * `pause` is where the work takes time (the simulator's latency fault): the
   * key is already reserved then, so a concurrent duplicate gets 409.
   */
  async create(order: StoredOrder, key: string | undefined, body: unknown, pause: () => Promise<void>): Promise<ApiAnswer> {
    if (key === undefined || !USABLE_KEY.test(key)) {
      return fail(400, "idempotency_key_required", "send an Idempotency-Key header of 1 to 255 visible ASCII characters")
    }
    const earlier = order.fulfillments.find((f) => f.idempotencyKey === key)
    if (earlier !== undefined) {
      this.state.stats.idempotentReplays += 1
      return { status: 200, body: wireFulfillment(earlier) }
    }
    const slot = `${order.id} ${key}`
    if (this.running.has(slot)) {
      this.state.stats.keysInUse += 1
      return fail(
        409,
        "idempotency_key_in_use",
        "a request with this Idempotency-Key is still being processed; read the fulfillments back later"
      )
    }
    const request = readFulfillmentRequest(body)
    if (typeof request === "string") return fail(400, "invalid_request", request)
    if (request.lines.length === 0 && !this.trackingOnly) return fail(400, "invalid_request", "lines must be a non-empty array")
    this.running.add(slot)
    try {
      await pause()
      const refused = refusal(order, request)
      if (refused !== null) return refused
      return { status: 201, body: wireFulfillment(this.store(order, key, request)) }
    } finally {
      this.running.delete(slot)
    }
  }

  private store(order: StoredOrder, key: string, request: FulfillmentRequest): StoredFulfillment {
    const fulfillment: StoredFulfillment = {
      id: `ful_${this.state.nextNumber("fulfillment", 9001)}`,
      orderId: order.id,
      status: "success",
      lines: request.lines,
      tracking: request.tracking,
      notifyCustomer: request.notifyCustomer,
      idempotencyKey: key,
      createdAt: this.state.now()
    }
    order.fulfillments.push(fulfillment)
    const stats = this.state.stats
    stats.fulfillmentsByOrder[order.id] = (stats.fulfillmentsByOrder[order.id] ?? 0) + 1
    // The side effect a duplicate would repeat: one email per fulfilment created, never on a replay.
    if (request.notifyCustomer) stats.buyerEmailsByOrder[order.id] = (stats.buyerEmailsByOrder[order.id] ?? 0) + 1
    this.state.touch(order)
    return fulfillment
  }
}
