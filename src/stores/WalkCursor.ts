/**
 * The cursor side every platform's walk shares: an unfinished walk resumes from the continuation it
 * persisted, and each page ends with the position it leaves and the cursor to persist.
 */
import { Either, Schema } from "effect"
import type { StoreCursor } from "../domain/StoreTypes.js"

/**
 * Where an unfinished walk stood, read from the cursor's `continuation`; undefined when there is none
 * or it cannot be read (older format, hand edit), which restarts the walk: a repeat, never a gap.
 */
export const resumedFrom = <A>(continuation: Schema.Schema<A, string>, cursor: StoreCursor): A | undefined =>
  cursor.continuation === undefined ? undefined : Either.getOrUndefined(Schema.decodeUnknownEither(continuation)(cursor.continuation))

/** The walk after one page. */
export interface AfterPageOf<Position> {
  readonly position: Position
  /** What the caller persists once the page is stored. */
  readonly cursor: StoreCursor
  readonly done: boolean
}

/**
 * Where a pull with a cursor starts: inside its unfinished walk, else a new walk from the watermark,
 * which `restart` places (its lower bound is the watermark less the overlap).
 */
export const resumeOrRestart = <C extends object, R extends object>(
  continuation: Schema.Schema<C, string>,
  cursor: StoreCursor,
  seen: ReadonlySet<string>,
  restart: (watermark: string) => R
) => {
  // An unreadable continuation restarts the walk (see resumedFrom).
  const resumed = resumedFrom(continuation, cursor)
  return resumed !== undefined
    ? { base: cursor.watermark, ...resumed, seen }
    : { base: cursor.watermark, ...restart(cursor.watermark), high: cursor.watermark, seen }
}
