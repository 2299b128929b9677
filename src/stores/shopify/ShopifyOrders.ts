/**
 * Reading orders: a page of the `orders` connection, one order by id, and the
 * completion of an order whose line items span more than one page. All line
 * item pages of a returned order belong to the same version of it: when the
 * order changes while its pages are read, it is read again from the start.
 */
import { Effect, Either, Option, Schema } from "effect"
import { keepBody, type StoreError, StoreResponseError, StoreUnavailableError } from "../StoreErrors.js"
import type { ShopifyGraphql } from "./ShopifyGraphql.js"
import { LINE_ITEMS_PER_FOLLOW_UP, LINE_ITEMS_PER_ORDER_PAGE, ORDER, ORDER_LINE_ITEMS, ORDERS_PAGE, orderGid } from "./ShopifyQueries.js"
import { OrderData, OrderLineItemsData, OrdersPageData, ShopifyOrder } from "./ShopifySchemas.js"

/** Requested cost of one order's selection in `ORDER_FIELDS` (refined from Shopify's answers). */
const ORDER_COST = 22 + LINE_ITEMS_PER_ORDER_PAGE * 4
const MAX_REREADS = 3

export const decodeShopifyOrder = Schema.decodeUnknownEither(ShopifyOrder)

/** The payload kept as `raw`: the order exactly as selected, with every line item page merged. */
export const rawOrder = (order: ShopifyOrder): unknown => Schema.encodeSync(ShopifyOrder)(order)

export interface OrdersPage {
  readonly nodes: ReadonlyArray<unknown>
  readonly hasNextPage: boolean
  readonly endCursor: string | null
}

export interface ShopifyOrderReader {
  readonly page: (args: { first: number; after: string | null; query: string | null }) => Effect.Effect<OrdersPage, StoreError>
  /** The order with all its line items, or none when Shopify does not know it. */
  readonly byId: (storeOrderId: string) => Effect.Effect<Option.Option<ShopifyOrder>, StoreError>
  /** The same order with all line items; a newer version if it changed meanwhile, none if it vanished. */
  readonly complete: (order: ShopifyOrder) => Effect.Effect<Option.Option<ShopifyOrder>, StoreError>
}

export const makeShopifyOrderReader = (storeKey: string, graphql: ShopifyGraphql): ShopifyOrderReader => {
  const page: ShopifyOrderReader["page"] = ({ first, after, query }) =>
    Effect.map(
      graphql.run({
        name: "orders",
        document: ORDERS_PAGE,
        variables: { first, after, query },
        data: OrdersPageData,
        mutation: false,
        estimatedCost: 2 + first * ORDER_COST
      }),
      ({ orders }) => ({ nodes: orders.nodes, hasNextPage: orders.pageInfo.hasNextPage, endCursor: orders.pageInfo.endCursor })
    )

  const fetchOnce = (storeOrderId: string): Effect.Effect<Option.Option<ShopifyOrder>, StoreError> =>
    Effect.flatMap(
      graphql.run({
        name: "order",
        document: ORDER,
        variables: { id: orderGid(storeOrderId) },
        data: OrderData,
        mutation: false,
        estimatedCost: ORDER_COST
      }),
      ({ order }) => {
        if (order === null) return Effect.succeedNone
        const decoded = decodeShopifyOrder(order)
        return Either.isRight(decoded)
          ? Effect.succeedSome(decoded.right)
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
  const appendLineItems = (
    order: ShopifyOrder
  ): Effect.Effect<{ readonly _tag: "Complete"; readonly order: ShopifyOrder } | { readonly _tag: "Changed" }, StoreError> =>
    Effect.gen(function*() {
      let nodes = [...order.lineItems.nodes]
      let pageInfo = order.lineItems.pageInfo
      while (pageInfo.hasNextPage && pageInfo.endCursor !== null) {
        const { order: more } = yield* graphql.run({
          name: "orderLineItems",
          document: ORDER_LINE_ITEMS,
          variables: { id: order.id, after: pageInfo.endCursor },
          data: OrderLineItemsData,
          mutation: false,
          estimatedCost: 3 + LINE_ITEMS_PER_FOLLOW_UP * 4
        })
        if (more === null || more.updatedAt !== order.updatedAt) return { _tag: "Changed" } as const
        nodes = [...nodes, ...more.lineItems.nodes]
        pageInfo = more.lineItems.pageInfo
      }
      return { _tag: "Complete", order: { ...order, lineItems: { pageInfo, nodes } } } as const
    })

  const completeWithin = (order: ShopifyOrder, rereads: number): Effect.Effect<Option.Option<ShopifyOrder>, StoreError> =>
    Effect.flatMap(appendLineItems(order), (result) => {
      if (result._tag === "Complete") return Effect.succeedSome(result.order)
      if (rereads >= MAX_REREADS) {
        return Effect.fail(
          new StoreUnavailableError({
            storeKey,
            operation: "order",
            ambiguous: false,
            detail: `order ${order.legacyResourceId} kept changing while its line items were read; try again`
          })
        )
      }
      return Effect.flatMap(
        fetchOnce(order.legacyResourceId),
        Option.match({ onNone: () => Effect.succeedNone, onSome: (fresh) => completeWithin(fresh, rereads + 1) })
      )
    })

  const complete = (order: ShopifyOrder) => completeWithin(order, 0)

  const byId = (storeOrderId: string): Effect.Effect<Option.Option<ShopifyOrder>, StoreError> =>
    Effect.flatMap(
      fetchOnce(storeOrderId),
      Option.match({ onNone: () => Effect.succeedNone, onSome: complete })
    )

  return { page, byId, complete }
}
