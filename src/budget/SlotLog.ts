/**
 * The admission rule of the shared rate budget, as pure functions over a log of slots.
 *
 * A request holds a slot from the moment it is sent until `windowMs` after its answer
 * arrived (an unanswered slot of a vanished holder counts until its `holdsUntil`, which is
 * the last sign of life + request timeout + window). A new request is sent only while fewer
 * than `limit` slots are held. Why that is exact: if some window [x, x + W] held limit + 1
 * arrivals, take the last of them to be sent, k. Every other one, j, was sent no later than k
 * and answered at r_j >= its arrival >= x, so at k's send time s_k <= x + W <= r_j + W: j still
 * held its slot, and k could not have been admitted.
 */

/** The rate limit as configured (`pod.rateLimit`). */
export interface RateLimitSettings {
  readonly requests: number
  readonly windowSeconds: number
  readonly blockSeconds: number
  readonly headroom: number
}

export const defaultRateLimit: RateLimitSettings = {
  requests: 100,
  windowSeconds: 10,
  blockSeconds: 60,
  headroom: 0.05
}

/** requests × (1 − headroom), rounded down, at least 1. */
export const effectiveLimit = (settings: RateLimitSettings): number =>
  Math.max(1, Math.floor(settings.requests * (1 - settings.headroom) + 1e-9))

/** One slot of the log. Times are epoch milliseconds on the ledger's clock. */
export interface SlotState {
  /** null while the request is in flight. */
  readonly answeredAt: number | null
  /** The slot counts while now <= holdsUntil: answeredAt + window once answered. */
  readonly holdsUntil: number
}

export interface AdmissionInput {
  readonly limit: number
  readonly windowMs: number
  readonly now: number
  /** How many waiters would like a slot now. */
  readonly wanted: number
  readonly pausedUntil: number | null
  readonly slots: ReadonlyArray<SlotState>
}

export interface Admission {
  /** How many new slots may be taken now (0..wanted). */
  readonly granted: number
  /** Slots that count at `now`, before this admission. */
  readonly inUse: number
  /** When asking again can succeed, if not every waiter was granted; null otherwise. */
  readonly retryAt: number | null
  readonly paused: boolean
}

export const holdsAt = (slot: SlotState, now: number): boolean => slot.holdsUntil >= now

/**
 * The earliest moment this slot can stop counting. An in-flight slot is answered at the
 * earliest now, so it is free no sooner than now + window + 1.
 */
export const earliestFreeAt = (slot: SlotState, now: number, windowMs: number): number =>
  slot.answeredAt === null ? Math.min(slot.holdsUntil, now + windowMs) + 1 : slot.holdsUntil + 1

export const admit = (input: AdmissionInput): Admission => {
  const held = input.slots.filter((slot) => holdsAt(slot, input.now))
  const inUse = held.length
  if (input.pausedUntil !== null && input.now < input.pausedUntil) {
    return { granted: 0, inUse, retryAt: input.pausedUntil, paused: true }
  }
  const wanted = Math.max(0, input.wanted)
  const granted = Math.max(0, Math.min(wanted, input.limit - inUse))
  if (granted === wanted) return { granted, inUse, retryAt: null, paused: false }
  // Every slot is held: the next one frees when the earliest held slot stops counting.
  let retryAt = input.now + input.windowMs + 1
  for (const slot of held) retryAt = Math.min(retryAt, earliestFreeAt(slot, input.now, input.windowMs))
  return { granted, inUse, retryAt: Math.max(retryAt, input.now + 1), paused: false }
}
