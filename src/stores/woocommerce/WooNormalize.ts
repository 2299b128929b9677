/**
 * Pure: a WooCommerce REST v3 order (with each refund's line items merged in from `/refunds`) to a
 * `NormalizedOrder`. Faithful: every status comes through; the pipeline decides what to produce.
 *
 * | status          | financial                                   | fulfilment  | cancelled |
 * |-----------------|---------------------------------------------|-------------|-----------|
 * | pending, checkout-draft | pending                             | unfulfilled | no        |
 * | on-hold         | paid if `date_paid`, else pending (a hold)  | on_hold     | no        |
 * | processing      | paid, partially_refunded after a refund     | unfulfilled | no        |
 * | completed       | paid, partially_refunded after a refund     | fulfilled   | no        |
 * | refunded        | refunded                                    | unfulfilled | yes       |
 * | cancelled, trash| voided if never paid, else paid / partially_refunded | unfulfilled | yes |
 * | failed          | voided                                      | unfulfilled | yes       |
 * | (plugin status) | paid if `date_paid`, else unknown           | unknown     | no        |
 *
 * - Timestamps are the `*_gmt` fields, which WooCommerce writes without a zone designator: read as UTC.
 * - A line's `variantId` is its `variation_id`, or its `product_id` for a simple product (that is the
 *   purchasable id the variant-matching table names); `currentQuantity` is quantity minus refunded
 *   units; nothing is left to fulfil once the order is completed, cancelled, refunded, failed or trashed.
 * - Attributes are the line's `meta_data` in store order (variation attributes and the personalisation
 *   a product add-ons plugin stores), values as text (objects as JSON), without the hidden (`_…`) keys
 *   WooCommerce and plugins keep there for themselves (`_reduced_stock`); order-level attributes are
 *   likewise the order meta whose key is not hidden.
 * - `shipTo` is the shipping address, null when the order has none (no fallback to billing).
 */
import { Either } from "effect"
import * as Money from "../../domain/Money.js"
import type {
  Attribute,
  FinancialStatus,
  FulfillmentStatus,
  NormalizedLine,
  NormalizedOrder,
  ShipTo
} from "../../domain/NormalizedOrder.js"
import { canonicalTimestamp } from "../../domain/StoreTypes.js"
import type { WooAddress, WooLineItem, WooMeta, WooOrder } from "./WooSchemas.js"

/** Statuses after which nothing is left to ship. */
export const CLOSED_STATUSES: ReadonlySet<string> = new Set(["completed", "cancelled", "refunded", "failed", "trash"])
/** Statuses reported as cancelled orders. */
export const CANCELLED_STATUSES: ReadonlySet<string> = new Set(["cancelled", "refunded", "failed", "trash"])

/** `2026-03-01T09:30:00` (a `*_gmt` field) → `2026-03-01T09:30:00Z`; a designator, if any, is honoured. */
export const gmtTimestamp = (text: string): string | undefined =>
  canonicalTimestamp(/(Z|[+-]\d{2}:?\d{2})$/i.test(text.trim()) ? text.trim() : `${text.trim()}Z`)

const present = (value: string | number | null | undefined): string | undefined => {
  if (value === null || value === undefined) return undefined
  const text = String(value).trim()
  return text === "" ? undefined : text
}

const defined = <T extends Record<string, unknown>>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>
  }

/** A meta value as text: strings as they are, scalars printed, arrays and objects as JSON. */
export const metaText = (value: unknown): string => {
  if (value === null || value === undefined) return ""
  if (typeof value === "string") return value
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  return JSON.stringify(value)
}

/** The meta a seller or buyer gave, as attributes: WordPress's hidden keys (`_…`) are the software's own. */
const attributesOf = (meta: ReadonlyArray<WooMeta>): Array<Attribute> =>
  meta.filter((m) => !m.key.startsWith("_")).map((m) => ({ key: m.key, value: metaText(m.value) }))

export const financialStatusOf = (order: Pick<WooOrder, "status" | "date_paid_gmt" | "refunds">): FinancialStatus => {
  const paid = present(order.date_paid_gmt) !== undefined
  const refunded = order.refunds.length > 0
  switch (order.status) {
    case "pending":
    case "checkout-draft":
      return "pending"
    case "on-hold":
      return paid ? "paid" : "pending"
    case "processing":
    case "completed":
      return refunded ? "partially_refunded" : "paid"
    case "refunded":
      return "refunded"
    case "cancelled":
    case "trash":
      return !paid ? "voided" : refunded ? "partially_refunded" : "paid"
    case "failed":
      return "voided"
    default:
      return paid ? "paid" : "unknown"
  }
}

export const fulfillmentStatusOf = (status: string): FulfillmentStatus => {
  if (status === "completed") return "fulfilled"
  if (status === "on-hold") return "on_hold"
  if (["pending", "processing", "checkout-draft", ...CANCELLED_STATUSES].includes(status)) return "unfulfilled"
  return "unknown"
}

