/**
 * Fulfilment push: read the order's fulfilment state, plan (pure), then
 * `fulfillmentCreate` per fulfillment order with tracking and the configured
 * `notifyCustomer`.
 *
 * Every push reads back first, not only after a doubt: the read is needed
 * anyway to find the fulfillment order lines, and reading fulfilments in the
 * same query makes each push idempotent on its tracking number. A retry after
 * an ambiguous failure (timeout, reset, 5xx) is therefore just a second call.
 * `ShopifyFulfillmentBatch` does the same for many orders in fewer requests,
 * from the same pieces (`completeState`, `created`, `outcomeOf`).
 */
import { Effect, Either, Option } from "effect"
import type { FulfillmentLine, FulfillmentOutcome, FulfillmentPush } from "../../domain/StoreTypes.js"
import { keepBody, type StoreError, StoreResponseError } from "../StoreErrors.js"
import {
  type FulfillmentCreation,
  type FulfillmentOrderLineState,
  linesOf,
  type OrderFulfillmentState,
  planFulfillment,
  sameTrackingNumber,
  type TrackingUpdate
} from "./ShopifyFulfillmentPlan.js"
import type { ShopifyGraphql } from "./ShopifyGraphql.js"
import {
  FULFILLMENT_CREATE,
  FULFILLMENT_LINE_ITEMS,
  FULFILLMENT_ORDER_LINE_ITEMS,
  FULFILLMENT_ORDERS_STATE,
  FULFILLMENT_STATE,
  FULFILLMENT_TRACKING_INFO_UPDATE,
  isLegacyOrderId,
  orderGid
} from "./ShopifyQueries.js"
import {
  FulfillmentCreateData,
  type FulfillmentCreatePayload,
  FulfillmentLineItemsData,
  type FulfillmentOrderLine,
  FulfillmentOrderLineItemsData,
  FulfillmentOrdersStateData,
  type FulfillmentOrderState,
  type FulfillmentState,
  FulfillmentStateData,
  FulfillmentTrackingInfoUpdateData
} from "./ShopifySchemas.js"

/** An order's fulfilment state as read, with every fulfillment order it has (all pages). */
export type ReadFulfillmentState = Omit<FulfillmentState, "fulfillmentOrders"> & {
  readonly fulfillmentOrders: { readonly nodes: ReadonlyArray<FulfillmentOrderState> }
}

/** Fulfilment statuses that mean the fulfilment stands (not cancelled, not failed). */
const STANDING = new Set(["SUCCESS", "OPEN", "PENDING"])

export interface FulfillmentSettings {
  readonly storeKey: string
  readonly notifyCustomer: boolean
  /** Why Shopify may not know an order podsync knows (read_all_orders), when there is a reason to say. */
  readonly unknownOrderHint?: Effect.Effect<Option.Option<string>>
}

