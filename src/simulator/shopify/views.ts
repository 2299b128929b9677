import { createHash } from "node:crypto"
import { paginateById, type Connection, type PageArgs } from "./connection.js"
import {
  displayFulfillmentStatus,
  formatCents,
  gid,
  isoSeconds,
  shippingCents,
  subtotalCents,
  unfulfilledQuantity,
  type Address,
  type StoredFulfillment,
  type StoredFulfillmentOrder,
  type StoredLineItem,
  type StoredMetafield,
  type StoredOrder
} from "./model.js"
import type { ShopState } from "./store.js"

/**
 * GraphQL views of stored objects. graphql-js's default resolver reads a property, or calls it with the
 * field's arguments when it is a function, so fields with arguments are methods here.
 */

const mapConnection = <A, B>(connection: Connection<A>, f: (a: A) => B): Connection<B> => ({
  edges: connection.edges.map((e) => ({ cursor: e.cursor, node: f(e.node) })),
  nodes: connection.nodes.map(f),
  pageInfo: connection.pageInfo
})

const money = (cents: number, currencyCode: string) => {
  const amount = { amount: formatCents(cents), currencyCode }
  return { shopMoney: amount, presentmentMoney: amount }
}
const moneyOf = (amount: string, currencyCode: string) => money(Math.round(Number(amount) * 100), currencyCode)

export const addressView = (owner: number, a: Address) => ({
  __typename: "MailingAddress",
  id: `${gid("MailingAddress", owner)}?model_name=Address`,
  ...a,
  name: [a.firstName, a.lastName].filter((p) => p).join(" ") || null,
  formattedArea: [a.city, a.provinceCode ?? a.province, a.country].filter((p) => p).join(", ") || null,
  formatted: (args: { withName?: boolean | null; withCompany?: boolean | null }) =>
    [
      ...(args.withName ? [[a.firstName, a.lastName].filter((p) => p).join(" ")] : []),
      ...(args.withCompany !== false && a.company ? [a.company] : []),
      a.address1,
      a.address2,
      [a.zip, a.city, a.provinceCode].filter((p) => p).join(" "),
      a.country
    ].filter((line): line is string => typeof line === "string" && line.length > 0)
})

export const lineItemView = (order: StoredOrder, line: StoredLineItem) => {
  const product = line.productId === null ? null : {
    __typename: "Product",
    id: gid("Product", line.productId),
    legacyResourceId: line.productId,
    title: line.title.split(" – ")[0] ?? line.title,
    handle: line.title.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
    vendor: line.vendor
  }
  const unfulfilled = unfulfilledQuantity(order, line)
  return {
    __typename: "LineItem",
    id: gid("LineItem", line.id),
    name: line.variantTitle ? `${line.title} - ${line.variantTitle}` : line.title,
    title: line.title,
    variantTitle: line.variantTitle,
    sku: line.sku,
    vendor: line.vendor,
    quantity: line.quantity,
    currentQuantity: line.currentQuantity,
    unfulfilledQuantity: unfulfilled,
    nonFulfillableQuantity: line.quantity - line.currentQuantity,
    refundableQuantity: line.currentQuantity,
    requiresShipping: line.requiresShipping,
    isGiftCard: false,
    customAttributes: line.customAttributes,
    product,
    variant: line.variantId === null ? null : {
      __typename: "ProductVariant",
      id: gid("ProductVariant", line.variantId),
      legacyResourceId: line.variantId,
      sku: line.sku,
      title: line.variantTitle ?? "Default Title",
      price: line.price,
      product: product ??
        { __typename: "Product", id: gid("Product", 0), legacyResourceId: "0", title: line.title, handle: "", vendor: line.vendor }
    },
    originalUnitPriceSet: moneyOf(line.price, order.currencyCode),
    discountedUnitPriceSet: moneyOf(line.price, order.currencyCode),
    originalTotalSet: money(Math.round(Number(line.price) * 100) * line.quantity, order.currencyCode)
  }
}

const lineItemById = (order: StoredOrder, lineItemId: number) => {
  const line = order.lineItems.find((l) => l.id === lineItemId)
  if (!line) throw new Error(`line item ${lineItemId} missing from order ${order.id}`)
  return lineItemView(order, line)
}

