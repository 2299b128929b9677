/**
 * Pure: a Shopify GraphQL `Order` (all line item pages merged) to a
 * `NormalizedOrder`. Faithful: cancelled, unpaid, held and refunded orders
 * keep their status; the pipeline decides what to produce.
 *
 * - `quantity` is what was bought, `currentQuantity` what is left after
 *   refunds and removals, `fulfillableQuantity` = min(currentQuantity,
 *   unfulfilledQuantity): units neither removed nor already shipped.
 * - variant and product ids are the numeric `legacyResourceId`s, as the
 *   variant-matching table names them.
 * - holds are the ON_HOLD fulfillment orders, one entry per hold reason.
 */
import type { OrderNormalizer } from "../ConnectorAssembly.js"
import { Either } from "effect"
import * as Money from "../../domain/Money.js"
import type {
  Attribute,
  FinancialStatus,
  FulfillmentStatus,
  NormalizedLine,
  NormalizedOrder,
  OrderHold,
  ShipTo
} from "../../domain/NormalizedOrder.js"
import { canonicalTimestamp } from "../../domain/StoreTypes.js"
import { type ReadOrder, rawOrder } from "./ShopifyOrders.js"
import type { ShopifyAttribute, ShopifyLineItem, ShopifyMailingAddress, ShopifyOrder } from "./ShopifySchemas.js"

const financialStatuses: Record<string, FinancialStatus> = {
  PENDING: "pending",
  AUTHORIZED: "authorized",
  PAID: "paid",
  PARTIALLY_PAID: "partially_paid",
  PARTIALLY_REFUNDED: "partially_refunded",
  REFUNDED: "refunded",
  VOIDED: "voided",
  EXPIRED: "expired"
}

const fulfillmentStatuses: Record<string, FulfillmentStatus> = {
  UNFULFILLED: "unfulfilled",
  OPEN: "unfulfilled", // legacy name
  PENDING_FULFILLMENT: "unfulfilled", // legacy name
  REQUEST_DECLINED: "unfulfilled", // a fulfilment service declined: nothing shipped
  PARTIALLY_FULFILLED: "partial",
  FULFILLED: "fulfilled",
  IN_PROGRESS: "in_progress",
  ON_HOLD: "on_hold",
  SCHEDULED: "scheduled",
  RESTOCKED: "restocked",
  // Nothing in the order needs shipping (digital items, services).
  FULFILLMENT_NOT_REQUIRED: "not_required"
}

export const financialStatusOf = (display: string | null): FinancialStatus =>
  (display === null ? undefined : financialStatuses[display]) ?? "unknown"

export const fulfillmentStatusOf = (display: string): FulfillmentStatus => fulfillmentStatuses[display] ?? "unknown"

/** Drops nulls and blank strings, so absent stays absent. */
const present = (value: string | null | undefined): string | undefined =>
  value === null || value === undefined || value.trim() === "" ? undefined : value

/** `{ key: value }` for each defined entry: keeps optional fields absent under exactOptionalPropertyTypes. */
const defined = <T extends Record<string, unknown>>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>
  }

const attributes = (list: ReadonlyArray<ShopifyAttribute>): Array<Attribute> =>
  list.map((attribute) => ({ key: attribute.key, value: attribute.value ?? "" }))

export const normalizeAddress = (address: ShopifyMailingAddress): ShipTo => {
  const name = present(address.name) ?? [address.firstName, address.lastName].map(present).filter((p) => p !== undefined).join(" ")
  return {
    name,
    ...defined({
      firstName: present(address.firstName),
      lastName: present(address.lastName),
      company: present(address.company),
      line1: present(address.address1),
      line2: present(address.address2),
      city: present(address.city),
      region: present(address.province),
      regionCode: present(address.provinceCode),
      postalCode: present(address.zip),
      countryCode: present(address.countryCodeV2),
      country: present(address.country),
      phone: present(address.phone)
    })
  }
}

