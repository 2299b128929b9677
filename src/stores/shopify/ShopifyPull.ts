/**
 * The incremental pull as a stream of pages (see ShopifyCursor.ts for why it
 * neither skips nor repeats). A page is fetched only when the consumer asks
 * for it, so the consumer stores a page and persists `page.cursor` before the
 * next request leaves.
 */
import { Clock, Effect, Either, Option, Stream } from "effect"
import { type NormalizedOrder, orderVersionKey } from "../../domain/NormalizedOrder.js"
import { canonicalTimestamp, type StoreCursor } from "../../domain/StoreTypes.js"
import type { PulledPage, PullOptions, UnreadableOrder } from "../StoreConnector.js"
import type { StoreError } from "../StoreErrors.js"
import { afterPage, ordersQuery, startWalk, type WalkPosition } from "./ShopifyCursor.js"
import { normalizeShopifyOrder } from "./ShopifyNormalize.js"
import { decodeShopifyOrder, rawOrder, type ShopifyOrderReader } from "./ShopifyOrders.js"

export interface PullSettings {
  readonly storeKey: string
  readonly pageSize: number
  readonly overlapSeconds: number
}

/** Best-effort identity of a node we could not decode, so it is reported once per version. */
const identityOf = (node: unknown): { id: string | undefined; updatedAt: string | undefined } => {
  if (typeof node !== "object" || node === null) return { id: undefined, updatedAt: undefined }
  const record = node as Record<string, unknown>
  const id = record["legacyResourceId"]
  const updatedAt = record["updatedAt"]
  return {
    id: typeof id === "string" || typeof id === "number" ? String(id) : undefined,
    updatedAt: typeof updatedAt === "string" ? canonicalTimestamp(updatedAt) : undefined
  }
}

interface ReadNode {
  readonly updatedAt: string | undefined
  readonly key: string | undefined
  readonly order: NormalizedOrder | undefined
  readonly unreadable: UnreadableOrder | undefined
}

const readNode = (settings: PullSettings, reader: ShopifyOrderReader, node: unknown): Effect.Effect<ReadNode, StoreError> => {
  const decoded = decodeShopifyOrder(node)
  if (Either.isLeft(decoded)) {
    const { id, updatedAt } = identityOf(node)
    return Effect.succeed({
      updatedAt,
      key: id !== undefined && updatedAt !== undefined ? `${id}@${updatedAt}` : undefined,
      order: undefined,
      unreadable: { storeOrderId: id, raw: node, problem: decoded.left.message }
    })
  }
  return Effect.map(reader.complete(decoded.right), (completed) =>
    Option.match(completed, {
      // Deleted while we read it: nothing to hand out.
      onNone: () => ({ updatedAt: undefined, key: undefined, order: undefined, unreadable: undefined }),
      onSome: (order) =>
        Either.match(normalizeShopifyOrder(settings.storeKey, order, rawOrder(order)), {
          onLeft: (problem) => {
            const updatedAt = canonicalTimestamp(order.updatedAt)
            return {
              updatedAt,
              key: updatedAt === undefined ? undefined : `${order.legacyResourceId}@${updatedAt}`,
              order: undefined,
              unreadable: { storeOrderId: order.legacyResourceId, raw: rawOrder(order), problem }
            }
          },
          onRight: (normalized) => ({
            updatedAt: normalized.updatedAt,
            key: orderVersionKey(normalized),
            order: normalized,
            unreadable: undefined
          })
        })
    })
  )
}

const fetchPage = (
  settings: PullSettings,
  reader: ShopifyOrderReader,
  position: WalkPosition
): Effect.Effect<{ page: PulledPage; next: WalkPosition }, StoreError> =>
  Effect.gen(function* () {
    const page = yield* reader.page({ first: settings.pageSize, after: position.after, query: ordersQuery(position.lower) })
    // A version handed out before (the overlap re-read) is known by its id and updatedAt alone: it is
    // neither decoded, nor completed (more line item pages), nor normalized again.
    const read = yield* Effect.forEach(page.nodes, (node) => {
      const { id, updatedAt } = identityOf(node)
      return id !== undefined && updatedAt !== undefined && position.seen.has(`${id}@${updatedAt}`)
        ? Effect.succeed<ReadNode>({ updatedAt, key: `${id}@${updatedAt}`, order: undefined, unreadable: undefined })
        : readNode(settings, reader, node)
    })
    const handedOut = new Set<string>()
    const orders: Array<NormalizedOrder> = []
    const unreadable: Array<UnreadableOrder> = []
    for (const item of read) {
      if (item.key !== undefined && (position.seen.has(item.key) || handedOut.has(item.key))) continue
      if (item.key !== undefined) handedOut.add(item.key)
      if (item.order !== undefined) orders.push(item.order)
      if (item.unreadable !== undefined) unreadable.push(item.unreadable)
    }
    const updatedAts = read.flatMap((item) => (item.updatedAt === undefined ? [] : [item.updatedAt]))
    const after = afterPage(
      position,
      { updatedAts, handedOut: [...handedOut], hasNextPage: page.hasNextPage, endCursor: page.endCursor },
      settings.overlapSeconds
    )
    return { page: { orders, unreadable, cursor: after.cursor, done: after.done }, next: after.position }
  })

export const pullShopifyOrders = (
  settings: PullSettings,
  reader: ShopifyOrderReader,
  cursor: StoreCursor | null,
  options?: PullOptions
): Stream.Stream<PulledPage, StoreError> =>
  Stream.unwrap(Effect.map(Clock.currentTimeMillis, (now) =>
    Stream.unfoldEffect(
      Option.some(startWalk(cursor, options?.since, settings.overlapSeconds, new Date(now).toISOString())),
      (state: Option.Option<WalkPosition>) =>
        Option.match(state, {
          onNone: () => Effect.succeedNone,
          onSome: (position) =>
            Effect.map(fetchPage(settings, reader, position), ({ page, next }) =>
              Option.some([page, page.done ? Option.none<WalkPosition>() : Option.some(next)] as const)
            )
        })
    )
  ))
