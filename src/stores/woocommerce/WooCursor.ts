/**
 * Pure bookkeeping of an incremental WooCommerce pull ("walk").
 *
 * A walk lists `orderby=modified&order=asc&dates_are_gmt=true` between an exclusive lower bound and
 * an upper bound frozen when the walk starts (`modified_before`, exclusive), so orders edited during
 * the walk fall outside it and are met by the next walk instead of making this one endless. Bounds are
 * sent as GMT wall time without a designator (`2026-03-01T09:30:00`): with a `Z`, WordPress converts
 * the bound to the site's local time before comparing it with the GMT column.
 *
 * Page numbers are not safe under a frozen upper bound: an order already read that is edited leaves
 * the window, every later row moves up one place, and the first row of the next page is never seen.
 * So the walk pages by key instead: after a page whose last row was modified at second S, the next
 * page asks `modified_after = S − 1 s` (the bound is exclusive and has second precision, so rows of
 * second S are asked again; those already handed out are recognised by their version and skipped).
 * Each page thus starts from a position in time, which edits elsewhere cannot shift.
 *
 * One case needs offsets: a full page of rows all modified in the same second (a bulk status change).
 * The walk then reads that second alone (`S − 1 s < modified < S + 1 s`, ties ordered by ID) by offset,
 * starting again from 0. Within a past second rows can only leave (an edit moves them past the upper
 * bound), so when `X-WP-Total` shrinks between two pages the offset steps back by as much: rows may be
 * read twice, never skipped.
 *
 * The watermark moves only when a walk ends, to the highest `date_modified_gmt` seen; the next walk
 * starts `overlap` before it, for late commits and clock skew. Versions handed out near the watermark
 * are remembered in the cursor (`seen`) so the overlap does not hand them out twice.
 */
import { Schema } from "effect"
import { canonicalTimestamp, type StoreCursor } from "../../domain/StoreTypes.js"
import { EPOCH, MAX_SEEN, pruneSeen } from "../SeenVersions.js"
import { resumeOrRestart, type AfterPageOf } from "../WalkCursor.js"

export { EPOCH, MAX_SEEN, pruneSeen }

/** Reading one second alone, by offset. */
export interface Burst {
  /** ISO second all of whose rows are being read. */
  readonly second: string
  readonly offset: number
  /** `X-WP-Total` of the previous page of this second; null before the first. */
  readonly total: number | null
}

export interface WalkPosition {
  /** The watermark the walk started from; it stays the persisted watermark until the walk ends. */
  readonly base: string
  /** Frozen exclusive upper bound (ISO, whole second). */
  readonly upper: string
  /** Exclusive lower bound (ISO, whole second); null = the whole history. */
  readonly after: string | null
  /** Rows to skip past `after`; only used when a page had no readable dates to move `after` by. */
  readonly offset: number
  readonly burst: Burst | null
  /** Highest `date_modified_gmt` seen so far (the previous watermark at the start). */
  readonly high: string
  /** Versions (`<id>@<updatedAt>`) already handed out. */
  readonly seen: ReadonlySet<string>
}

const Continuation = Schema.parseJson(
  Schema.Struct({
    upper: Schema.String,
    after: Schema.NullOr(Schema.String),
    offset: Schema.Int,
    burst: Schema.NullOr(Schema.Struct({ second: Schema.String, offset: Schema.Int, total: Schema.NullOr(Schema.Int) })),
    high: Schema.String
  })
)

const millis = (iso: string): number => {
  const value = Date.parse(iso)
  return Number.isNaN(value) ? Number.NEGATIVE_INFINITY : value
}

const isoSecond = (ms: number): string => canonicalTimestamp(new Date(Math.floor(ms / 1000) * 1000).toISOString()) ?? EPOCH

export const laterOf = (a: string, b: string): string => (millis(b) > millis(a) ? b : a)

export const plusSeconds = (iso: string, seconds: number): string =>
  Number.isFinite(millis(iso)) ? isoSecond(millis(iso) + seconds * 1000) : EPOCH

/** The GMT wall time WooCommerce takes as a bound with `dates_are_gmt=true`: no designator, whole second. */
export const gmtWall = (iso: string): string => isoSecond(millis(iso)).replace(/Z$/, "")

