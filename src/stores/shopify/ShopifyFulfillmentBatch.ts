/**
 * Several orders' fulfilment pushes in a few requests instead of two per
 * order: one `nodes(ids:)` read per 10 orders, then one mutation of aliased
 * `fulfillmentCreate`s (up to 50) for every package that needs one.
 *
 * Each push gets exactly what `pushFulfillment` would have answered: the
 * same plan (`planFulfillment`) over the same state. An order whose batched
 * answer may be cut short (the batch asks for fewer fulfilments and
 * fulfillment orders than the single read) is read again by the single read;
 * more fulfillment order lines are paged as the single read pages them. Two
 * pushes of one order go in successive rounds, so the second plans over what
 * the first made (a repeated tracking number is `AlreadyPushed`, not twice made).
 *
 * An error of a whole request (timeout, 5xx, throttled for too long) is the
 * error of every push in it, ambiguous for the mutation as for a single push.
 * A read Shopify refuses as too costly (`MAX_COST_EXCEEDED`: it may charge
 * plain lists by their `first`) is split in halves until each half fits.
 */
import { Effect, Either, Schema } from "effect"
import type { FulfillmentOutcome, FulfillmentPush } from "../../domain/StoreTypes.js"
import { keepBody, type StoreError, StoreResponseError } from "../StoreErrors.js"
import { chunksOf, type Indexed, roundsByKey } from "./ShopifyBatches.js"
import { type CreateAnswer, fulfillmentInput, notAnOrderId, notifiesAt, type ShopifyFulfillment } from "./ShopifyFulfillment.js"
import { type FulfillmentCreation, type FulfillmentPlan, planFulfillment } from "./ShopifyFulfillmentPlan.js"
import type { ShopifyGraphql } from "./ShopifyGraphql.js"
import {
  BATCHED_FULFILLMENTS,
  FULFILLMENT_CREATES_PER_MUTATION,
  FULFILLMENT_STATES,
  FULFILLMENT_STATES_COST_PER_ORDER,
  FULFILLMENT_STATES_PER_QUERY,
  fulfillmentAlias,
  fulfillmentCreateMany,
  isLegacyOrderId,
  orderGid
} from "./ShopifyQueries.js"
import { aliasedData, BatchedFulfillmentState, FulfillmentCreatePayload, FulfillmentStatesData } from "./ShopifySchemas.js"

type PushResult = Either.Either<FulfillmentOutcome, StoreError>

/** A push whose plan creates fulfilments, waiting for the mutation. */
interface PlannedPush {
  readonly index: number
  readonly push: FulfillmentPush
  readonly creations: ReadonlyArray<FulfillmentCreation>
  readonly notify: boolean
}

/** Shopify refused the query as asking for more than its cost cap: nothing ran, a smaller one may pass. */
export const tooCostly = (error: StoreError): boolean =>
  error._tag === "StoreApiError" && error.codes?.includes("MAX_COST_EXCEEDED") === true

/** Whether the batched answer may be missing something the single read would have seen. */
export const mayBeCutShort = (order: BatchedFulfillmentState): boolean =>
  order.fulfillments.length >= BATCHED_FULFILLMENTS || order.fulfillmentOrders.pageInfo.hasNextPage

/**
 * A push's creation answers in order, up to its first refusal: a single push stops there, so what the
 * batch created after it does not change the outcome (nor does an unreadable answer after it).
 */
const answersUntilRefused = <P>(
  payloads: ReadonlyArray<P>,
  created: (payload: P) => Either.Either<CreateAnswer, StoreError>
): Either.Either<Array<CreateAnswer>, StoreError> => {
  const answers: Array<CreateAnswer> = []
  for (const payload of payloads) {
    const answer = created(payload)
    if (Either.isLeft(answer)) return Either.left(answer.left)
    answers.push(answer.right)
    if ("messages" in answer.right) break
  }
  return Either.right(answers)
}

/** Groups of whole pushes, each with at most `max` creations (a push with more goes alone). */
const mutationGroups = (planned: ReadonlyArray<PlannedPush>, max: number): Array<Array<PlannedPush>> => {
  const groups: Array<Array<PlannedPush>> = []
  let current: Array<PlannedPush> = []
  let size = 0
  for (const p of planned) {
    if (current.length > 0 && size + p.creations.length > max) {
      groups.push(current)
      current = []
      size = 0
    }
    current.push(p)
    size += p.creations.length
  }
  if (current.length > 0) groups.push(current)
  return groups
}

