/**
 * Reading orders: a page of the `orders` connection, one order by id, and the
 * completion of an order whose line items or fulfillment orders span more than
 * one page. All pages of a returned order belong to the same version of it:
 * when the order changes while its pages are read, it is read again from the
 * start.
 *
 * Fields Shopify withholds (`ACCESS_DENIED`: a scope the app lacks, the
 * buyer's details without Level 2 protected customer data) come back null
 * beside good data: the order is kept, with what was withheld and why.
 */
import { Effect, Either, Option, Schema } from "effect"
import type { WithheldData } from "../../domain/NormalizedOrder.js"
import { keepBody, type StoreError, StoreResponseError, StoreUnavailableError } from "../StoreErrors.js"
import type { DeniedField } from "./ShopifyAnswers.js"
import type { ShopifyGraphql } from "./ShopifyGraphql.js"
import {
  FULFILLMENT_ORDERS_PER_FOLLOW_UP,
  LINE_ITEMS_PER_FOLLOW_UP,
  LINE_ITEMS_PER_ORDER_PAGE,
  ORDER,
  ORDER_FULFILLMENT_ORDERS,
  ORDER_LINE_ITEMS,
  ORDERS_PAGE,
  orderGid
} from "./ShopifyQueries.js"
import { OrderData, OrderFulfillmentOrdersData, OrderLineItemsData, OrdersPageData, ShopifyOrder } from "./ShopifySchemas.js"
import { deniedUnder, withheldData, type WithheldField, withheldFields } from "./ShopifyWithheld.js"

/** Requested cost of one order's selection in `ORDER_FIELDS` (refined from Shopify's answers). */
const ORDER_COST = 23 + LINE_ITEMS_PER_ORDER_PAGE * 4
const MAX_REREADS = 3

export const decodeShopifyOrder = Schema.decodeUnknownEither(ShopifyOrder)

/** The payload kept as `raw`: the order exactly as selected, with every line item page merged. */
export const rawOrder = (order: ShopifyOrder): unknown => Schema.encodeSync(ShopifyOrder)(order)

/** One order of a page as Shopify answered it, with the fields it withheld (paths relative to the order). */
export interface PageNode {
  readonly node: unknown
  readonly denied: ReadonlyArray<DeniedField>
}

export interface OrdersPage {
  readonly nodes: ReadonlyArray<PageNode>
  readonly hasNextPage: boolean
  readonly endCursor: string | null
}

/** An order with every page read, and what Shopify withheld from it. */
export interface ReadOrder {
  readonly order: ShopifyOrder
  readonly withheld: ReadonlyArray<WithheldData>
}

export interface ShopifyOrderReader {
  readonly page: (args: { first: number; after: string | null; query: string | null }) => Effect.Effect<OrdersPage, StoreError>
  /** The order with all its line items, or none when Shopify does not know it. */
  readonly byId: (storeOrderId: string) => Effect.Effect<Option.Option<ReadOrder>, StoreError>
  /** The same order with every page; a newer version if it changed meanwhile, none if it vanished. */
  readonly complete: (order: ShopifyOrder, denied: ReadonlyArray<DeniedField>) => Effect.Effect<Option.Option<ReadOrder>, StoreError>
}

/** Where one read of an order stands: the order so far and what was withheld from its pages. */
interface Partial {
  readonly order: ShopifyOrder
  readonly withheld: ReadonlyArray<WithheldField>
}

type Completion = { readonly _tag: "Complete"; readonly read: Partial } | { readonly _tag: "Changed" }