export const makeShopifyFulfillment = (settings: FulfillmentSettings, graphql: ShopifyGraphql) => {
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

  /**
   * The plan's input from an order as read (alone or in a batch): the fulfillment order lines beyond the
   * first page, and the lines of each standing fulfilment that carries the push's tracking number.
   */
  /** The order's fulfillment orders after `after` (an order moved or split many times has more than a page). */
  const moreFulfillmentOrders = (orderId: string, after: string): Effect.Effect<Array<FulfillmentOrderState>, StoreError> =>
    Effect.flatMap(
      graphql.run({
        name: "fulfillmentOrdersState",
        document: FULFILLMENT_ORDERS_STATE,
        variables: { id: orderId, after },
        data: FulfillmentOrdersStateData,
        mutation: false,
        estimatedCost: 273
      }),
      ({ order }) => {
        const page = order?.fulfillmentOrders
        if (page === undefined) return Effect.succeed([])
        return page.pageInfo.hasNextPage && page.pageInfo.endCursor !== null
          ? Effect.map(moreFulfillmentOrders(orderId, page.pageInfo.endCursor), (more) => [...page.nodes, ...more])
          : Effect.succeed([...page.nodes])
      }
    )

  const completeState = (order: ReadFulfillmentState, push: FulfillmentPush): Effect.Effect<OrderFulfillmentState, StoreError> =>
    Effect.gen(function*() {
      const fulfillmentOrders = yield* Effect.forEach(order.fulfillmentOrders.nodes, (fo) =>
        Effect.map(
          fo.lineItems.pageInfo.hasNextPage && fo.lineItems.pageInfo.endCursor !== null
            ? remainingFulfillmentOrderLines(fo.id, fo.lineItems.pageInfo.endCursor)
            : Effect.succeed([]),
          (more) => ({
            id: fo.id,
            status: fo.status,
            fulfillAt: fo.fulfillAt,
            holds: fo.fulfillmentHolds,
            lines: [...fo.lineItems.nodes, ...more].map(
              (l): FulfillmentOrderLineState => ({ id: l.id, lineItemId: l.lineItem.id, remainingQuantity: l.remainingQuantity })
            )
          })
        ))
      const matching = order.fulfillments.filter(
        (f) =>
          STANDING.has(f.status) &&
          f.trackingInfo.some((t) => t.number !== null && sameTrackingNumber(t.number, push.tracking.number))
      )
      const sameTracking = yield* Effect.forEach(
        matching,
        (f) => Effect.map(fulfillmentLines(f.id, null), (lines) => ({ id: f.id, lines }))
      )
      const standing = order.fulfillments.filter((f) => STANDING.has(f.status)).map((f) => ({ id: f.id, tracking: f.trackingInfo }))
      return { cancelled: order.cancelledAt !== null, sameTracking, fulfillmentOrders, standing }
    })

  /** The order's state read alone; null when Shopify does not know the order. */
  const readState = (push: FulfillmentPush): Effect.Effect<OrderFulfillmentState | null, StoreError> =>
    Effect.flatMap(
      graphql.run({
        name: "fulfillmentState",
        document: FULFILLMENT_STATE,
        variables: { id: orderGid(push.storeOrderId) },
        data: FulfillmentStateData,
        mutation: false,
        estimatedCost: 275
      }),
      ({ order }) => {
        if (order === null) return Effect.succeed(null)
        const { pageInfo, nodes } = order.fulfillmentOrders
        return Effect.flatMap(
          pageInfo.hasNextPage && pageInfo.endCursor !== null ? moreFulfillmentOrders(order.id, pageInfo.endCursor) : Effect.succeed([]),
          (more) => completeState({ ...order, fulfillmentOrders: { nodes: [...nodes, ...more] } }, push)
        )
      }
    )

  /** What one `fulfillmentCreate` answered: the fulfilment made, Shopify's refusal, or neither (we cannot tell). */
  const created = (
    payload: FulfillmentCreatePayload,
    operation = "fulfillmentCreate"
  ): Either.Either<CreateAnswer, StoreError> => {
    if (payload !== null && payload.userErrors.length > 0) return Either.right({ messages: payload.userErrors.map((e) => e.message) })
    if (payload?.fulfillment) return Either.right({ id: payload.fulfillment.id })
    return Either.left(
      new StoreResponseError({
        storeKey,
        operation,
        ambiguous: true,
        status: 200,
        body: keepBody(JSON.stringify(payload)),
        detail: "neither a fulfillment nor userErrors in the answer"
      })
    )
  }

  const create = (
    creation: FulfillmentCreation,
    push: FulfillmentPush,
    notifyCustomer: boolean
  ): Effect.Effect<CreateAnswer, StoreError> =>
    Effect.flatMap(
      graphql.run({
        name: "fulfillmentCreate",
        document: FULFILLMENT_CREATE,
        variables: { fulfillment: fulfillmentInput(creation, push, notifyCustomer) },
        data: FulfillmentCreateData,
        mutation: true,
        estimatedCost: 10
      }),
      ({ fulfillmentCreate }) => created(fulfillmentCreate)
    )

  /** The push's outcome from the answers to its creations, in order, up to the first refusal (which is the push's). */
  const outcomeOf = (
    plan: { readonly creations: ReadonlyArray<FulfillmentCreation> },
    notify: boolean,
    results: ReadonlyArray<CreateAnswer>
  ): FulfillmentOutcome => {
    const ids: Array<string> = []
    for (const result of results) {
      if ("messages" in result) return { _tag: "Rejected", reason: "store_refused", messages: result.messages }
      ids.push(result.id)
    }
    const [first, ...rest] = ids
    return first === undefined
      ? { _tag: "NothingToFulfil", reason: "nothing was created" }
      : { _tag: "Created", fulfillmentIds: [first, ...rest], lines: linesOf(plan.creations), notifiedCustomer: notify }
  }

  /**
   * A later package's number added to an earlier package's fulfilment; the buyer is told as a
   * fulfilment's creation would tell them (Shopify's shipping-update email when `notifyCustomer`).
   */
  const addTracking = (
    plan: { readonly fulfillmentId: string; readonly tracking: TrackingUpdate },
    push: FulfillmentPush
  ): Effect.Effect<FulfillmentOutcome, StoreError> =>
    Effect.gen(function*() {
      const notify = notifies(push)
      const { fulfillmentTrackingInfoUpdate } = yield* graphql.run({
        name: "fulfillmentTrackingInfoUpdate",
        document: FULFILLMENT_TRACKING_INFO_UPDATE,
        variables: { fulfillmentId: plan.fulfillmentId, trackingInfoInput: plan.tracking, notifyCustomer: notify },
        data: FulfillmentTrackingInfoUpdateData,
        mutation: true,
        estimatedCost: 10
      })
      const answer = yield* created(fulfillmentTrackingInfoUpdate, "fulfillmentTrackingInfoUpdate")
      return "messages" in answer
        ? { _tag: "Rejected", reason: "store_refused", messages: answer.messages }
        : { _tag: "TrackingAdded", fulfillmentIds: [answer.id], notifiedCustomer: notify }
    })

  const pushFulfillment = (push: FulfillmentPush): Effect.Effect<FulfillmentOutcome, StoreError> =>
    Effect.gen(function*() {
      if (!isLegacyOrderId(push.storeOrderId)) return notAnOrderId(push)
      const state = yield* readState(push)
      if (state === null) return yield* unknownOrderOutcome(push)
      const plan = planFulfillment(state, push)
      if (plan._tag === "Decided") return plan.outcome
      if (plan._tag === "AddTracking") return yield* addTracking(plan, push)
      const notify = notifies(push)
      const results: Array<CreateAnswer> = []
      for (const [index, creation] of plan.creations.entries()) {
        const result = yield* create(creation, push, notify && notifiesAt(index))
        results.push(result)
        if ("messages" in result) break
      }
      return outcomeOf(plan, notify, results)
    })

  const notifies = (push: FulfillmentPush): boolean => push.notifyCustomer ?? settings.notifyCustomer

  /** The order Shopify does not know, with why it may not (an app without read_all_orders sees 60 days). */
  const unknownOrderOutcome = (push: FulfillmentPush): Effect.Effect<FulfillmentOutcome> =>
    Effect.map(settings.unknownOrderHint ?? Effect.succeedNone, (hint) => unknownOrder(push, Option.getOrUndefined(hint)))

  return { pushFulfillment, readState, completeState, created, outcomeOf, notifies, addTracking, unknownOrderOutcome }
}

