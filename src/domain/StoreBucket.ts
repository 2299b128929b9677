/**
 * The budget of one store credential's API, shared by every replica that uses the credential:
 * a token bucket (`capacity` tokens, refilled at `restorePerSecond`), with a pause that holds
 * every caller, fed by what the store itself says about its limits.
 *
 * - Shopify: the GraphQL cost bucket (a query takes its expected cost; every answer's
 *   `throttleStatus` is observed into it).
 * - WooCommerce: polite spacing (capacity 1, one token per `minRequestIntervalMs`), and the pause
 *   after a 429/503.
 * - Etsy: the per-second quota of the application, and the pause after a 429.
 *
 * `take` never sleeps: it answers how long to wait before asking again, so a connector decides
 * whether a wait is worth sitting out. A take that succeeds returns a ticket (everything ever
 * taken from the bucket, this take included); an answer observed with its request's ticket
 * discounts what others took after it, since those requests may not have reached the store when
 * it read its bucket.
 *
 * A caller that has waited its turn and more may `reserve`: the tokens are taken at once, even
 * when the bucket does not hold them yet (the level goes below zero), and the answer says how long
 * to wait before sending. So a request that needs many tokens is not starved by smaller ones that
 * each fit sooner (a fulfilment read of 770 points behind a pull's pages of 622, asked again and
 * again, on another replica). Nothing is reserved while a pause is on, or when the wait would be
 * longer than the caller sits out. Only a caller that waited reserves: a reservation's ticket is
 * fixed before its request goes, so callers that all reserved would make the discount of the
 * answers less exact.
 *
 * The arithmetic below is the in-memory bucket's, and the SQL bucket does the same in SQL.
 */
import { createHash } from "node:crypto"
import { Data, type Effect, Redacted } from "effect"

/** A bucket's size and refill. */
export interface BucketShape {
  readonly capacity: number
  readonly restorePerSecond: number
}

/** What a store said about its bucket; without `available`, the level is kept (capped at the new capacity). */
export interface BucketReading extends BucketShape {
  readonly available?: number
}

export interface TakeOptions {
  /** Take the tokens now and go when the bucket holds them (a caller that has waited before). */
  readonly reserve?: boolean
  /** The longest wait reserved for (default: any). */
  readonly maxWaitMs?: number
}

/**
 * `taken`: the tokens are taken, and the request goes after `waitMs` (0: now); `ticket` marks
 * the take. Not taken (a pause is on, or the wait is longer than the caller's limit): nothing was
 * taken, and `waitMs` is how long until asking again is worth it.
 */
export interface BucketTake {
  readonly taken: boolean
  readonly waitMs: number
  readonly ticket: number
}

/** The bucket's storage failed (the shared database). Nothing was taken. */
export class StoreBucketError extends Data.TaggedError("StoreBucketError")<{
  readonly operation: string
  readonly cause: unknown
}> {
  override get message(): string {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `the shared store API budget could not ${this.operation} (${reason}); check the database`
  }
}

export interface StoreBucket {
  /**
   * Takes `cost` tokens when the bucket holds them (a cost above the capacity needs a full bucket)
   * and no pause is on; with `reserve`, also when it will hold them within `maxWaitMs` (see above).
   */
  readonly take: (cost: number, options?: TakeOptions) => Effect.Effect<BucketTake, StoreBucketError>
  /** How long the pause still holds every caller (0: none); a reserved take looks again before it sends. */
  readonly pausedFor: Effect.Effect<number, StoreBucketError>
  /** The store's word on its bucket, with the request whose answer carried it (see `observeReading`). */
  readonly observe: (reading: BucketReading, answered?: Answered) => Effect.Effect<void, StoreBucketError>
  /** Nothing is taken for `ms` from now (a longer pause already on stays). */
  readonly pause: (ms: number) => Effect.Effect<void, StoreBucketError>
}

/**
 * The buckets of store credentials. `configured` is the shape to use while the store has not
 * reported one (WooCommerce never does, Etsy until its first answer); without it, and until the
 * store reports one, the bucket limits nothing but pauses.
 */
export interface StoreBuckets {
  readonly open: (credential: string, configured?: BucketShape) => StoreBucket
}

/**
 * A name for a store credential that can be stored and shown: a hash of what identifies it (shop
 * and token, site and key, application key), never a secret itself.
 */
export const storeCredentialId = (
  platform: string,
  parts: ReadonlyArray<string | Redacted.Redacted<string>>
): string => {
  const hash = createHash("sha256")
  for (const part of parts) hash.update(Redacted.isRedacted(part) ? Redacted.value(part) : part).update("\u0000")
  return `${platform}-${hash.digest("hex").slice(0, 16)}`
}

/** A bucket as stored: time is milliseconds on the bucket's clock (the database's, for the shared one). */
export interface BucketState {
  /** null: no shape known (the bucket limits nothing but pauses). */
  readonly shape: BucketShape | null
  /** Tokens at `atMillis`; may be negative after a take larger than the level (a cost above the capacity). */
  readonly available: number
  readonly atMillis: number
  /** Every token ever taken: tickets are read from it. */
  readonly spent: number
  readonly pausedUntil: number
  /** Whether the shape came from the store (then configuration no longer overrides it). */
  readonly observed: boolean
}