const money = (
  set: { readonly shopMoney: { readonly amount: string; readonly currencyCode: string } } | null
): Either.Either<Money.Money | undefined, string> =>
  set === null
    ? Either.right(undefined)
    : Either.mapLeft(Money.fromDecimalString(set.shopMoney.currencyCode, set.shopMoney.amount), (error) => error.message)

export const normalizeLine = (line: ShopifyLineItem): NormalizedLine => ({
  lineId: line.id,
  title: line.title,
  quantity: line.quantity,
  currentQuantity: line.currentQuantity,
  fulfillableQuantity: Math.max(0, Math.min(line.currentQuantity, line.unfulfilledQuantity)),
  attributes: attributes(line.customAttributes),
  requiresShipping: line.requiresShipping,
  ...defined({
    sku: present(line.sku) ?? present(line.variant?.sku),
    variantId: line.variant?.legacyResourceId,
    productId: line.product?.legacyResourceId,
    variantTitle: present(line.variantTitle)
  })
})

const holdsOf = (order: ShopifyOrder): Array<OrderHold> =>
  order.fulfillmentOrders.nodes
    .filter((fo) => fo.status === "ON_HOLD")
    .flatMap((fo) =>
      fo.fulfillmentHolds.length === 0
        ? [{ heldId: fo.id }]
        : fo.fulfillmentHolds.map((hold) => ({ heldId: fo.id, reason: hold.reason }))
    )

const timestamp = (field: string, text: string): Either.Either<string, string> => {
  const canonical = canonicalTimestamp(text)
  return canonical === undefined ? Either.left(`${field} "${text}" is not a timestamp`) : Either.right(canonical)
}

/**
 * Normalizes one order whose `lineItems.nodes` hold every line item. `raw` is
 * the payload as fetched, kept on the result. Left: why it cannot be read.
 */
export const normalizeShopifyOrder: OrderNormalizer<ShopifyOrder> = (storeKey, order, raw) =>
  Either.gen(function*() {
    const lines = order.lineItems.nodes.map(normalizeLine)
    const total = yield* money(order.currentTotalPriceSet)
    const createdAt = yield* timestamp("createdAt", order.createdAt)
    const updatedAt = yield* timestamp("updatedAt", order.updatedAt)
    const cancelledAt = order.cancelledAt === null ? undefined : yield* timestamp("cancelledAt", order.cancelledAt)
    if (!/^[A-Z]{3}$/.test(order.currencyCode)) {
      return yield* Either.left(`currencyCode "${order.currencyCode}" is not an ISO 4217 code`)
    }
    const shipping = order.shippingLines.nodes[0]
    const normalized: NormalizedOrder = {
      storeKey,
      platform: "shopify",
      storeOrderId: order.legacyResourceId,
      name: order.name,
      createdAt,
      updatedAt,
      currency: order.currencyCode,
      financialStatus: financialStatusOf(order.displayFinancialStatus),
      fulfillmentStatus: fulfillmentStatusOf(order.displayFulfillmentStatus),
      cancelled: order.cancelledAt !== null,
      holds: holdsOf(order),
      shipTo: order.shippingAddress === null ? null : normalizeAddress(order.shippingAddress),
      lines,
      tags: [...order.tags],
      attributes: attributes(order.customAttributes),
      raw,
      ...defined({
        cancelledAt,
        cancelReason: order.cancelReason === null ? undefined : order.cancelReason.toLowerCase(),
        email: present(order.email),
        shippingMethod: shipping === undefined
          ? undefined
          : { title: shipping.title, ...defined({ code: present(shipping.code) }) },
        note: present(order.note),
        total
      })
    }
    return normalized
  })

/** An order as read, with what Shopify withheld from it (the order is normalized as it came, nulls and all). */
export const normalizeReadOrder = (storeKey: string, read: ReadOrder): Either.Either<NormalizedOrder, string> => {
  const raw = rawOrder(read.order)
  return Either.map(
    normalizeShopifyOrder(storeKey, read.order, raw),
    (order) => (read.withheld.length === 0 ? order : { ...order, withheld: read.withheld })
  )
}
