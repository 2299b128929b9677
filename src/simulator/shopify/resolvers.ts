import type { RequestAccess } from "./access.js"
import { metafieldsSet, tagsAdd, tagsRemove, type MetafieldsSetInput } from "./annotations.js"
import { paginate, type PageArgs } from "./connection.js"
import {
  fulfillmentCancel,
  fulfillmentCreate,
  fulfillmentOrderHold,
  fulfillmentOrderOpen,
  fulfillmentOrderReleaseHold,
  fulfillmentTrackingInfoUpdate,
  type FulfillmentInput,
  type TrackingInput
} from "./fulfillments.js"
import { subtotalCents, type StoredOrder } from "./model.js"
import { matchesSearch, parseSearch } from "./search.js"
import type { ShopState } from "./store.js"
import { fulfillmentOrderView, fulfillmentView, lineItemView, metafieldView, orderView } from "./views.js"

/**
 * The root value for `graphql()`: Query and Mutation fields. Argument shapes are guaranteed by the
 * schema (graphql-js validates and coerces them before a resolver runs).
 */

export interface ShopInfo {
  readonly domain: string
  readonly currencyCode: string
}

type OrdersArgs = PageArgs & { sortKey?: string | null; query?: string | null }

const sortValue = (sortKey: string): (o: StoredOrder) => number => {
  switch (sortKey) {
    case "UPDATED_AT":
      return (o) => o.updatedAt
    case "CREATED_AT":
      return (o) => o.createdAt
    case "PROCESSED_AT":
      return (o) => o.processedAt
    case "ORDER_NUMBER":
      return (o) => o.number
    case "TOTAL_PRICE":
      return (o) => subtotalCents(o, false)
    default:
      return (o) => o.id
  }
}

/** Whether the request sees the order: without `read_all_orders`, orders older than 60 days do not exist for it. */
const visible = (access: RequestAccess, order: StoredOrder): boolean => order.createdAt >= access.oldestOrderAt

const matchingOrders = (state: ShopState, access: RequestAccess, query: string | null | undefined): StoredOrder[] => {
  const search = parseSearch(query ?? "")
  const now = state.now()
  return [...state.orders.values()].filter((o) => visible(access, o) && matchesSearch(search, o, now))
}

/** Resolves any global id this shop knows to its view, or null. */
const nodeById = (state: ShopState, access: RequestAccess, id: string): unknown => {
  const match = /^gid:\/\/shopify\/([A-Za-z]+)\/(\d+)/.exec(id)
  if (!match) return null
  const type = match[1]
  const n = Number(match[2])
  for (const order of state.orders.values()) {
    switch (type) {
      case "Order":
        if (order.id === n) return visible(access, order) ? orderView(state, order) : null
        break
      case "LineItem": {
        const line = order.lineItems.find((l) => l.id === n)
        if (line) return lineItemView(order, line)
        break
      }
      case "FulfillmentOrder": {
        const fo = order.fulfillmentOrders.find((f) => f.id === n)
        if (fo) return fulfillmentOrderView(state, order, fo)
        break
      }
      case "Fulfillment": {
        const f = order.fulfillments.find((x) => x.id === n)
        if (f) return fulfillmentView(state, order, f)
        break
      }
      case "Metafield": {
        const m = order.metafields.find((x) => x.id === n)
        if (m) return metafieldView(m)
        break
      }
      default:
        return null
    }
  }
  return null
}

/** The scopes' descriptions as `currentAppInstallation.accessScopes` gives them (Shopify's wording, shortened). */
const scopeDescription = (handle: string) => {
  const [verb, ...rest] = handle.split("_")
  const what = rest.join(" ")
  return verb === "write" ? `Modify ${what}` : verb === "read" ? `Read ${what}` : handle
}

export const makeRootValue = (state: ShopState, shop: ShopInfo) => ({
  // Query
  orders: (args: OrdersArgs, access: RequestAccess) => {
    const key = sortValue(args.sortKey ?? "PROCESSED_AT")
    const connection = paginate(matchingOrders(state, access, args.query), args, (o) => ({ id: o.id, value: key(o) }))
    return {
      edges: connection.edges.map((e) => ({ cursor: e.cursor, node: orderView(state, e.node) })),
      nodes: connection.nodes.map((o) => orderView(state, o)),
      pageInfo: connection.pageInfo
    }
  },
  order: (args: { id: string }, access: RequestAccess) => {
    const order = state.findOrder(args.id)
    return order && args.id.startsWith("gid://shopify/Order/") && visible(access, order) ? orderView(state, order) : null
  },
  ordersCount: (args: { query?: string | null; limit?: number | null }, access: RequestAccess) => {
    const count = matchingOrders(state, access, args.query).length
    const limit = args.limit ?? 10000
    return { count: Math.min(count, limit), precision: count > limit ? "AT_LEAST" : "EXACT" }
  },
  fulfillmentOrder: (args: { id: string }, access: RequestAccess) =>
    args.id.startsWith("gid://shopify/FulfillmentOrder/") ? nodeById(state, access, args.id) : null,
  fulfillment: (args: { id: string }, access: RequestAccess) =>
    args.id.startsWith("gid://shopify/Fulfillment/") ? nodeById(state, access, args.id) : null,
  node: (args: { id: string }, access: RequestAccess) => nodeById(state, access, args.id),
  nodes: (args: { ids: string[] }, access: RequestAccess) => args.ids.map((id) => nodeById(state, access, id)),
  currentAppInstallation: (_args: unknown, access: RequestAccess) => ({
    id: "gid://shopify/AppInstallation/91230000001",
    accessScopes: access.granted.map((handle) => ({ handle, description: scopeDescription(handle) }))
  }),
  shop: () => ({
    id: "gid://shopify/Shop/61230000001",
    name: shop.domain.replace(/\.myshopify\.com$/, "").replace(/^./, (c) => c.toUpperCase()),
    myshopifyDomain: shop.domain,
    email: `owner@${shop.domain}`,
    currencyCode: shop.currencyCode
  }),

  // Mutation
  fulfillmentCreate: (args: { fulfillment: FulfillmentInput; message?: string | null }) => fulfillmentCreate(state, args.fulfillment),
  fulfillmentTrackingInfoUpdate: (args: { fulfillmentId: string; trackingInfoInput: TrackingInput; notifyCustomer?: boolean | null }) =>
    fulfillmentTrackingInfoUpdate(state, args),
  fulfillmentCancel: (args: { id: string }) => fulfillmentCancel(state, args),
  tagsAdd: (args: { id: string; tags: string[] }) => tagsAdd(state, args),
  tagsRemove: (args: { id: string; tags: string[] }) => tagsRemove(state, args),
  metafieldsSet: (args: { metafields: MetafieldsSetInput[] }) => metafieldsSet(state, args),
  fulfillmentOrderHold: (args: { id: string; fulfillmentHold: { reason: string; reasonNotes?: string | null; handle?: string | null } }) =>
    fulfillmentOrderHold(state, args),
  fulfillmentOrderReleaseHold: (args: { id: string; holdIds?: string[] | null }) => fulfillmentOrderReleaseHold(state, args),
  fulfillmentOrderOpen: (args: { id: string }) => fulfillmentOrderOpen(state, args)
})
