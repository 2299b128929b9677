/**
 * The JSON feed's driver of the shared overlap walk (OverlapWalk.ts; see
 * JsonFeedCursor.ts for why it neither skips nor repeats): `GET <base>/orders`
 * from `updated_since`, following the storefront's opaque `next_cursor`.
 */
import { Effect } from "effect"
import { canonicalTimestamp } from "../../domain/StoreTypes.js"
import { type PullSettings, type WalkDriver } from "../OverlapWalk.js"
import type { StoreError } from "../StoreErrors.js"
import { afterPage, restartWalk, startWalk, type WalkPosition } from "./JsonFeedCursor.js"
import { errorOf, type JsonFeedHttp, readJson, refusal } from "./JsonFeedHttp.js"
import { readOrder } from "./JsonFeedOrders.js"
import { JsonFeedOrdersPage } from "./JsonFeedSchemas.js"

interface PageListed {
  readonly _tag: "Page"
  readonly items: ReadonlyArray<unknown>
  readonly nextCursor: string | null
  readonly upperBound: string | null
}

type PageAnswer = PageListed | { readonly _tag: "CursorRefused" }

const fetchOrders = (settings: PullSettings, http: JsonFeedHttp, position: WalkPosition): Effect.Effect<PageAnswer, StoreError> =>
  Effect.gen(function*() {
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

/** The next page, walking the window again from its start when the storefront forgot our cursor. */
const listPage = (settings: PullSettings, http: JsonFeedHttp, start: WalkPosition) =>
  Effect.gen(function*() {
    let position = start
    let answer = yield* fetchOrders(settings, http, position)
    if (answer._tag === "CursorRefused") {
      // The storefront forgot our cursor (expired, redeployed): walk the same window again from its start.
      position = restartWalk(position)
      answer = yield* fetchOrders(settings, http, position)
    }
    // Only a sent cursor can be refused, and the restarted walk sends none.
    if (answer._tag === "CursorRefused") return yield* Effect.dieMessage("invalid_cursor answered to a request without a cursor")
    return { position, items: answer.items, facts: answer }
  })

export const jsonFeedWalk = (settings: PullSettings, http: JsonFeedHttp): WalkDriver<WalkPosition, unknown, PageListed> => ({
  start: (cursor, since) => startWalk(cursor, since, settings.overlapSeconds),
  list: (position) => listPage(settings, http, position),
  read: (item) => Effect.succeed(readOrder(settings.storeKey, item)),
  advance: (position, { facts, handedOut, nowMillis, updatedAts }) =>
    afterPage(
      position,
      { updatedAts, handedOut, nextCursor: facts.nextCursor, upperBound: facts.upperBound, nowMillis },
      settings.overlapSeconds
    )
})