const supportedActions = (fo: StoredFulfillmentOrder) => {
  switch (fo.status) {
    case "OPEN":
    case "IN_PROGRESS":
      return ["CREATE_FULFILLMENT", "HOLD", "MOVE"]
    case "ON_HOLD":
      return ["RELEASE_HOLD", "HOLD"]
    case "SCHEDULED":
      return ["MARK_AS_OPEN"]
    default:
      return []
  }
}

export const fulfillmentOrderView = (state: ShopState, order: StoredOrder, fo: StoredFulfillmentOrder) => ({
  __typename: "FulfillmentOrder",
  id: gid("FulfillmentOrder", fo.id),
  status: fo.status,
  requestStatus: "UNSUBMITTED",
  fulfillAt: fo.fulfillAt === null ? null : isoSeconds(fo.fulfillAt),
  createdAt: isoSeconds(fo.createdAt),
  updatedAt: isoSeconds(fo.updatedAt),
  orderId: gid("Order", order.id),
  orderName: order.name,
  order: () => orderView(state, order),
  fulfillmentHolds: fo.holds.map((h) => ({ ...h, id: gid("FulfillmentHold", h.id) })),
  supportedActions: supportedActions(fo).map((action) => ({ action })),
  assignedLocation: {
    name: "Acme Print Partner",
    location: { __typename: "Location", id: gid("Location", 81234567001), legacyResourceId: "81234567001", name: "Acme Print Partner" }
  },
  lineItems: (args: PageArgs) =>
    mapConnection(paginateById(fo.lines, args), (l) => {
      const line = lineItemById(order, l.lineItemId)
      return {
        __typename: "FulfillmentOrderLineItem",
        id: gid("FulfillmentOrderLineItem", l.id),
        totalQuantity: l.totalQuantity,
        remainingQuantity: l.remainingQuantity,
        lineItem: line,
        sku: line.sku,
        productTitle: line.title,
        variantTitle: line.variantTitle
      }
    }),
  fulfillments: (args: PageArgs) =>
    mapConnection(
      paginateById(order.fulfillments.filter((f) => f.fulfillmentOrderIds.includes(fo.id)), args),
      (f) => fulfillmentView(state, order, f)
    )
})

export const fulfillmentView = (state: ShopState, order: StoredOrder, f: StoredFulfillment) => ({
  __typename: "Fulfillment",
  id: gid("Fulfillment", f.id),
  legacyResourceId: String(f.id),
  name: f.name,
  status: f.status,
  createdAt: isoSeconds(f.createdAt),
  updatedAt: isoSeconds(f.updatedAt),
  totalQuantity: f.lines.reduce((sum, l) => sum + l.quantity, 0),
  order: () => orderView(state, order),
  trackingInfo: (args: { first?: number | null }) => f.tracking.slice(0, args.first ?? f.tracking.length),
  fulfillmentLineItems: (args: PageArgs) =>
    mapConnection(paginateById(f.lines, args), (l) => ({
      __typename: "FulfillmentLineItem",
      id: gid("FulfillmentLineItem", l.id),
      quantity: l.quantity,
      lineItem: lineItemById(order, l.lineItemId)
    })),
  fulfillmentOrders: (args: PageArgs) =>
    mapConnection(
      paginateById(order.fulfillmentOrders.filter((fo) => f.fulfillmentOrderIds.includes(fo.id)), args),
      (fo) => fulfillmentOrderView(state, order, fo)
    )
})

export const metafieldView = (m: StoredMetafield) => ({
  __typename: "Metafield",
  id: gid("Metafield", m.id),
  legacyResourceId: String(m.id),
  namespace: m.namespace,
  key: m.key,
  type: m.type,
  value: m.value,
  jsonValue: jsonValueOf(m),
  compareDigest: createHash("sha256").update(m.value).digest("hex"),
  ownerType: "ORDER",
  createdAt: isoSeconds(m.createdAt),
  updatedAt: isoSeconds(m.updatedAt)
})

const jsonValueOf = (m: StoredMetafield): unknown => {
  if (m.type === "json" || m.type.startsWith("list.")) {
    try {
      return JSON.parse(m.value)
    } catch {
      return m.value
    }
  }
  if (m.type === "number_integer" || m.type === "number_decimal") return Number(m.value)
  if (m.type === "boolean") return m.value === "true"
  return m.value
}

