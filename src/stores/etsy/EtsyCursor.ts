/**
 * Pure bookkeeping of an incremental Etsy pull ("walk").
 *
 * Etsy pages `getShopReceipts` by offset. With `sort_on=updated` ascending, a
 * receipt edited during the walk moves to the end of the list, and every
 * receipt after its old place shifts one position back: plain offsets would
 * skip one. So the walk pages by key instead: each request asks
 * `min_last_modified = h`, where h is the `updated_timestamp` of the last
 * receipt read, and uses the offset only to step over the receipts already
 * read at exactly h (a tie of one second). To notice a shift inside such a
 * tie, the request starts one position early: its first result must be the
 * last receipt read (the anchor). If it is not, the tie is read again from
 * its start; receipts already handed out are recognised by their version key
 * and not handed out twice.
 *
 * A receipt edited after it was read comes again later in the same walk, as
 * its new version. The watermark moves only when a walk ends, to the highest
 * `updated_timestamp` seen; the next walk starts `overlap` before it, and the
 * versions already handed out near the watermark are remembered in the
 * cursor (`seen`) so the overlap re-read does not repeat them.
 */
import { DateTime, Option, Schema } from "effect"
import { canonicalTimestamp, type StoreCursor } from "../../domain/StoreTypes.js"
import { EPOCH, MAX_SEEN, pruneSeen } from "../SeenVersions.js"
import { resumeOrRestart } from "../WalkCursor.js"

export { EPOCH, MAX_SEEN, pruneSeen }
/** Etsy refuses time bounds before 2000-01-01. */
export const MIN_ETSY_TIMESTAMP = 946684800

export interface WalkPosition {
  /** The watermark the walk started from; it stays the persisted watermark until the walk ends. */
  readonly base: string
  /** `min_last_modified` of the walk's first request (Unix seconds); null = the whole history. */
  readonly lower: number | null
  /** `updated_timestamp` of the last receipt read; null before the first. */
  readonly h: number | null
  /** How many receipts at exactly `h` have been read, in list order (the offset within the tie). */
  readonly tie: number
  /** receipt_id of the last receipt read. */
  readonly anchor: number | null
  /** Highest `updatedAt` seen (ISO), the watermark when the walk ends. */
  readonly high: string
  /** Versions (`<receipt_id>@<updatedAt>`) already handed out. */
  readonly seen: ReadonlySet<string>
}

const Continuation = Schema.parseJson(
  Schema.Struct({
    lower: Schema.NullOr(Schema.Number),
    h: Schema.Number,
    tie: Schema.Number,
    anchor: Schema.Number,
    high: Schema.String
  })
)

const millis = (iso: string): number => {
  const value = Option.getOrUndefined(Option.map(DateTime.make(iso), DateTime.toEpochMillis))
  return value === undefined ? Number.NEGATIVE_INFINITY : value
}

export const secondsOf = (iso: string): number => Math.floor(millis(iso) / 1000)

export const isoOfSeconds = (seconds: number): string =>
  Option.getOrElse(
    Option.map(DateTime.make(seconds * 1000), (dt) => DateTime.formatIso(dt).replace(/\.000Z$/, "Z")),
    () => EPOCH
  )

export const laterOf = (a: string, b: string): string => (millis(b) > millis(a) ? b : a)

const lowerBound = (seconds: number): number | null => (seconds < MIN_ETSY_TIMESTAMP ? null : seconds)

/** Where a pull starts: inside an unfinished walk, or a new walk from the watermark. */
export const startWalk = (cursor: StoreCursor | null, since: string | undefined, overlapSeconds: number): WalkPosition => {
  const seen = new Set(cursor?.seen ?? [])
  if (cursor === null) {
    const from = since === undefined ? undefined : canonicalTimestamp(since)
    return {
      base: from ?? EPOCH,
      lower: from === undefined ? null : lowerBound(secondsOf(from)),
      h: null,
      tie: 0,
      anchor: null,
      high: from ?? EPOCH,
      seen
    }
  }
  return resumeOrRestart(Continuation, cursor, seen, (watermark) => ({
    lower: watermark === EPOCH ? null : lowerBound(secondsOf(watermark) - overlapSeconds),
    h: null,
    tie: 0,
    anchor: null
  }))
}

/** The list query for the next page of the walk (without the status filters). */
export const pageQuery = (position: WalkPosition, limit: number): { min_last_modified?: string; offset: string; limit: string } => {
  const min = position.h ?? position.lower
  return {
    ...(min === null ? {} : { min_last_modified: String(min) }),
    offset: String(position.anchor === null ? 0 : Math.max(0, position.tie - 1)),
    limit: String(limit)
  }
}

/** A receipt's place in the list: its id and `updated_timestamp` (seconds). */
export interface ListedReceipt {
  readonly receiptId: number
  readonly updatedSeconds: number
}

export type PageReading<R extends ListedReceipt> =
  /** The anchor was not where it should be: read the tie at `h` again from its start. */
  | { readonly _tag: "Shifted"; readonly position: WalkPosition }
  /** `fresh`: the results after the anchor, in list order; `position` is after them. */
  | { readonly _tag: "Read"; readonly fresh: ReadonlyArray<R>; readonly position: WalkPosition; readonly done: boolean }

/** Places a page of results (as returned for `pageQuery(position, limit)`) in the walk. */
export const readPage = <R extends ListedReceipt>(position: WalkPosition, results: ReadonlyArray<R>, limit: number): PageReading<R> => {
  let fresh = results
  if (position.anchor !== null) {
    const first = results[0]
    if (first === undefined || first.receiptId !== position.anchor || first.updatedSeconds !== position.h) {
      return { _tag: "Shifted", position: { ...position, tie: 0, anchor: null } }
    }
    fresh = results.slice(1)
  }
  let { h, tie, anchor } = position
  for (const receipt of fresh) {
    // Ascending order: a smaller timestamp would mean the list is not what was asked for; keep the key monotone.
    if (h !== null && receipt.updatedSeconds <= h) {
      tie += receipt.updatedSeconds === h ? 1 : 0
    } else {
      h = receipt.updatedSeconds
      tie = 1
    }
    anchor = receipt.receiptId
  }
  const high = h === null ? position.high : laterOf(position.high, isoOfSeconds(h))
  return { _tag: "Read", fresh, position: { ...position, h, tie, anchor, high }, done: results.length < limit }
}

export interface AfterPage {
  readonly position: WalkPosition
  readonly cursor: StoreCursor
}

/** The cursor to persist after a page, with the versions it handed out remembered. */
export const afterPage = (position: WalkPosition, handedOut: ReadonlyArray<string>, done: boolean, overlapSeconds: number): AfterPage => {
  const seenList = pruneSeen([...position.seen, ...handedOut], position.high, overlapSeconds)
  const seen = new Set(seenList)
  if (done || position.h === null || position.anchor === null) {
    return {
      position: { base: position.high, lower: position.lower, h: null, tie: 0, anchor: null, high: position.high, seen },
      cursor: { watermark: position.high, seen: seenList }
    }
  }
  return {
    position: { ...position, seen },
    cursor: {
      watermark: position.base,
      continuation: Schema.encodeSync(Continuation)({
        lower: position.lower,
        h: position.h,
        tie: position.tie,
        anchor: position.anchor,
        high: position.high
      }),
      seen: seenList
    }
  }
}
