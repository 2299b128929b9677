/**
 * Pure bookkeeping of an incremental pull ("walk") over the contract's
 * `GET <base>/orders` (docs/jsonfeed.md §4).
 *
 * A walk sends `updated_since` = watermark − overlap (inclusive) and follows
 * the storefront's opaque `next_cursor` to the end. The storefront pages by
 * keyset on (updated_at, id) under an upper bound it froze on the first page
 * and reports as `upper_bound`: every order updated before that bound is in
 * the walk, and an order edited during the walk leaves it for the next one.
 *
 * When the walk ends the watermark moves to the upper bound (or, without one,
 * to the highest `updated_at` seen), and the next walk starts `overlap`
 * before it, to catch a write the storefront committed late. Versions
 * (`<id>@<updated_at>`) handed out near the watermark are remembered in the
 * cursor (`seen`), so the overlap re-read hands nothing out twice.
 */
import { DateTime, Option, Schema } from "effect"
import { canonicalTimestamp, type StoreCursor } from "../../domain/StoreTypes.js"
import { EPOCH, MAX_SEEN, pruneSeen } from "../SeenVersions.js"
import { resumedFrom, type AfterPageOf } from "../WalkCursor.js"

export { EPOCH, MAX_SEEN, pruneSeen }
/** An `upper_bound` further than this ahead of podsync's clock is not believed (a storefront bug would hide orders). */
export const MAX_UPPER_BOUND_AHEAD_MILLIS = 60 * 60 * 1000

export interface WalkPosition {
  /** The watermark the walk started from; it stays the persisted watermark until the walk ends. */
  readonly base: string
  /** `updated_since` of this walk; null = the whole history. */
  readonly since: string | null
  /** The storefront's cursor for the next page; null at the start of a walk. */
  readonly cursor: string | null
  /** Highest `updated_at` seen so far (the previous watermark at the start). */
  readonly high: string
  /** The walk's `upper_bound`, once the storefront has said it. */
  readonly upper: string | null
  /** Versions (`<id>@<updated_at>`) already handed out. */
  readonly seen: ReadonlySet<string>
}

const Continuation = Schema.parseJson(
  Schema.Struct({
    since: Schema.NullOr(Schema.String),
    cursor: Schema.String,
    high: Schema.String,
    upper: Schema.NullOr(Schema.String)
  })
)

export const millis = (iso: string): number => {
  const value = Date.parse(iso)
  return Number.isNaN(value) ? Number.NEGATIVE_INFINITY : value
}

export const laterOf = (a: string, b: string): string => (millis(b) > millis(a) ? b : a)

export const minusSeconds = (iso: string, seconds: number): string =>
  Option.match(DateTime.make(iso), {
    onNone: () => EPOCH,
    onSome: (dateTime) => canonicalTimestamp(DateTime.formatIso(DateTime.subtract(dateTime, { seconds }))) ?? EPOCH
  })

/** Where a pull starts: inside an unfinished walk, or a new walk from the watermark. */
export const startWalk = (cursor: StoreCursor | null, since: string | undefined, overlapSeconds: number): WalkPosition => {
  const seen = new Set(cursor?.seen ?? [])
  if (cursor === null) {
    const from = since === undefined ? null : canonicalTimestamp(since) ?? null
    return { base: from ?? EPOCH, since: from, cursor: null, high: from ?? EPOCH, upper: null, seen }
  }
  // An unreadable continuation restarts the walk (see resumedFrom).
  const resumed = resumedFrom(Continuation, cursor)
  if (resumed !== undefined) return { base: cursor.watermark, ...resumed, seen }
  return {
    base: cursor.watermark,
    since: cursor.watermark === EPOCH ? null : minusSeconds(cursor.watermark, overlapSeconds),
    cursor: null,
    high: cursor.watermark,
    upper: null,
    seen
  }
}

/** The same walk from its first page again (the storefront no longer knows our cursor). */
export const restartWalk = (position: WalkPosition): WalkPosition => ({ ...position, cursor: null, upper: null })

export interface PageFacts {
  /** `updated_at` of every order on the page, handed out or not. */
  readonly updatedAts: ReadonlyArray<string>
  /** Versions handed out from this page. */
  readonly handedOut: ReadonlyArray<string>
  readonly nextCursor: string | null
  /** The page's `upper_bound`, canonical, when it sent one. */
  readonly upperBound: string | null
  /** podsync's clock when the page arrived, to disbelieve an upper bound from the future. */
  readonly nowMillis: number
}

export type AfterPage = AfterPageOf<WalkPosition>

const believable = (upper: string | null, nowMillis: number): string | null =>
  upper !== null && millis(upper) <= nowMillis + MAX_UPPER_BOUND_AHEAD_MILLIS ? upper : null

/** The walk after one page: the cursor to persist and where the next page starts. */
export const afterPage = (position: WalkPosition, page: PageFacts, overlapSeconds: number): AfterPage => {
  const high = page.updatedAts.reduce(laterOf, position.high)
  const upper = position.upper ?? believable(page.upperBound, page.nowMillis)
  if (page.nextCursor === null) {
    const watermark = upper === null ? high : laterOf(high, upper)
    const seenList = pruneSeen([...position.seen, ...page.handedOut], watermark, overlapSeconds)
    return {
      position: { base: watermark, since: position.since, cursor: null, high: watermark, upper: null, seen: new Set(seenList) },
      cursor: { watermark, seen: seenList },
      done: true
    }
  }
  const seenList = pruneSeen([...position.seen, ...page.handedOut], high, overlapSeconds)
  return {
    position: { ...position, cursor: page.nextCursor, high, upper, seen: new Set(seenList) },
    cursor: {
      // The watermark moves only when the walk ends; until then the walk resumes from `continuation`.
      watermark: position.base,
      continuation: Schema.encodeSync(Continuation)({ since: position.since, cursor: page.nextCursor, high, upper }),
      seen: seenList
    },
    done: false
  }
}