export type ShopifyFulfillment = ReturnType<typeof makeShopifyFulfillment>

/** One `fulfillmentCreate`'s answer: the fulfilment made, or Shopify's refusal. */
export type CreateAnswer = { readonly id: string } | { readonly messages: Array<string> }

/** One package, one email: only the first fulfilment of a split package notifies the buyer. */
export const notifiesAt = (creationIndex: number): boolean => creationIndex === 0

export const notAnOrderId = (push: FulfillmentPush): FulfillmentOutcome => ({
  _tag: "Rejected",
  reason: "unknown_order",
  messages: [`"${push.storeOrderId}" is not a Shopify order id`]
})

export const unknownOrder = (push: FulfillmentPush, hint?: string): FulfillmentOutcome => ({
  _tag: "Rejected",
  reason: "unknown_order",
  messages: [`order ${push.storeOrderId} does not exist${hint === undefined ? "" : ` for podsync: ${hint}`}`]
})

/** `fulfillmentCreate`'s input for one creation: its fulfillment order lines, the package's tracking. */
export const fulfillmentInput = (creation: FulfillmentCreation, push: FulfillmentPush, notifyCustomer: boolean) => ({
  lineItemsByFulfillmentOrder: [
    {
      fulfillmentOrderId: creation.fulfillmentOrderId,
      fulfillmentOrderLineItems: creation.lines.map((l) => ({ id: l.id, quantity: l.quantity }))
    }
  ],
  notifyCustomer,
  trackingInfo: {
    company: push.tracking.company,
    number: push.tracking.number,
    ...(push.tracking.url === undefined ? {} : { url: push.tracking.url })
  }
})
