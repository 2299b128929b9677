/**
 * The bookkeeping every incremental pull shares: order versions
 * (`<id>@<updatedAt>`) already handed out near the watermark are remembered
 * in the cursor, so the overlap re-read of the next walk does not hand them
 * out twice. The memory is bounded; forgetting only risks a harmless repeat.
 */

export const EPOCH = "1970-01-01T00:00:00Z"
/** Bound on remembered versions; past it the oldest are forgotten (which only risks a harmless repeat). */
export const MAX_SEEN = 2_000

/** Milliseconds of an ISO timestamp; an unreadable one sorts before everything. */
export const isoMillis = (iso: string): number => {
  const value = Date.parse(iso)
  return Number.isNaN(value) ? Number.NEGATIVE_INFINITY : value
}

export const laterOf = (a: string, b: string): string => (isoMillis(b) > isoMillis(a) ? b : a)

// Keys come back page after page while they stay in the overlap: each one's time is parsed once.
const keyTimes = new Map<string, number>()
const KEY_TIMES_BOUND = 50_000

const versionTime = (key: string): number => {
  let time = keyTimes.get(key)
  if (time === undefined) {
    if (keyTimes.size >= KEY_TIMES_BOUND) keyTimes.clear()
    time = isoMillis(key.slice(key.lastIndexOf("@") + 1))
    keyTimes.set(key, time)
  }
  return time
}

/** Keeps the versions a later overlap re-read can meet again: updated at or after `high − overlap`, newest first. */
export const pruneSeen = (seen: Iterable<string>, high: string, overlapSeconds: number): Array<string> => {
  const from = isoMillis(high) - overlapSeconds * 1000
  // Each key's time parsed once (a sort would otherwise parse it at every comparison).
  return [...new Set(seen)]
    .map((key) => ({ key, time: versionTime(key) }))
    .filter((entry) => entry.time >= from)
    .sort((a, b) => b.time - a.time)
    .slice(0, MAX_SEEN)
    .map((entry) => entry.key)
}