export const newBucket = (configured: BucketShape | undefined, nowMillis: number): BucketState => ({
  shape: configured ?? null,
  available: configured?.capacity ?? 0,
  atMillis: nowMillis,
  spent: 0,
  pausedUntil: 0,
  observed: false
})

// Floating-point slack: a level this close to the cost affords it, a wait this close to a whole ms is that ms.
const EPSILON = 1e-6

/** Tokens in the bucket at `nowMillis`: refilled since the last change, capped at the capacity. */
export const levelAt = (state: BucketState, nowMillis: number): number =>
  state.shape === null
    ? state.available
    : Math.min(
      state.shape.capacity,
      state.available + (state.shape.restorePerSecond * Math.max(0, nowMillis - state.atMillis)) / 1000
    )

/** Milliseconds until `cost` tokens are in the bucket (a full bucket for a cost above the capacity); 0 if there now. */
export const millisUntilAffordable = (state: BucketState, cost: number, nowMillis: number): number => {
  if (state.shape === null || state.shape.restorePerSecond <= 0) return 0
  const shortBy = Math.min(cost, state.shape.capacity) - levelAt(state, nowMillis)
  return shortBy <= EPSILON ? 0 : Math.max(1, Math.ceil((shortBy / state.shape.restorePerSecond) * 1000 - EPSILON))
}

/** The state with the configured shape applied, unless the store has reported its own. */
const withConfigured = (state: BucketState, configured: BucketShape | undefined): BucketState =>
  configured === undefined || state.observed ? state : { ...state, shape: configured }

/** A take of `cost` at `nowMillis` (see `StoreBucket.take`): its answer, and the bucket after it. */
export const takeTokens = (
  before: BucketState,
  cost: number,
  nowMillis: number,
  configured?: BucketShape,
  options: TakeOptions = {}
): readonly [BucketTake, BucketState] => {
  const state = withConfigured(before, configured)
  const now = Math.max(nowMillis, state.atMillis)
  const level = levelAt(state, now)
  const settled = { ...state, available: level, atMillis: now }
  if (state.pausedUntil > now) return [{ taken: false, waitMs: state.pausedUntil - now, ticket: state.spent }, settled]
  const waitMs = millisUntilAffordable(state, cost, now)
  if (waitMs > 0 && (options.reserve !== true || waitMs > (options.maxWaitMs ?? Infinity))) {
    return [{ taken: false, waitMs, ticket: state.spent }, settled]
  }
  const spent = state.spent + cost
  return [{ taken: true, waitMs, ticket: spent }, { ...settled, available: state.shape === null ? level : level - cost, spent }]
}

/** How long the bucket's pause still holds at `nowMillis`. */
export const pauseLeft = (state: BucketState, nowMillis: number): number => Math.max(0, state.pausedUntil - nowMillis)

/**
 * What an answer tells of the request that carried it: its take's ticket, and how many of the
 * tokens taken for it the store did not charge (a query that cost less than asked, or was refused:
 * negative when it cost more than was taken).
 */
export interface Answered {
  readonly ticket: number
  readonly credit?: number
}

/**
 * The bucket after the store reported `reading` at `nowMillis`. With the ticket of the request
 * that carried it, what was taken since that take is still owed: those requests may reach the
 * store after it read its bucket. A request taken before it may reach the store after it too
 * (two requests racing); the ticket cannot tell, so with the answer's credit the bucket also keeps
 * its own count (every take, less what this answer says was not charged) and believes the lower
 * of the two. A store that says its bucket is full has nothing of ours in it: then its word alone.
 */
export const observeReading = (before: BucketState, reading: BucketReading, nowMillis: number, answered?: Answered): BucketState => {
  const now = Math.max(nowMillis, before.atMillis)
  const shape = { capacity: reading.capacity, restorePerSecond: reading.restorePerSecond }
  const available = reading.available === undefined
    ? Math.min(shape.capacity, before.shape === null ? shape.capacity : levelAt(before, now))
    : believed(before, reading.available, shape.capacity, now, answered)
  return { ...before, shape, available, atMillis: now, observed: true }
}

const believed = (before: BucketState, said: number, capacity: number, now: number, answered?: Answered): number => {
  const fromStore = said - (answered === undefined ? 0 : Math.max(0, before.spent - answered.ticket))
  if (answered?.credit === undefined || before.shape === null || said >= capacity - EPSILON) return fromStore
  return Math.min(fromStore, Math.min(capacity, levelAt(before, now) + answered.credit))
}

/** The bucket paused for `ms` from `nowMillis` (a later pause already on stays). */
export const pauseBucket = (before: BucketState, ms: number, nowMillis: number): BucketState => ({
  ...before,
  pausedUntil: Math.max(before.pausedUntil, nowMillis + Math.ceil(ms))
})
