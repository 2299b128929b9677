/**
 * Fulfilment push: read the order's fulfilment state, plan (pure), then
 * `fulfillmentCreate` per fulfillment order with tracking and the configured
 * `notifyCustomer`.
 *
 * Every push reads back first, not only after a doubt: the read is needed
 * anyway to find the fulfillment order lines, and reading fulfilments in the
 * same query makes each push idempotent on its tracking number. A retry after
 * an ambiguous failure (timeout, reset, 5xx) is therefore just a second call.
 */
import { Effect } from "effect"
import type { FulfillmentLine, FulfillmentOutcome, FulfillmentPush } from "../../domain/StoreTypes.js"
import { keepBody, type StoreError, StoreResponseError } from "../StoreErrors.js"
import {
  type FulfillmentOrderLineState,
  linesOf,
  type OrderFulfillmentState,
  planFulfillment,
  sameTrackingNumber
} from "./ShopifyFulfillmentPlan.js"
import type { ShopifyGraphql } from "./ShopifyGraphql.js"
import {
  FULFILLMENT_CREATE,
  FULFILLMENT_LINE_ITEMS,
  FULFILLMENT_ORDER_LINE_ITEMS,
  FULFILLMENT_STATE,
  isLegacyOrderId,
  orderGid
} from "./ShopifyQueries.js"
import {
  type FulfillmentOrderLine,
  FulfillmentCreateData,
  FulfillmentLineItemsData,
  FulfillmentOrderLineItemsData,
  FulfillmentStateData
} from "./ShopifySchemas.js"

/** Fulfilment statuses that mean the fulfilment stands (not cancelled, not failed). */
const STANDING = new Set(["SUCCESS", "OPEN", "PENDING"])

export interface FulfillmentSettings {
  readonly storeKey: string
  readonly notifyCustomer: boolean
}

