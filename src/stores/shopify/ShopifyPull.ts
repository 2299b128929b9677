/**
 * Shopify's driver of the shared overlap walk (OverlapWalk.ts; see
 * ShopifyCursor.ts for why it neither skips nor repeats): pages of
 * `orders(sortKey: UPDATED_AT)` followed by Shopify's cursors, each order
 * completed (further line item pages) before it is normalized.
 */
import { Effect, Either, Option } from "effect"
import { canonicalTimestamp } from "../../domain/StoreTypes.js"
import { identityFields, nothingToHandOut, readOrderVersion, unreadableVersion } from "../OverlapWalk.js"
import type { PullSettings, ReadVersion, WalkDriver } from "../OverlapWalk.js"
import type { StoreError } from "../StoreErrors.js"
import { afterPage, ordersQuery, startWalk, type WalkPosition } from "./ShopifyCursor.js"
import { normalizeShopifyOrder } from "./ShopifyNormalize.js"
import { decodeShopifyOrder, type OrdersPage, rawOrder, type ShopifyOrderReader } from "./ShopifyOrders.js"

/** Best-effort identity of a node, so a node we could not decode is reported once per version. */
const identityOf = identityFields("legacyResourceId", "updatedAt", canonicalTimestamp)

const readNode = (settings: PullSettings, reader: ShopifyOrderReader, node: unknown): Effect.Effect<ReadVersion, StoreError> => {
  const decoded = decodeShopifyOrder(node)
  if (Either.isLeft(decoded)) return Effect.succeed(unreadableVersion(identityOf(node), node, decoded.left.message))
  return Effect.map(reader.complete(decoded.right), (completed) =>
    Option.match(completed, {
      // Deleted while we read it: nothing to hand out.
      onNone: () => nothingToHandOut,
      onSome: (order) =>
        Either.match(normalizeShopifyOrder(settings.storeKey, order, rawOrder(order)), {
          onLeft: (problem) =>
            unreadableVersion({ id: order.legacyResourceId, updatedAt: canonicalTimestamp(order.updatedAt) }, rawOrder(order), problem),
          onRight: readOrderVersion
        })
    }))
}

export const shopifyWalk = (settings: PullSettings, reader: ShopifyOrderReader): WalkDriver<WalkPosition, unknown, OrdersPage> => ({
  start: (cursor, since, now) => startWalk(cursor, since, settings.overlapSeconds, new Date(now).toISOString()),
  list: (position) =>
    Effect.map(
      reader.page({ first: settings.pageSize, after: position.after, query: ordersQuery(position.lower) }),
      (page) => ({ position, items: page.nodes, facts: page })
    ),
  identify: identityOf,
  read: (node) => readNode(settings, reader, node),
  advance: (position, { facts, handedOut, updatedAts }) =>
    afterPage(position, { updatedAts, handedOut, hasNextPage: facts.hasNextPage, endCursor: facts.endCursor }, settings.overlapSeconds)
})
