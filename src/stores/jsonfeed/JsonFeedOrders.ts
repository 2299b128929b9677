/**
 * Reading orders: one item of a page into a normalized order (or an
 * unreadable one, with why), and one order and its fulfilments back by id:
 * `GET <base>/orders/{id}` and `GET <base>/orders/{id}/fulfillments`
 * (docs/jsonfeed.md §5, §7). A 404 is "the storefront does not know this
 * order", not an error.
 */
import { Effect, Either, Option, Schema } from "effect"
import type { NormalizedOrder } from "../../domain/NormalizedOrder.js"
import { canonicalTimestamp } from "../../domain/StoreTypes.js"
import { identityFields, readOrderVersion, type ReadVersion, unreadableVersion } from "../OverlapWalk.js"
import { keepBody, type StoreError, StoreResponseError } from "../StoreErrors.js"
import { orderPath } from "./JsonFeedConfig.js"
import { type JsonFeedHttp, readJson, refusal } from "./JsonFeedHttp.js"
import { normalizeJsonFeedOrder } from "./JsonFeedNormalize.js"
import { decodeJsonFeedOrder, type JsonFeedFulfillment, JsonFeedFulfillmentList } from "./JsonFeedSchemas.js"

/** Best-effort identity of an order, so one we could not decode is reported once per version. */
const identityOf = identityFields("id", "updated_at", canonicalTimestamp)

/** One order of a page: normalized, or reported unreadable with why. */
export const readOrder = (storeKey: string, item: unknown): ReadVersion => {
  const decoded = decodeJsonFeedOrder(item)
  if (Either.isLeft(decoded)) return unreadableVersion(identityOf(item), item, decoded.left.message)
  return Either.match(normalizeJsonFeedOrder(storeKey, decoded.right, item), {
    onLeft: (problem) => unreadableVersion(identityOf(item), item, problem),
    onRight: readOrderVersion
  })
}

export interface JsonFeedOrderReader {
  readonly byId: (storeOrderId: string) => Effect.Effect<Option.Option<NormalizedOrder>, StoreError>
  readonly fulfillments: (storeOrderId: string) => Effect.Effect<Option.Option<ReadonlyArray<JsonFeedFulfillment>>, StoreError>
}

export const makeJsonFeedOrderReader = (storeKey: string, http: JsonFeedHttp): JsonFeedOrderReader => {
  const byId = (storeOrderId: string): Effect.Effect<Option.Option<NormalizedOrder>, StoreError> =>
    Effect.gen(function*() {
      const request = { operation: "order", method: "GET", path: orderPath(storeOrderId), write: false } as const
      const answer = yield* http.send(request)
      if (answer.status === 404) return Option.none()
      if (answer.status !== 200) return yield* refusal(storeKey, request.operation, answer)
      const item = readOrder(storeKey, yield* readJson(storeKey, request, answer, Schema.Unknown))
      if (item.order !== undefined) return Option.some(item.order)
      return yield* new StoreResponseError({
        storeKey,
        operation: request.operation,
        ambiguous: false,
        status: answer.status,
        body: keepBody(answer.body),
        detail: item.unreadable?.problem ?? "the order cannot be read"
      })
    })

  const fulfillments = (storeOrderId: string): Effect.Effect<Option.Option<ReadonlyArray<JsonFeedFulfillment>>, StoreError> =>
    Effect.gen(function*() {
      const request = { operation: "fulfillments", method: "GET", path: orderPath(storeOrderId, "/fulfillments"), write: false } as const
      const answer = yield* http.send(request)
      if (answer.status === 404) return Option.none()
      if (answer.status !== 200) return yield* refusal(storeKey, request.operation, answer)
      const list = yield* readJson(storeKey, request, answer, JsonFeedFulfillmentList)
      return Option.some(list.fulfillments)
    })

  return { byId, fulfillments }
}