export const makeShopifyFulfillmentBatch = (storeKey: string, graphql: ShopifyGraphql, fulfillment: ShopifyFulfillment) => {
  const decodeOrder = Schema.decodeUnknownEither(BatchedFulfillmentState)

  const unreadable = (node: unknown, detail: string) =>
    new StoreResponseError({
      storeKey,
      operation: "fulfillmentStates",
      ambiguous: false,
      status: 200,
      body: keepBody(JSON.stringify(node)),
      detail
    })

  /** One push's plan from its node in the batched answer (null: Shopify does not know the order). */
  const planFromNode = (push: FulfillmentPush, node: unknown) =>
    Effect.gen(function*() {
      if (node === null) return { _tag: "Decided", outcome: yield* fulfillment.unknownOrderOutcome(push) } as const
      const decoded = decodeOrder(node)
      if (Either.isLeft(decoded)) return yield* unreadable(node, decoded.left.message)
      const order = decoded.right
      if (order.id !== orderGid(push.storeOrderId)) {
        return yield* unreadable(node, `asked for ${orderGid(push.storeOrderId)}, got ${order.id}`)
      }
      const state = mayBeCutShort(order) ? yield* fulfillment.readState(push) : yield* fulfillment.completeState(order, push)
      return state === null
        ? ({ _tag: "Decided", outcome: yield* fulfillment.unknownOrderOutcome(push) } as const)
        : planFulfillment(state, push)
    })

  /**
   * Orders per batched read: FULFILLMENT_STATES_PER_QUERY until Shopify refuses one as too costly,
   * then at most half the refused size, so later claims do not spend a refused request each.
   */
  let perQuery = FULFILLMENT_STATES_PER_QUERY

  /** One batched read of `ids`; refused as too costly, the two halves are read instead (each split again as needed). */
  const readStates = (ids: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<unknown>, StoreError> =>
    graphql.run({
      name: "fulfillmentStates",
      document: FULFILLMENT_STATES,
      variables: { ids },
      data: FulfillmentStatesData,
      mutation: false,
      estimatedCost: FULFILLMENT_STATES_COST_PER_ORDER * ids.length
    }).pipe(
      Effect.map(({ nodes }) => nodes),
      Effect.catchIf(
        (error) => ids.length > 1 && tooCostly(error),
        () => {
          const half = Math.ceil(ids.length / 2)
          perQuery = Math.min(perQuery, half)
          return Effect.map(
            Effect.all([readStates(ids.slice(0, half)), readStates(ids.slice(half))]),
            ([first, second]) => [...first, ...second]
          )
        }
      )
    )

  /** Reads and plans the pushes of one chunk (each a different order); the decided ones are answered. */
  const planChunk = (chunk: ReadonlyArray<Indexed<FulfillmentPush>>, results: Array<PushResult>) =>
    Effect.gen(function*() {
      const ids = chunk.map(({ item }) => orderGid(item.storeOrderId))
      const read = yield* Effect.either(readStates(ids))
      const nodes = Either.flatMap(read, (nodes) =>
        nodes.length === ids.length
          ? Either.right(nodes)
          : Either.left(unreadable(nodes, `asked for ${ids.length} orders, got ${nodes.length} answers`)))
      if (Either.isLeft(nodes)) {
        for (const { index } of chunk) results[index] = Either.left(nodes.left)
        return []
      }
      const planned: Array<PlannedPush> = []
      // A later package of lines already fulfilled (rare): its own mutation, as a single push makes it.
      const later: Array<{ index: number; push: FulfillmentPush; plan: Extract<FulfillmentPlan, { _tag: "AddTracking" }> }> = []
      yield* Effect.forEach(chunk, ({ index, item: push }, position) => {
        return Effect.match(planFromNode(push, nodes.right[position]), {
          onFailure: (error) => {
            results[index] = Either.left(error)
          },
          onSuccess: (plan) => {
            if (plan._tag === "Decided") results[index] = Either.right(plan.outcome)
            else if (plan._tag === "AddTracking") later.push({ index, push, plan })
            else planned.push({ index, push, creations: plan.creations, notify: fulfillment.notifies(push) })
          }
        })
      })
      for (const { index, push, plan } of later) results[index] = yield* Effect.either(fulfillment.addTracking(plan, push))
      return planned
    })

  /** One mutation for the creations of several pushes; each push's answers become its outcome. */
  const createGroup = (group: ReadonlyArray<PlannedPush>, results: Array<PushResult>) =>
    Effect.gen(function*() {
      const calls = group.flatMap((p) => p.creations.map((creation, i) => ({ planned: p, creation, notify: p.notify && notifiesAt(i) })))
      const aliases = calls.map((_, i) => fulfillmentAlias(i))
      const answer = yield* Effect.either(
        graphql.run({
          name: "fulfillmentCreateMany",
          document: fulfillmentCreateMany(aliases),
          variables: Object.fromEntries(calls.map((c, i) => [fulfillmentAlias(i), fulfillmentInput(c.creation, c.planned.push, c.notify)])),
          data: aliasedData(aliases, FulfillmentCreatePayload),
          mutation: true,
          estimatedCost: 10 * aliases.length
        })
      )
      if (Either.isLeft(answer)) {
        for (const p of group) results[p.index] = Either.left(answer.left)
        return
      }
      let next = 0
      for (const p of group) {
        const payloads = p.creations.map(() => answer.right[fulfillmentAlias(next++)] ?? null)
        results[p.index] = Either.map(answersUntilRefused(payloads, fulfillment.created), (answers) =>
          fulfillment.outcomeOf(p, p.notify, answers))
      }
    })

  return (pushes: ReadonlyArray<FulfillmentPush>): Effect.Effect<ReadonlyArray<PushResult>> =>
    Effect.gen(function*() {
      const results: Array<PushResult> = new Array(pushes.length)
      const shopifyIds: Array<Indexed<FulfillmentPush>> = []
      pushes.forEach((push, index) => {
        if (isLegacyOrderId(push.storeOrderId)) shopifyIds.push({ index, item: push })
        else results[index] = Either.right(notAnOrderId(push))
      })
      for (const round of roundsByKey(shopifyIds, (push) => push.storeOrderId)) {
        const planned: Array<PlannedPush> = []
        for (const chunk of chunksOf(round, perQuery)) planned.push(...(yield* planChunk(chunk, results)))
        for (const group of mutationGroups(planned, FULFILLMENT_CREATES_PER_MUTATION)) yield* createGroup(group, results)
      }
      return results
    })
}