/** Units refunded per line item id, from the refunds' line items (`_refunded_item_id`, negative quantity). */
export const refundedUnits = (order: Pick<WooOrder, "refunds">): Map<string, number> => {
  const units = new Map<string, number>()
  for (const refund of order.refunds) {
    for (const line of refund.line_items ?? []) {
      const target = line.meta_data.find((m) => m.key === "_refunded_item_id")
      if (target === undefined) continue
      const id = metaText(target.value)
      units.set(id, (units.get(id) ?? 0) + Math.abs(line.quantity))
    }
  }
  return units
}

export const normalizeAddress = (shipping: WooAddress, phoneFallback: string | undefined): ShipTo | null => {
  const [first, last, line1, city] = [
    present(shipping.first_name),
    present(shipping.last_name),
    present(shipping.address_1),
    present(shipping.city)
  ]
  if (first === undefined && last === undefined && line1 === undefined && city === undefined) return null
  const state = present(shipping.state)
  // WooCommerce keeps a subdivision code ("CA", "MI") for countries it knows states of, else free text.
  const isCode = state !== undefined && /^[A-Z0-9]{1,4}$/.test(state)
  return {
    name: [first, last].filter((p) => p !== undefined).join(" "),
    ...defined({
      firstName: first,
      lastName: last,
      company: present(shipping.company),
      line1,
      line2: present(shipping.address_2),
      city,
      region: isCode ? undefined : state,
      regionCode: isCode ? state : undefined,
      postalCode: present(shipping.postcode),
      countryCode: present(shipping.country)?.toUpperCase(),
      phone: present(shipping.phone) ?? phoneFallback
    })
  }
}

export const normalizeLine = (line: WooLineItem, refunded: number, closed: boolean): NormalizedLine => {
  const parent = present(line.parent_name)
  const variationId = line.variation_id ?? 0
  const productId = line.product_id ?? 0
  const currentQuantity = Math.max(0, line.quantity - refunded)
  return {
    lineId: String(line.id),
    title: parent ?? line.name,
    quantity: line.quantity,
    currentQuantity,
    fulfillableQuantity: closed ? 0 : currentQuantity,
    attributes: attributesOf(line.meta_data),
    requiresShipping: true,
    ...defined({
      sku: present(line.sku),
      variantId: variationId > 0 ? String(variationId) : productId > 0 ? String(productId) : undefined,
      productId: productId > 0 ? String(productId) : undefined,
      variantTitle: parent !== undefined && line.name.startsWith(`${parent} - `) ? line.name.slice(parent.length + 3) : undefined
    })
  }
}

const timestamp = (field: string, text: string): Either.Either<string, string> => {
  const canonical = gmtTimestamp(text)
  return canonical === undefined ? Either.left(`${field} "${text}" is not a timestamp`) : Either.right(canonical)
}

export const normalizeWooOrder = (storeKey: string, order: WooOrder, raw: unknown): Either.Either<NormalizedOrder, string> =>
  Either.gen(function*() {
    const createdAt = yield* timestamp("date_created_gmt", order.date_created_gmt)
    const updatedAt = yield* timestamp("date_modified_gmt", order.date_modified_gmt)
    const currency = order.currency.toUpperCase()
    if (!/^[A-Z]{3}$/.test(currency)) return yield* Either.left(`currency "${order.currency}" is not an ISO 4217 code`)
    const total = order.total === undefined
      ? undefined
      : yield* Either.mapLeft(Money.fromDecimalString(currency, order.total), (error) => error.message)
    const refunded = refundedUnits(order)
    const closed = CLOSED_STATUSES.has(order.status)
    const cancelled = CANCELLED_STATUSES.has(order.status)
    const shipping = order.shipping_lines[0]
    const storeOrderId = String(order.id)
    const normalized: NormalizedOrder = {
      storeKey,
      platform: "woocommerce",
      storeOrderId,
      name: `#${present(order.number) ?? storeOrderId}`,
      createdAt,
      updatedAt,
      currency,
      financialStatus: financialStatusOf(order),
      fulfillmentStatus: fulfillmentStatusOf(order.status),
      cancelled,
      holds: order.status === "on-hold" ? [{ heldId: storeOrderId, reason: "on-hold" }] : [],
      shipTo: normalizeAddress(order.shipping, present(order.billing.phone)),
      lines: order.line_items.map((line) => normalizeLine(line, refunded.get(String(line.id)) ?? 0, closed)),
      tags: [],
      attributes: attributesOf(order.meta_data),
      raw,
      ...defined({
        cancelReason: cancelled ? order.status : undefined,
        email: present(order.billing.email),
        shippingMethod: shipping === undefined
          ? undefined
          : { title: shipping.method_title, ...defined({ code: present(shipping.method_id) }) },
        note: present(order.customer_note),
        total
      })
    }
    return normalized
  })
