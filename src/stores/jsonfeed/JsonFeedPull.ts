/**
 * The incremental pull as a stream of pages (see JsonFeedCursor.ts for why it
 * neither skips nor repeats). A page is fetched only when the consumer asks
 * for it, so the consumer stores a page and persists `page.cursor` before the
 * next request leaves.
 */
import { Clock, Effect, Option, Stream } from "effect"
import type { NormalizedOrder } from "../../domain/NormalizedOrder.js"
import { canonicalTimestamp, type StoreCursor } from "../../domain/StoreTypes.js"
import type { PulledPage, PullOptions, UnreadableOrder } from "../StoreConnector.js"
import type { StoreError } from "../StoreErrors.js"
import { afterPage, restartWalk, startWalk, type WalkPosition } from "./JsonFeedCursor.js"
import { errorOf, type JsonFeedHttp, readJson, refusal } from "./JsonFeedHttp.js"
import { readOrder } from "./JsonFeedOrders.js"
import { JsonFeedOrdersPage } from "./JsonFeedSchemas.js"

export interface PullSettings {
  readonly storeKey: string
  readonly pageSize: number
  readonly overlapSeconds: number
}

type PageAnswer =
  | { readonly _tag: "Page"; readonly items: ReadonlyArray<unknown>; readonly nextCursor: string | null; readonly upperBound: string | null }
  | { readonly _tag: "CursorRefused" }

const fetchOrders = (settings: PullSettings, http: JsonFeedHttp, position: WalkPosition): Effect.Effect<PageAnswer, StoreError> =>
  Effect.gen(function* () {
    const request = {
      operation: "orders",
      method: "GET",
      path: "/orders",
      query: {
        limit: String(settings.pageSize),
        ...(position.since === null ? {} : { updated_since: position.since }),
        ...(position.cursor === null ? {} : { cursor: position.cursor })
      },
      write: false
    } as const
    const answer = yield* http.send(request)
    if (answer.status === 400 && position.cursor !== null && errorOf(answer)?.code === "invalid_cursor") {
      return { _tag: "CursorRefused" } as const
    }
    if (answer.status !== 200) return yield* refusal(settings.storeKey, request.operation, answer)
    const page = yield* readJson(settings.storeKey, request, answer, JsonFeedOrdersPage)
    const next = page.next_cursor ?? null
    return {
      _tag: "Page",
      items: page.orders,
      nextCursor: next === null || next === "" ? null : next,
      upperBound: page.upper_bound === null || page.upper_bound === undefined ? null : canonicalTimestamp(page.upper_bound) ?? null
    } as const
  })

const fetchPage = (
  settings: PullSettings,
  http: JsonFeedHttp,
  start: WalkPosition
): Effect.Effect<{ page: PulledPage; next: WalkPosition }, StoreError> =>
  Effect.gen(function* () {
    let position = start
    let answer = yield* fetchOrders(settings, http, position)
    if (answer._tag === "CursorRefused") {
      // The storefront forgot our cursor (expired, redeployed): walk the same window again from its start.
      position = restartWalk(position)
      answer = yield* fetchOrders(settings, http, position)
    }
    // Only a sent cursor can be refused, and the restarted walk sends none.
    if (answer._tag === "CursorRefused") return yield* Effect.dieMessage("invalid_cursor answered to a request without a cursor")
    const read = answer.items.map((item) => readOrder(settings.storeKey, item))
    const handedOut = new Set<string>()
    const orders: Array<NormalizedOrder> = []
    const unreadable: Array<UnreadableOrder> = []
    for (const item of read) {
      if (item.key !== undefined && (position.seen.has(item.key) || handedOut.has(item.key))) continue
      if (item.key !== undefined) handedOut.add(item.key)
      if (item.order !== undefined) orders.push(item.order)
      if (item.unreadable !== undefined) unreadable.push(item.unreadable)
    }
    const after = afterPage(
      position,
      {
        updatedAts: read.flatMap((item) => (item.updatedAt === undefined ? [] : [item.updatedAt])),
        handedOut: [...handedOut],
        nextCursor: answer.nextCursor,
        upperBound: answer.upperBound,
        nowMillis: yield* Clock.currentTimeMillis
      },
      settings.overlapSeconds
    )
    return { page: { orders, unreadable, cursor: after.cursor, done: after.done }, next: after.position }
  })

export const pullJsonFeedOrders = (
  settings: PullSettings,
  http: JsonFeedHttp,
  cursor: StoreCursor | null,
  options?: PullOptions
): Stream.Stream<PulledPage, StoreError> =>
  Stream.unfoldEffect(Option.some(startWalk(cursor, options?.since, settings.overlapSeconds)), (state: Option.Option<WalkPosition>) =>
    Option.match(state, {
      onNone: () => Effect.succeedNone,
      onSome: (position) =>
        Effect.map(fetchPage(settings, http, position), ({ page, next }) =>
          Option.some([page, page.done ? Option.none<WalkPosition>() : Option.some(next)] as const)
        )
    })
  )
