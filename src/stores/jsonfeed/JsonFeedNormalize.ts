/**
 * Pure: a contract order (docs/jsonfeed.md §3) to a `NormalizedOrder`. The
 * contract's shape is NormalizedOrder's in snake_case, so this is mostly
 * renaming, defaults and checks:
 *
 * - timestamps are canonicalized (offsets converted to UTC); a bad one makes
 *   the order unreadable rather than guessed;
 * - statuses are read case-insensitively; an unknown value is `unknown`
 *   (the pipeline does not produce such an order) instead of a failure;
 * - `fulfillment_status` may be left out: it is derived from the lines;
 * - `current_quantity` defaults to `quantity`, `fulfilled_quantity` to 0,
 *   and what is still to ship is current − fulfilled;
 * - `region_code` may carry the ISO 3166-2 country prefix ("US-CA" → "CA").
 */
import type { OrderNormalizer } from "../ConnectorAssembly.js"
import { Either } from "effect"
import * as Money from "../../domain/Money.js"
import { FinancialStatus, FulfillmentStatus } from "../../domain/NormalizedOrder.js"
import type { Attribute, NormalizedLine, NormalizedOrder, ShipTo } from "../../domain/NormalizedOrder.js"
import { canonicalTimestamp } from "../../domain/StoreTypes.js"
import type { JsonFeedAddress, JsonFeedAttribute, JsonFeedLine, JsonFeedOrder } from "./JsonFeedSchemas.js"

/** The statuses the feed may send: the domain's but "unknown", which is what any other becomes (and Shopify's "not_required"). */
const financialStatuses = FinancialStatus.literals.filter((status) => status !== "unknown")
const fulfillmentStatuses = FulfillmentStatus.literals.filter((status) => status !== "unknown" && status !== "not_required")

const lookup = <A extends string>(allowed: ReadonlyArray<A>, text: string): A | undefined =>
  allowed.find((value) => value === text.trim().toLowerCase())

/** Drops nulls and blank strings, so absent stays absent. */
const present = (value: string | null | undefined): string | undefined =>
  value === null || value === undefined || value.trim() === "" ? undefined : value.trim()

/** `{ key: value }` for each defined entry: keeps optional fields absent under exactOptionalPropertyTypes. */
const defined = <T extends Record<string, unknown>>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>
  }

const attributes = (list: ReadonlyArray<JsonFeedAttribute> | null | undefined): Array<Attribute> =>
  (list ?? []).map((attribute) => ({ key: attribute.key, value: attribute.value ?? "" }))

const regionCodeOf = (code: string | undefined): string | undefined => code?.replace(/^[A-Za-z]{2}-/, "").toUpperCase()

export const normalizeAddress = (address: JsonFeedAddress): ShipTo => {
  const firstName = present(address.first_name)
  const lastName = present(address.last_name)
  return {
    name: present(address.name) ?? [firstName, lastName].filter((part) => part !== undefined).join(" "),
    ...defined({
      firstName,
      lastName,
      company: present(address.company),
      line1: present(address.line1),
      line2: present(address.line2),
      city: present(address.city),
      region: present(address.region),
      regionCode: regionCodeOf(present(address.region_code)),
      postalCode: present(address.postal_code),
      countryCode: present(address.country_code)?.toUpperCase(),
      country: present(address.country),
      phone: present(address.phone)
    })
  }
}

export const normalizeLine = (line: JsonFeedLine): NormalizedLine => {
  const currentQuantity = line.current_quantity ?? line.quantity
  return {
    lineId: line.id,
    title: line.title,
    quantity: line.quantity,
    currentQuantity,
    fulfillableQuantity: Math.max(0, currentQuantity - (line.fulfilled_quantity ?? 0)),
    attributes: attributes(line.attributes),
    requiresShipping: line.requires_shipping ?? true,
    ...defined({
      sku: present(line.sku),
      variantId: present(line.variant_id),
      productId: present(line.product_id),
      variantTitle: present(line.variant_title)
    })
  }
}

/** What the lines say when the seller sends no `fulfillment_status`. */
export const derivedFulfillmentStatus = (order: JsonFeedOrder, lines: ReadonlyArray<NormalizedLine>): FulfillmentStatus => {
  const shipped = order.lines.reduce((sum, line) => sum + (line.fulfilled_quantity ?? 0), 0)
  const open = lines.reduce((sum, line) => sum + line.fulfillableQuantity, 0)
  if (shipped > 0 && open === 0) return "fulfilled"
  if (shipped > 0) return "partial"
  if (open > 0 && (order.holds ?? []).length > 0) return "on_hold"
  return "unfulfilled"
}

const timestamp = (field: string, text: string): Either.Either<string, string> => {
  const canonical = canonicalTimestamp(text)
  return canonical === undefined ? Either.left(`${field} "${text}" is not an ISO-8601 timestamp`) : Either.right(canonical)
}

const money = (currency: string, amount: string | number | null | undefined): Either.Either<Money.Money | undefined, string> =>
  amount === null || amount === undefined
    ? Either.right(undefined)
    : Either.mapLeft(Money.fromDecimalString(currency, String(amount)), (error) => `total: ${error.message}`)

/** Left: why the order cannot be read (the raw payload is kept by the caller). */
export const normalizeJsonFeedOrder: OrderNormalizer<JsonFeedOrder> = (storeKey, order, raw) =>
  Either.gen(function*() {
    const createdAt = yield* timestamp("created_at", order.created_at)
    const updatedAt = yield* timestamp("updated_at", order.updated_at)
    const cancelledText = present(order.cancelled_at)
    const cancelledAt = cancelledText === undefined ? undefined : yield* timestamp("cancelled_at", cancelledText)
    const currency = order.currency.trim().toUpperCase()
    if (!/^[A-Z]{3}$/.test(currency)) return yield* Either.left(`currency "${order.currency}" is not an ISO 4217 code`)
    const total = yield* money(currency, order.total)
    const lines = order.lines.map(normalizeLine)
    const statusText = present(order.fulfillment_status)
    const shipping = order.shipping_method ?? undefined
    const normalized: NormalizedOrder = {
      storeKey,
      platform: "jsonfeed",
      storeOrderId: order.id,
      name: present(order.name) ?? order.id,
      createdAt,
      updatedAt,
      currency,
      financialStatus: lookup(financialStatuses, order.financial_status) ?? "unknown",
      fulfillmentStatus: statusText === undefined
        ? derivedFulfillmentStatus(order, lines)
        : lookup(fulfillmentStatuses, statusText) ?? "unknown",
      cancelled: cancelledAt !== undefined,
      holds: (order.holds ?? []).map((hold) => ({ heldId: hold.id, ...defined({ reason: present(hold.reason) }) })),
      shipTo: order.ship_to === null || order.ship_to === undefined ? null : normalizeAddress(order.ship_to),
      lines,
      tags: [...(order.tags ?? [])],
      attributes: attributes(order.attributes),
      raw,
      ...defined({
        cancelledAt,
        cancelReason: cancelledAt === undefined ? undefined : present(order.cancel_reason),
        email: present(order.email),
        shippingMethod: shipping === undefined ? undefined : { title: shipping.title, ...defined({ code: present(shipping.code) }) },
        note: present(order.note),
        total
      })
    }
    return normalized
  })
