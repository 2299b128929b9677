/**
 * Pure bookkeeping of an incremental Shopify pull ("walk").
 *
 * A walk asks `orders(sortKey: UPDATED_AT, query: "updated_at:>='L'")` with
 * L = watermark − overlap, and follows Shopify's cursors to the end. Shopify
 * cursors are keyset positions (last sort value + id), so an order edited
 * during the walk moves behind the position and is met again later in the
 * same walk with its new `updatedAt`; nothing shifts into pages already read.
 * The lower bound stays fixed for the whole walk (the cursor is only valid
 * for the query it came from).
 *
 * The watermark moves only when a walk ends, to the highest `updatedAt` seen,
 * and the next walk starts `overlap` before it, with `>=`: an order written
 * in the same second as the last one seen, or indexed late by Shopify's
 * search, is still found. Order versions already handed out near the
 * watermark are remembered in the cursor (`seen`), so the overlap re-read
 * does not hand them out twice.
 */
import { DateTime, Option, Schema } from "effect"
import { canonicalTimestamp, type StoreCursor } from "../../domain/StoreTypes.js"
import { EPOCH, laterOf, MAX_SEEN, pruneSeen } from "../SeenVersions.js"
import { resumedFrom, type AfterPageOf } from "../WalkCursor.js"

export { EPOCH, laterOf, MAX_SEEN, pruneSeen }

export interface WalkPosition {
  /** The watermark the walk started from; it stays the persisted watermark until the walk ends. */
  readonly base: string
  /** Lower bound of this walk's query; null = the whole history. */
  readonly lower: string | null
  /** Shopify cursor to continue after; null at the start of a walk. */
  readonly after: string | null
  /** Highest `updatedAt` seen so far (the previous watermark at the start). */
  readonly high: string
  /** Versions (`<id>@<updatedAt>`) already handed out. */
  readonly seen: ReadonlySet<string>
  /** When the last walk over the whole overlap started (persisted with the cursor); null: never. */
  readonly sweptAt: string | null
}

/**
 * Most walks re-read only this much before the watermark (orders indexed a
 * little late); every `overlap` seconds a walk re-reads the whole overlap.
 * Each re-read order costs query points, and with Shopify's Standard bucket
 * a frequent pull over five minutes of orders falls behind.
 */
export const QUICK_OVERLAP_SECONDS = 15

const Continuation = Schema.parseJson(
  Schema.Struct({ lower: Schema.NullOr(Schema.String), after: Schema.String, high: Schema.String })
)

export const minusSeconds = (iso: string, seconds: number): string =>
  Option.match(DateTime.make(iso), {
    onNone: () => EPOCH,
    onSome: (dateTime) => canonicalTimestamp(DateTime.formatIso(DateTime.subtract(dateTime, { seconds }))) ?? EPOCH
  })

/** The search filter for a walk; the bound is quoted as Shopify's search syntax wants. */
export const ordersQuery = (lower: string | null): string | null => (lower === null ? null : `updated_at:>='${lower}'`)

/** Where a pull starts: inside an unfinished walk, or a new walk from the watermark. */
export const startWalk = (
  cursor: StoreCursor | null,
  since: string | undefined,
  overlapSeconds: number,
  /** Now (ISO); without it every walk re-reads the whole overlap. */
  now?: string
): WalkPosition => {
  const seen = new Set(cursor?.seen ?? [])
  if (cursor === null) {
    const from = since === undefined ? null : canonicalTimestamp(since) ?? null
    return { base: from ?? EPOCH, lower: from, after: null, high: from ?? EPOCH, seen, sweptAt: now ?? null }
  }
  // An unreadable continuation restarts the walk (see resumedFrom).
  const resumed = resumedFrom(Continuation, cursor)
  if (resumed !== undefined) return { base: cursor.watermark, ...resumed, seen, sweptAt: cursor.sweptAt ?? null }
  const sweep = now === undefined || cursor.sweptAt === undefined ||
    Date.parse(now) - Date.parse(cursor.sweptAt) >= overlapSeconds * 1000 || Number.isNaN(Date.parse(cursor.sweptAt))
  const overlap = sweep ? overlapSeconds : Math.min(overlapSeconds, QUICK_OVERLAP_SECONDS)
  return {
    base: cursor.watermark,
    lower: cursor.watermark === EPOCH ? null : minusSeconds(cursor.watermark, overlap),
    after: null,
    high: cursor.watermark,
    seen,
    sweptAt: sweep ? now ?? cursor.sweptAt ?? null : cursor.sweptAt ?? null
  }
}

export interface PageFacts {
  /** `updatedAt` of every order on the page, handed out or not. */
  readonly updatedAts: ReadonlyArray<string>
  /** Versions handed out from this page. */
  readonly handedOut: ReadonlyArray<string>
  readonly hasNextPage: boolean
  readonly endCursor: string | null
}

export type AfterPage = AfterPageOf<WalkPosition>

/** The walk after one page: the cursor to persist and where the next page starts. */
export const afterPage = (position: WalkPosition, page: PageFacts, overlapSeconds: number): AfterPage => {
  const high = page.updatedAts.reduce(laterOf, position.high)
  const seenList = pruneSeen([...position.seen, ...page.handedOut], high, overlapSeconds)
  const done = !page.hasNextPage || page.endCursor === null
  const swept = position.sweptAt === null ? {} : { sweptAt: position.sweptAt }
  if (done) {
    return {
      position: { base: high, lower: position.lower, after: null, high, seen: new Set(seenList), sweptAt: position.sweptAt },
      cursor: { watermark: high, seen: seenList, ...swept },
      done
    }
  }
  const after = page.endCursor as string
  return {
    position: { ...position, after, high, seen: new Set(seenList) },
    cursor: {
      // The watermark moves only when the walk ends; until then the walk resumes from `continuation`.
      watermark: position.base,
      continuation: Schema.encodeSync(Continuation)({ lower: position.lower, after, high }),
      seen: seenList,
      ...swept
    },
    done
  }
}
