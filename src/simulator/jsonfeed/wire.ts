/**
 * The JSON shapes of the podsync JSON feed contract (docs/jsonfeed.md), as a
 * seller's server sends and receives them. snake_case, timestamps ISO-8601,
 * money as decimal strings, ids as strings.
 */

export type FulfillmentStatus = "unfulfilled" | "partial" | "fulfilled" | "in_progress" | "on_hold" | "scheduled" | "restocked"

export const financialStatuses = [
  "pending",
  "authorized",
  "paid",
  "partially_paid",
  "partially_refunded",
  "refunded",
  "voided",
  "expired"
] as const
export type FinancialStatus = (typeof financialStatuses)[number]

export interface WireAttribute {
  readonly key: string
  readonly value: string
}

/** docs/jsonfeed.md §3.2 */
export interface WireAddress {
  readonly name: string
  readonly first_name?: string | null
  readonly last_name?: string | null
  readonly company?: string | null
  readonly line1: string | null
  readonly line2?: string | null
  readonly city: string | null
  readonly region?: string | null
  readonly region_code?: string | null
  readonly postal_code?: string | null
  readonly country_code: string | null
  readonly country?: string | null
  readonly phone?: string | null
}

/** docs/jsonfeed.md §3.3 */
export interface WireLine {
  readonly id: string
  readonly sku: string | null
  readonly variant_id: string | null
  readonly product_id: string | null
  readonly title: string
  readonly variant_title: string | null
  readonly quantity: number
  readonly current_quantity: number
  readonly fulfilled_quantity: number
  readonly requires_shipping: boolean
  readonly unit_price: string
  readonly attributes: ReadonlyArray<WireAttribute>
}

/** docs/jsonfeed.md §3.1 */
export interface WireOrder {
  readonly id: string
  readonly name: string
  readonly created_at: string
  readonly updated_at: string
  readonly currency: string
  readonly financial_status: FinancialStatus
  readonly fulfillment_status: FulfillmentStatus
  readonly cancelled_at: string | null
  readonly cancel_reason: string | null
  readonly holds: ReadonlyArray<{ readonly id: string; readonly reason: string | null }>
  readonly email: string | null
  readonly ship_to: WireAddress | null
  readonly shipping_method: { readonly title: string; readonly code: string | null } | null
  readonly lines: ReadonlyArray<WireLine>
  readonly note: string | null
  readonly tags: ReadonlyArray<string>
  readonly attributes: ReadonlyArray<WireAttribute>
  readonly total: string
}

/** docs/jsonfeed.md §4: one page of `GET <base>/orders`. */
export interface WireOrdersPage {
  readonly orders: ReadonlyArray<WireOrder>
  readonly next_cursor: string | null
  readonly upper_bound: string
}

export interface WireTracking {
  readonly company: string
  readonly number: string
  readonly url: string | null
}

/** docs/jsonfeed.md §6 */
export interface WireFulfillment {
  readonly id: string
  readonly order_id: string
  readonly status: "success" | "cancelled"
  readonly lines: ReadonlyArray<{ readonly line_id: string; readonly quantity: number }>
  readonly tracking: WireTracking
  readonly notify_customer: boolean
  readonly idempotency_key: string | null
  readonly created_at: string
}

/** Error codes of docs/jsonfeed.md §2.5. */
export type ErrorCode =
  | "invalid_request"
  | "invalid_cursor"
  | "idempotency_key_required"
  | "unauthorized"
  | "not_found"
  | "order_not_found"
  | "idempotency_key_in_use"
  | "order_cancelled"
  | "order_on_hold"
  | "unknown_line"
  | "quantity_exceeds_fulfillable"
  | "nothing_fulfilled_yet"
  | "rate_limited"
  | "internal_error"

export interface WireError {
  readonly error: { readonly code: ErrorCode; readonly message: string }
}

export const wireError = (code: ErrorCode, message: string): WireError => ({ error: { code, message } })

export type WebhookType = "order.created" | "order.updated" | "order.cancelled" | "ping"

/**
 * docs/jsonfeed.md §8: the signed body of a webhook delivery. `delivery_id`
 * and `timestamp` repeat the X-Podsync-Delivery and X-Podsync-Timestamp
 * headers so that the signature (over the body) covers them.
 */
export interface WebhookEnvelope {
  readonly delivery_id: string
  readonly timestamp: number
  readonly type: WebhookType
  readonly order_id?: string
  readonly updated_at?: string
}
