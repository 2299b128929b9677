/**
 * What a POD webhook delivery is about (pure), read from the published V1 and
 * V3 payloads (shared reference pod-real-service.md, section 2):
 *
 * - V3 `{ type, order: { gearment_id, gearment_name, reference, vendor_id, status,
 *   verify_address?, ord_status? }, tracking?: { company, number, url } }`
 * - V1 `{ api_key, type, data: { gearment_ord_id, gearment_ord_name, ord_status,
 *   order_id (the seller's reference), verify_address?, … } }`
 *
 * The event name is the body's `type`, in any case; the spellings the
 * published material disagrees on are all accepted (order_cancelled and
 * order_canceled; tracking_updated and tracking_order_updated), and so are the
 * topic names (TOPIC_ORDER_COMPLETED, VENDOR_WEBHOOK_TOPIC_ORDER_CANCELED).
 * product_out_of_stock's payload is unpublished: its variant is looked for in
 * `variant` / `variants` (V3) and `data.variant_id` / `data.variant` /
 * `data.variants` (V1). Every field is a hint: the state that counts is read
 * from the API.
 */

/** The events podsync tells apart; anything else (variant events, unknown types) is `other`. */
export const PodEvents = [
  "order_completed",
  "order_cancelled",
  "tracking_updated",
  "order_on_hold",
  "shipping_address_verified",
  "shipping_address_unverified",
  "product_out_of_stock",
  "other"
] as const
export type PodEvent = (typeof PodEvents)[number]

/** Every spelling met in the published material (documentation paths, bundle enums, topic names), lower case. */
const SPELLINGS: Readonly<Record<string, PodEvent>> = {
  order_completed: "order_completed",
  order_cancelled: "order_cancelled",
  order_canceled: "order_cancelled",
  tracking_updated: "tracking_updated",
  tracking_order_updated: "tracking_updated",
  order_on_hold: "order_on_hold",
  shipping_address_verified: "shipping_address_verified",
  address_verified: "shipping_address_verified",
  shipping_address_unverified: "shipping_address_unverified",
  address_unverified: "shipping_address_unverified",
  product_out_of_stock: "product_out_of_stock"
}

/** The event a `type` names: case and separators do not matter, nor a `TOPIC_` / `VENDOR_WEBHOOK_TOPIC_` prefix. */
export const podEventOf = (type: string | undefined): PodEvent => {
  if (type === undefined) return "other"
  const name = type.trim().toLowerCase().replace(/[\s.-]+/g, "_").replace(/^(vendor_webhook_)?topic_/, "")
  return SPELLINGS[name] ?? "other"
}

/** What a delivery says, as the pipeline is told it. */
export interface PodWebhookHint {
  /** The body's `type` as sent. */
  readonly topic?: string
  /** The event it names; absent when the body had no readable type. */
  readonly event?: PodEvent
  /** The service's order id (V3 `order.gearment_id`, V1 `data.gearment_ord_id`); a draft's id while it has no order. */
  readonly podOrderId?: string
  /** Our reference id (V3 `order.reference`, else `order.vendor_id`; V1 `data.order_id`). */
  readonly referenceId?: string
  /** The package's tracking number, on tracking and completed events. */
  readonly trackingNumber?: string
  /** The variants a stock event names. */
  readonly variantIds?: ReadonlyArray<string>
  /** `verify_address` of the address events, read as a yes or no. */
  readonly addressVerified?: boolean
}

const record = (value: unknown): Readonly<Record<string, unknown>> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

const idText = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== ""
    ? value.trim()
    : typeof value === "number" && Number.isFinite(value)
    ? String(value)
    : undefined

const first = (...values: ReadonlyArray<unknown>): string | undefined => {
  for (const value of values) {
    const text = idText(value)
    if (text !== undefined) return text
  }
  return undefined
}

/** "verified", true, "1", "VENDOR_SHIPPING_VERIFICATION_STATUS_ADDRESS_VERIFIED" → true; their opposites → false. */
const yesOrNo = (value: unknown): boolean | undefined => {
  if (typeof value === "boolean") return value
  const text = idText(value)?.toLowerCase()
  if (text === undefined) return undefined
  if (/unverified|invalid|^false$|^0$|^no$|^failed$/.test(text)) return false
  if (/verified|valid|^true$|^1$|^yes$/.test(text)) return true
  return undefined
}

/** Variant ids from `variant` (object or id), `variants` (objects or ids) and `variant_id`. */
const variantIdsOf = (...holders: ReadonlyArray<Readonly<Record<string, unknown>> | undefined>): ReadonlyArray<string> => {
  const ids: Array<string> = []
  const add = (value: unknown) => {
    const id = idText(value) ?? first(record(value)?.["variant_id"], record(value)?.["id"])
    if (id !== undefined && !ids.includes(id)) ids.push(id)
  }
  for (const holder of holders) {
    if (holder === undefined) continue
    add(holder["variant_id"])
    add(holder["variant"])
    const many = holder["variants"]
    if (Array.isArray(many)) many.forEach(add)
  }
  return ids
}

/** The hint a V3 or V1 payload gives; nothing from a body of another shape. */
export const podWebhookHint = (payload: unknown): PodWebhookHint => {
  const body = record(payload)
  if (body === undefined) return {}
  const topic = idText(body["type"])
  const v3 = record(body["order"])
  const v1 = record(body["data"])
  const tracking = record(body["tracking"])
  const podOrderId = v3 !== undefined ? first(v3["gearment_id"]) : first(v1?.["gearment_ord_id"])
  const referenceId = v3 !== undefined ? first(v3["reference"], v3["vendor_id"]) : first(v1?.["order_id"])
  const trackingNumber = first(
    tracking?.["number"],
    tracking?.["tracking_number"],
    v1?.["tracking_number"],
    v1?.["tracking_no"],
    record(v1?.["tracking"])?.["number"]
  )
  const event = topic === undefined ? undefined : podEventOf(topic)
  const variantIds = event === "product_out_of_stock" ? variantIdsOf(body, v3, v1) : []
  const addressVerified = event === "shipping_address_verified" || event === "shipping_address_unverified"
    ? yesOrNo((v3 ?? v1)?.["verify_address"])
    : undefined
  return {
    ...(topic === undefined ? {} : { topic }),
    ...(event === undefined ? {} : { event }),
    ...(podOrderId === undefined ? {} : { podOrderId }),
    ...(referenceId === undefined ? {} : { referenceId }),
    ...(trackingNumber === undefined ? {} : { trackingNumber }),
    ...(variantIds.length === 0 ? {} : { variantIds }),
    ...(addressVerified === undefined ? {} : { addressVerified })
  }
}

/** The event a hint is about: its own, else the one its `type` names. */
export const eventOfHint = (hint: PodWebhookHint): PodEvent | undefined =>
  hint.event ?? (hint.topic === undefined ? undefined : podEventOf(hint.topic))

/** Events podsync acts on; the others are recorded and answered 200, nothing more. */
export const isActedOn = (event: PodEvent | undefined): event is Exclude<PodEvent, "other"> => event !== undefined && event !== "other"
