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
import { normalizeReadOrder } from "./ShopifyNormalize.js"
import { decodeShopifyOrder, type OrdersPage, type PageNode, rawOrder, type ShopifyOrderReader } from "./ShopifyOrders.js"

/** Best-effort identity of a node, so a node we could not decode is reported once per version. */
const identityOfNode = identityFields("legacyResourceId", "updatedAt", canonicalTimestamp)
const identityOf = (item: PageNode) => identityOfNode(item.node)

const readNode = (settings: PullSettings, reader: ShopifyOrderReader, item: PageNode): Effect.Effect<ReadVersion, StoreError> => {
  const decoded = decodeShopifyOrder(item.node)
  if (Either.isLeft(decoded)) return Effect.succeed(unreadableVersion(identityOf(item), item.node, decoded.left.message))
  return Effect.map(reader.complete(decoded.right, item.denied), (completed) =>
    Option.match(completed, {
      // Deleted while we read it: nothing to hand out.
      onNone: () => nothingToHandOut,
      onSome: (read) =>
        Either.match(normalizeReadOrder(settings.storeKey, read), {
          onLeft: (problem) =>
            unreadableVersion(
              { id: read.order.legacyResourceId, updatedAt: canonicalTimestamp(read.order.updatedAt) },
              rawOrder(read.order),
              problem
            ),
          onRight: readOrderVersion
        })
    }))
}

export const shopifyWalk = (settings: PullSettings, reader: ShopifyOrderReader): WalkDriver<WalkPosition, PageNode, OrdersPage> => ({
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
