/**
 * Pacing inside Shopify's GraphQL cost bucket (a leaky bucket per app and
 * shop: `maximumAvailable` points, refilled at `restoreRate` points per
 * second, each query pre-charged its requested cost).
 *
 * Nothing is hard-coded: the bucket is whatever the last answer's
 * `extensions.cost.throttleStatus` said, refilled for the time since. Before
 * each query the gate waits until the bucket holds the query's expected cost,
 * and takes that cost out at once, so concurrent callers do not spend the
 * same points twice. Time is Effect's Clock, so tests drive it with TestClock.
 */
import { Clock, Effect, Ref } from "effect"

export interface ThrottleStatus {
  readonly maximumAvailable: number
  readonly currentlyAvailable: number
  readonly restoreRate: number
}

/** What the bucket held at a moment (Clock milliseconds). */
export interface BucketReading {
  readonly status: ThrottleStatus
  readonly atMillis: number
}

/** Points in the bucket at `nowMillis`, refilled since the reading and capped at the maximum. */
export const availableAt = (reading: BucketReading, nowMillis: number): number => {
  const { maximumAvailable, currentlyAvailable, restoreRate } = reading.status
  const elapsedSeconds = Math.max(0, nowMillis - reading.atMillis) / 1000
  return Math.min(maximumAvailable, currentlyAvailable + restoreRate * elapsedSeconds)
}

/**
 * Milliseconds until the bucket holds `cost` points. A cost above the bucket's
 * size waits for a full bucket (Shopify refuses such a query anyway; the
 * error then says why). Unknown bucket: no wait.
 */
export const millisUntilAffordable = (reading: BucketReading | null, cost: number, nowMillis: number): number => {
  if (reading === null || reading.status.restoreRate <= 0) return 0
  const needed = Math.min(cost, reading.status.maximumAvailable)
  const shortBy = needed - availableAt(reading, nowMillis)
  return shortBy <= 0 ? 0 : Math.ceil((shortBy / reading.status.restoreRate) * 1000)
}

/** The wait a THROTTLED answer asks for: (requested − available) / restoreRate seconds. */
export const millisAfterThrottled = (requestedQueryCost: number, status: ThrottleStatus): number =>
  status.restoreRate <= 0
    ? 1000
    : Math.ceil((Math.max(0, requestedQueryCost - status.currentlyAvailable) / status.restoreRate) * 1000)

/** The reading after taking `cost` points out at `nowMillis`. */
export const spend = (reading: BucketReading, cost: number, nowMillis: number): BucketReading => ({
  status: { ...reading.status, currentlyAvailable: availableAt(reading, nowMillis) - cost },
  atMillis: nowMillis
})

export interface CostGate {
  /** Waits until `cost` points are available, then takes them. */
  readonly acquire: (cost: number) => Effect.Effect<void>
  /** Records the bucket as an answer reported it. */
  readonly observe: (status: ThrottleStatus) => Effect.Effect<void>
  /** The current reading (for logs and tests). */
  readonly reading: Effect.Effect<BucketReading | null>
}

export const makeCostGate: Effect.Effect<CostGate> = Effect.gen(function*() {
  const state = yield* Ref.make<BucketReading | null>(null)
  // One caller at a time decides and waits, so two callers never both see the same free points.
  const lock = yield* Effect.makeSemaphore(1)

  const acquire = (cost: number): Effect.Effect<void> =>
    lock.withPermits(1)(
      Effect.gen(function*() {
        const before = yield* Ref.get(state)
        const wait = millisUntilAffordable(before, cost, yield* Clock.currentTimeMillis)
        if (wait > 0) yield* Effect.sleep(wait)
        const now = yield* Clock.currentTimeMillis
        yield* Ref.update(state, (reading) => (reading === null ? null : spend(reading, cost, now)))
      })
    )

  const observe = (status: ThrottleStatus): Effect.Effect<void> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.set(state, { status, atMillis: now }))

  return { acquire, observe, reading: Ref.get(state) }
})