export const orderView = (state: ShopState, order: StoredOrder) => {
  const currency = order.currencyCode
  const shipping = shippingCents(order)
  const anyCurrent = order.lineItems.some((l) => l.currentQuantity > 0)
  return {
    __typename: "Order",
    id: gid("Order", order.id),
    legacyResourceId: String(order.id),
    name: order.name,
    email: order.email,
    phone: order.phone,
    createdAt: isoSeconds(order.createdAt),
    updatedAt: isoSeconds(order.updatedAt),
    processedAt: isoSeconds(order.processedAt),
    cancelledAt: order.cancelledAt === null ? null : isoSeconds(order.cancelledAt),
    cancelReason: order.cancelReason,
    closed: order.closedAt !== null,
    closedAt: order.closedAt === null ? null : isoSeconds(order.closedAt),
    confirmed: true,
    test: false,
    fullyPaid: order.financialStatus === "PAID",
    unpaid: ["PENDING", "AUTHORIZED", "EXPIRED"].includes(order.financialStatus),
    displayFinancialStatus: order.financialStatus,
    displayFulfillmentStatus: displayFulfillmentStatus(order),
    currencyCode: currency,
    presentmentCurrencyCode: currency,
    note: order.note,
    tags: [...order.tags].sort(),
    customAttributes: order.customAttributes,
    customer: {
      __typename: "Customer",
      id: gid("Customer", order.customerId),
      legacyResourceId: String(order.customerId),
      firstName: order.shippingAddress?.firstName ?? null,
      lastName: order.shippingAddress?.lastName ?? null,
      displayName: [order.shippingAddress?.firstName, order.shippingAddress?.lastName].filter((p) => p).join(" ") ||
        (order.email ?? "Customer"),
      email: order.email
    },
    shippingAddress: order.shippingAddress && addressView(order.id, order.shippingAddress),
    billingAddress: order.billingAddress && addressView(order.id + 1, order.billingAddress),
    shippingLine: order.shippingLine && shippingLineView(order),
    shippingLines: (args: PageArgs) =>
      mapConnection(paginateById(order.shippingLine ? [{ id: order.id }] : [], args), () => shippingLineView(order)),
    subtotalPriceSet: money(subtotalCents(order, false), currency),
    currentSubtotalPriceSet: money(subtotalCents(order, true), currency),
    totalShippingPriceSet: money(shipping, currency),
    totalPriceSet: money(subtotalCents(order, false) + shipping, currency),
    currentTotalPriceSet: money(subtotalCents(order, true) + (anyCurrent ? shipping : 0), currency),
    lineItems: (args: PageArgs) => mapConnection(paginateById(order.lineItems, args), (l) => lineItemView(order, l)),
    fulfillmentOrders: (args: PageArgs & { displayable?: boolean | null }) => {
      // Shopify's `displayable: true` leaves out what the merchant does not see: those closed by a move or a merge.
      const shown = args.displayable ? order.fulfillmentOrders.filter((fo) => !fo.hidden) : order.fulfillmentOrders
      return mapConnection(paginateById(shown, args), (fo) => fulfillmentOrderView(state, order, fo))
    },
    fulfillments: (args: { first?: number | null }) =>
      order.fulfillments.slice(0, args.first ?? order.fulfillments.length).map((f) => fulfillmentView(state, order, f)),
    metafield: (args: { namespace?: string | null; key: string }) => {
      const found = order.metafields.find((m) => m.namespace === (args.namespace ?? "$app") && m.key === args.key)
      return found ? metafieldView(found) : null
    },
    metafields: (args: PageArgs & { namespace?: string | null; keys?: string[] | null }) => {
      const shown = order.metafields.filter((m) =>
        (args.namespace == null || m.namespace === args.namespace) && (args.keys == null || args.keys.includes(`${m.namespace}.${m.key}`))
      )
      return mapConnection(paginateById(shown, args), metafieldView)
    }
  }
}

const shippingLineView = (order: StoredOrder) => ({
  id: gid("ShippingLine", order.id),
  title: order.shippingLine?.title ?? "",
  code: order.shippingLine?.code ?? null,
  source: "shopify",
  carrierIdentifier: null,
  originalPriceSet: money(shippingCents(order), order.currencyCode)
})
