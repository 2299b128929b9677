/**
 * `GET <base>/orders` paging, as docs/jsonfeed.md §4 asks a seller to build it:
 *
 * - keyset order on (updated_at, a unique tie-breaker), never offsets, so an
 *   order that changes while podsync pages cannot shift others out of view;
 * - `updated_since` is inclusive;
 * - the first page freezes an upper bound (the server's now) and every page
 *   of the walk returns only orders updated strictly before it: an order
 *   edited mid-walk leaves this walk and is met by the next one;
 * - the cursor carries all of it (base64url JSON here; any opaque text will do).
 */
import type { StoredOrder } from "./model.js"

export interface WalkPosition {
  /** Inclusive lower bound (ms), or null for the whole history. */
  readonly since: number | null
  /** Exclusive upper bound (ms), frozen by the walk's first page. */
  readonly upper: number
  /** Keyset position: the last order returned, as (updated_at, seq). */
  readonly afterUpdatedAt: number
  readonly afterSeq: number
}

export const encodeCursor = (position: WalkPosition): string =>
  Buffer.from(
    JSON.stringify({ v: 1, s: position.since, u: position.upper, t: position.afterUpdatedAt, q: position.afterSeq }),
    "utf8"
  ).toString("base64url")

const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value)

/** The position a cursor stands for, or null when it is not one of ours. */
export const decodeCursor = (text: string): WalkPosition | null => {
  try {
    const parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Record<string, unknown>
    const { v, s, u, t, q } = parsed
    if (v !== 1 || !(s === null || isNumber(s)) || !isNumber(u) || !isNumber(t) || !isNumber(q)) return null
    return { since: s, upper: u, afterUpdatedAt: t, afterSeq: q }
  } catch {
    return null
  }
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i

/** Milliseconds of an ISO-8601 timestamp with an offset, or null. */
export const parseTimestamp = (text: string): number | null => {
  if (!ISO_8601.test(text)) return null
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? null : ms
}

export interface Page {
  readonly orders: ReadonlyArray<StoredOrder>
  /** Where the next page starts; null on the last page. */
  readonly next: WalkPosition | null
  readonly upper: number
}

const after = (order: StoredOrder, position: WalkPosition): boolean =>
  order.updatedAt > position.afterUpdatedAt ||
  (order.updatedAt === position.afterUpdatedAt && order.seq > position.afterSeq)

/**
 * One page of a walk. In SQL:
 *   WHERE updated_at >= :since AND updated_at < :upper
 *     AND (updated_at, seq) > (:after_updated_at, :after_seq)
 *   ORDER BY updated_at, seq LIMIT :limit + 1
 */
export const pageOf = (orders: Iterable<StoredOrder>, position: WalkPosition, limit: number): Page => {
  const window = [...orders]
    .filter((o) => (position.since === null || o.updatedAt >= position.since) && o.updatedAt < position.upper && after(o, position))
    .sort((a, b) => a.updatedAt - b.updatedAt || a.seq - b.seq)
  const page = window.slice(0, limit)
  const last = page[page.length - 1]
  const next = window.length > limit && last !== undefined
    ? { ...position, afterUpdatedAt: last.updatedAt, afterSeq: last.seq }
    : null
  return { orders: page, next, upper: position.upper }
}

/** The position of a walk's first page: everything from `since` up to now. */
export const firstPosition = (since: number | null, now: number): WalkPosition => ({
  since,
  upper: now,
  afterUpdatedAt: Number.NEGATIVE_INFINITY,
  afterSeq: Number.NEGATIVE_INFINITY
})