export const makeShopifyFulfillmentPush = (settings: FulfillmentSettings, graphql: ShopifyGraphql) => {
  const { storeKey } = settings

  const remainingFulfillmentOrderLines = (
    fulfillmentOrderId: string,
    after: string
  ): Effect.Effect<Array<FulfillmentOrderLine>, StoreError> =>
    Effect.flatMap(
      graphql.run({
        name: "fulfillmentOrderLineItems",
        document: FULFILLMENT_ORDER_LINE_ITEMS,
        variables: { id: fulfillmentOrderId, after },
        data: FulfillmentOrderLineItemsData,
        mutation: false,
        estimatedCost: 203
      }),
      ({ fulfillmentOrder }) => {
        const page = fulfillmentOrder?.lineItems
        if (page === undefined) return Effect.succeed([])
        return page.pageInfo.hasNextPage && page.pageInfo.endCursor !== null
          ? Effect.map(remainingFulfillmentOrderLines(fulfillmentOrderId, page.pageInfo.endCursor), (more) => [
              ...page.nodes,
              ...more
            ])
          : Effect.succeed([...page.nodes])
      }
    )

  const fulfillmentLines = (fulfillmentId: string, after: string | null): Effect.Effect<Array<FulfillmentLine>, StoreError> =>
    Effect.flatMap(
      graphql.run({
        name: "fulfillmentLineItems",
        document: FULFILLMENT_LINE_ITEMS,
        variables: { id: fulfillmentId, after },
        data: FulfillmentLineItemsData,
        mutation: false,
        estimatedCost: 203
      }),
      ({ fulfillment }) => {
        if (fulfillment === null) return Effect.succeed([])
        const { pageInfo, nodes } = fulfillment.fulfillmentLineItems
        const lines = nodes.map((n) => ({ lineId: n.lineItem.id, quantity: n.quantity ?? 0 }))
        return pageInfo.hasNextPage && pageInfo.endCursor !== null
          ? Effect.map(fulfillmentLines(fulfillmentId, pageInfo.endCursor), (more) => [...lines, ...more])
          : Effect.succeed(lines)
      }
    )

  const readState = (push: FulfillmentPush): Effect.Effect<OrderFulfillmentState | null, StoreError> =>
    Effect.gen(function* () {
      const { order } = yield* graphql.run({
        name: "fulfillmentState",
        document: FULFILLMENT_STATE,
        variables: { id: orderGid(push.storeOrderId) },
        data: FulfillmentStateData,
        mutation: false,
        estimatedCost: 275
      })
      if (order === null) return null
      const fulfillmentOrders = yield* Effect.forEach(order.fulfillmentOrders.nodes, (fo) =>
        Effect.map(
          fo.lineItems.pageInfo.hasNextPage && fo.lineItems.pageInfo.endCursor !== null
            ? remainingFulfillmentOrderLines(fo.id, fo.lineItems.pageInfo.endCursor)
            : Effect.succeed([]),
          (more) => ({
            id: fo.id,
            status: fo.status,
            holds: fo.fulfillmentHolds,
            lines: [...fo.lineItems.nodes, ...more].map(
              (l): FulfillmentOrderLineState => ({ id: l.id, lineItemId: l.lineItem.id, remainingQuantity: l.remainingQuantity })
            )
          })
        )
      )
      const matching = order.fulfillments.filter(
        (f) =>
          STANDING.has(f.status) &&
          f.trackingInfo.some((t) => t.number !== null && sameTrackingNumber(t.number, push.tracking.number))
      )
      const sameTracking = yield* Effect.forEach(matching, (f) =>
        Effect.map(fulfillmentLines(f.id, null), (lines) => ({ id: f.id, lines }))
      )
      return { cancelled: order.cancelledAt !== null, sameTracking, fulfillmentOrders }
    })

  const create = (
    fulfillmentOrderId: string,
    lines: ReadonlyArray<{ id: string; quantity: number }>,
    push: FulfillmentPush,
    notifyCustomer: boolean
  ): Effect.Effect<{ id: string } | { messages: Array<string> }, StoreError> =>
    Effect.flatMap(
      graphql.run({
        name: "fulfillmentCreate",
        document: FULFILLMENT_CREATE,
        variables: {
          fulfillment: {
            lineItemsByFulfillmentOrder: [
              { fulfillmentOrderId, fulfillmentOrderLineItems: lines.map((l) => ({ id: l.id, quantity: l.quantity })) }
            ],
            notifyCustomer,
            trackingInfo: {
              company: push.tracking.company,
              number: push.tracking.number,
              ...(push.tracking.url === undefined ? {} : { url: push.tracking.url })
            }
          }
        },
        data: FulfillmentCreateData,
        mutation: true,
        estimatedCost: 10
      }),
      ({ fulfillmentCreate }): Effect.Effect<{ id: string } | { messages: Array<string> }, StoreError> => {
        if (fulfillmentCreate !== null && fulfillmentCreate.userErrors.length > 0) {
          return Effect.succeed({ messages: fulfillmentCreate.userErrors.map((e) => e.message) })
        }
        if (fulfillmentCreate?.fulfillment) return Effect.succeed({ id: fulfillmentCreate.fulfillment.id })
        return Effect.fail(
          new StoreResponseError({
            storeKey,
            operation: "fulfillmentCreate",
            ambiguous: true,
            status: 200,
            body: keepBody(JSON.stringify(fulfillmentCreate)),
            detail: "neither a fulfillment nor userErrors in the answer"
          })
        )
      }
    )

  return (push: FulfillmentPush): Effect.Effect<FulfillmentOutcome, StoreError> =>
    Effect.gen(function* () {
      if (!isLegacyOrderId(push.storeOrderId)) {
        return { _tag: "Rejected", reason: "unknown_order", messages: [`"${push.storeOrderId}" is not a Shopify order id`] } as const
      }
      const state = yield* readState(push)
      if (state === null) {
        return { _tag: "Rejected", reason: "unknown_order", messages: [`order ${push.storeOrderId} does not exist`] } as const
      }
      const plan = planFulfillment(state, push)
      if (plan._tag === "Decided") return plan.outcome
      const notify = push.notifyCustomer ?? settings.notifyCustomer
      const ids: Array<string> = []
      for (const [index, creation] of plan.creations.entries()) {
        // One package, one email: only the first fulfilment of a split package notifies the buyer.
        const result = yield* create(creation.fulfillmentOrderId, creation.lines, push, notify && index === 0)
        if ("messages" in result) {
          return { _tag: "Rejected", reason: "store_refused", messages: result.messages } as const
        }
        ids.push(result.id)
      }
      const [first, ...rest] = ids
      return first === undefined
        ? ({ _tag: "NothingToFulfil", reason: "nothing was created" } as const)
        : ({ _tag: "Created", fulfillmentIds: [first, ...rest], lines: linesOf(plan.creations), notifiedCustomer: notify } as const)
    })
}