/** Where a pull starts: inside an unfinished walk, or a new walk from the watermark frozen at `nowMillis`. */
export const startWalk = (
  cursor: StoreCursor | null,
  since: string | undefined,
  overlapSeconds: number,
  nowMillis: number
): WalkPosition => {
  const seen = new Set(cursor?.seen ?? [])
  const upper = isoSecond(nowMillis)
  if (cursor === null) {
    const from = since === undefined ? undefined : canonicalTimestamp(since)
    // `since` is inclusive; the bound is exclusive.
    return {
      base: from ?? EPOCH,
      upper,
      after: from === undefined ? null : plusSeconds(from, -1),
      offset: 0,
      burst: null,
      high: from ?? EPOCH,
      seen
    }
  }
  return resumeOrRestart(Continuation, cursor, seen, (watermark) => ({
    upper,
    after: watermark === EPOCH ? null : plusSeconds(watermark, -overlapSeconds),
    offset: 0,
    burst: null
  }))
}

export interface PageQuery {
  /** `modified_after` (GMT wall time), or null for none. */
  readonly modifiedAfter: string | null
  readonly modifiedBefore: string
  readonly offset: number
}

export const pageQuery = (position: WalkPosition): PageQuery =>
  position.burst === null
    ? {
      modifiedAfter: position.after === null ? null : gmtWall(position.after),
      modifiedBefore: gmtWall(position.upper),
      offset: position.offset
    }
    : {
      modifiedAfter: gmtWall(plusSeconds(position.burst.second, -1)),
      modifiedBefore: gmtWall(
        millis(plusSeconds(position.burst.second, 1)) < millis(position.upper) ? plusSeconds(position.burst.second, 1) : position.upper
      ),
      offset: position.burst.offset
    }

export interface PageFacts {
  /** `date_modified_gmt` (ISO) of the page's rows in page order, where readable. */
  readonly modified: ReadonlyArray<string>
  /** Versions handed out from this page. */
  readonly handedOut: ReadonlyArray<string>
  readonly rowCount: number
  readonly pageSize: number
  /** `X-WP-Total` and `X-WP-TotalPages`, when the store sent them. */
  readonly total: number | null
  readonly totalPages: number | null
}

type Next = { readonly _tag: "Done" } | {
  readonly _tag: "Continue"
  readonly after: string | null
  readonly offset: number
  readonly burst: Burst | null
}

const advance = (position: WalkPosition, page: PageFacts): Next => {
  const burst = position.burst
  if (burst !== null) {
    const total = page.total ?? burst.offset + page.rowCount
    const shrink = burst.total !== null && total < burst.total ? burst.total - total : 0
    // Rows left the second since the previous page: the rest moved up by as much; step back to catch them.
    if (shrink > 0) {
      return { _tag: "Continue", after: position.after, offset: 0, burst: { ...burst, offset: Math.max(0, burst.offset - shrink), total } }
    }
    const end = burst.offset + page.rowCount
    if (page.rowCount === 0 || end >= total) return { _tag: "Continue", after: burst.second, offset: 0, burst: null }
    return { _tag: "Continue", after: position.after, offset: 0, burst: { ...burst, offset: end, total } }
  }
  const last = page.rowCount < page.pageSize || (page.totalPages !== null && page.totalPages <= 1)
  if (last) return { _tag: "Done" }
  const seconds = page.modified.map((iso) => isoSecond(millis(iso)))
  const first = seconds[0]
  const final = seconds[seconds.length - 1]
  if (first === undefined || final === undefined) {
    return { _tag: "Continue", after: position.after, offset: position.offset + page.rowCount, burst: null }
  }
  if (first === final) return { _tag: "Continue", after: position.after, offset: 0, burst: { second: final, offset: 0, total: null } }
  return { _tag: "Continue", after: plusSeconds(final, -1), offset: 0, burst: null }
}

export type AfterPage = AfterPageOf<WalkPosition>

/** The walk after one page: the cursor to persist and where the next page starts. */
export const afterPage = (position: WalkPosition, page: PageFacts, overlapSeconds: number): AfterPage => {
  const high = page.modified.reduce(laterOf, position.high)
  const seen = pruneSeen([...position.seen, ...page.handedOut], high, overlapSeconds)
  const next = advance(position, page)
  if (next._tag === "Done") {
    return {
      position: { ...position, base: high, high, seen: new Set(seen) },
      cursor: { watermark: high, seen },
      done: true
    }
  }
  const moved: WalkPosition = { ...position, after: next.after, offset: next.offset, burst: next.burst, high, seen: new Set(seen) }
  return {
    position: moved,
    cursor: {
      // The watermark moves only when the walk ends; until then the walk resumes from `continuation`.
      watermark: position.base,
      continuation: Schema.encodeSync(Continuation)({
        upper: moved.upper,
        after: moved.after,
        offset: moved.offset,
        burst: moved.burst,
        high
      }),
      seen
    },
    done: false
  }
}