export const makeShopifyOrderReader = (storeKey: string, graphql: ShopifyGraphql): ShopifyOrderReader => {
  const page: ShopifyOrderReader["page"] = ({ first, after, query }) =>
    Effect.map(
      graphql.runPartial({
        name: "orders",
        document: ORDERS_PAGE,
        variables: { first, after, query },
        data: OrdersPageData,
        mutation: false,
        estimatedCost: 2 + first * ORDER_COST,
        partial: true
      }),
      ({ data: { orders }, denied }) => ({
        nodes: orders.nodes.map((node, index) => ({ node, denied: deniedUnder(denied, ["orders", "nodes", index]) })),
        hasNextPage: orders.pageInfo.hasNextPage,
        endCursor: orders.pageInfo.endCursor
      })
    )

  const fetchOnce = (storeOrderId: string): Effect.Effect<Option.Option<PageNode & { order: ShopifyOrder }>, StoreError> =>
    Effect.flatMap(
      graphql.runPartial({
        name: "order",
        document: ORDER,
        variables: { id: orderGid(storeOrderId) },
        data: OrderData,
        mutation: false,
        estimatedCost: ORDER_COST,
        partial: true
      }),
      ({ data: { order }, denied }) => {
        if (order === null) return Effect.succeedNone
        const decoded = decodeShopifyOrder(order)
        return Either.isRight(decoded)
          ? Effect.succeedSome({ node: order, order: decoded.right, denied: deniedUnder(denied, ["order"]) })
          : Effect.fail(
            new StoreResponseError({
              storeKey,
              operation: "order",
              ambiguous: false,
              status: 200,
              body: keepBody(JSON.stringify(order)),
              detail: decoded.left.message
            })
          )
      }
    )

  /** Appends the remaining line item pages, or reports that the order changed (or vanished) meanwhile. */
  const appendLineItems = (read: Partial): Effect.Effect<Completion, StoreError> =>
    Effect.gen(function*() {
      const { order } = read
      let nodes = [...order.lineItems.nodes]
      let withheld = [...read.withheld]
      let pageInfo = order.lineItems.pageInfo
      while (pageInfo.hasNextPage && pageInfo.endCursor !== null) {
        const { data: { order: more }, denied } = yield* graphql.runPartial({
          name: "orderLineItems",
          document: ORDER_LINE_ITEMS,
          variables: { id: order.id, after: pageInfo.endCursor },
          data: OrderLineItemsData,
          mutation: false,
          estimatedCost: 3 + LINE_ITEMS_PER_FOLLOW_UP * 4,
          partial: true
        })
        if (more === null || more.updatedAt !== order.updatedAt) return { _tag: "Changed" } as const
        withheld = [...withheld, ...withheldFields(more, deniedUnder(denied, ["order"]))]
        nodes = [...nodes, ...more.lineItems.nodes]
        pageInfo = more.lineItems.pageInfo
      }
      return { _tag: "Complete", read: { order: { ...order, lineItems: { pageInfo, nodes } }, withheld } } as const
    })

  /** Appends the remaining fulfillment order pages (an order moved or split many times has more than one). */
  const appendFulfillmentOrders = (read: Partial): Effect.Effect<Completion, StoreError> =>
    Effect.gen(function*() {
      const { order } = read
      let nodes = [...order.fulfillmentOrders.nodes]
      let pageInfo = order.fulfillmentOrders.pageInfo
      while (pageInfo.hasNextPage && pageInfo.endCursor !== null) {
        const { order: more } = yield* graphql.run({
          name: "orderFulfillmentOrders",
          document: ORDER_FULFILLMENT_ORDERS,
          variables: { id: order.id, after: pageInfo.endCursor },
          data: OrderFulfillmentOrdersData,
          mutation: false,
          estimatedCost: 3 + FULFILLMENT_ORDERS_PER_FOLLOW_UP * 2
        })
        if (more === null || more.updatedAt !== order.updatedAt) return { _tag: "Changed" } as const
        nodes = [...nodes, ...more.fulfillmentOrders.nodes]
        pageInfo = more.fulfillmentOrders.pageInfo
      }
      return { _tag: "Complete", read: { ...read, order: { ...order, fulfillmentOrders: { pageInfo, nodes } } } } as const
    })

  const completeWithin = (read: Partial, rereads: number): Effect.Effect<Option.Option<ReadOrder>, StoreError> =>
    Effect.gen(function*() {
      const lines = yield* appendLineItems(read)
      const all = lines._tag === "Complete" ? yield* appendFulfillmentOrders(lines.read) : lines
      if (all._tag === "Complete") return Option.some({ order: all.read.order, withheld: withheldData(all.read.withheld) })
      if (rereads >= MAX_REREADS) {
        return yield* new StoreUnavailableError({
          storeKey,
          operation: "order",
          ambiguous: false,
          detail: `order ${read.order.legacyResourceId} kept changing while its pages were read; try again`
        })
      }
      const fresh = yield* fetchOnce(read.order.legacyResourceId)
      return Option.isNone(fresh) ? Option.none() : yield* completeWithin(firstRead(fresh.value.order, fresh.value.denied), rereads + 1)
    })

  const firstRead = (order: ShopifyOrder, denied: ReadonlyArray<DeniedField>): Partial => ({
    order,
    withheld: withheldFields(order, denied)
  })

  const complete: ShopifyOrderReader["complete"] = (order, denied) => completeWithin(firstRead(order, denied), 0)

  const byId = (storeOrderId: string): Effect.Effect<Option.Option<ReadOrder>, StoreError> =>
    Effect.flatMap(
      fetchOnce(storeOrderId),
      Option.match({ onNone: () => Effect.succeedNone, onSome: (read) => complete(read.order, read.denied) })
    )

  return { page, byId, complete }
}
