/**
 * Store API buckets in this process's memory, on Effect's Clock: what a connector uses when it is
 * given no shared buckets (tests, one-off tools). One replica only; replicas share the SQL
 * buckets (repos/SqlStoreBucket.ts), which do the same arithmetic on the database's clock.
 */
import { Clock, Effect, Ref } from "effect"
import {
  type BucketShape,
  type BucketState,
  newBucket,
  observeReading,
  pauseBucket,
  pauseLeft,
  type StoreBucket,
  type StoreBuckets,
  takeTokens
} from "../domain/StoreBucket.js"

export const makeInMemoryStoreBucket = (configured?: BucketShape): StoreBucket => {
  // Created on first use, at that moment of the Clock (so a TestClock set later is the one read).
  const state = Ref.unsafeMake<BucketState | null>(null)
  // Each change is one atomic modify, so concurrent fibers never both take the same tokens.
  const change = <A>(f: (bucket: BucketState, now: number) => readonly [A, BucketState]) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.modify(state, (s) => f(s ?? newBucket(configured, now), now)))

  return {
    take: (cost, options) => change((s, now) => takeTokens(s, cost, now, configured, options)),
    pausedFor: change((s, now) => [pauseLeft(s, now), s] as const),
    observe: (reading, answered) => change((s, now) => [undefined, observeReading(s, reading, now, answered)] as const),
    pause: (ms) => change((s, now) => [undefined, pauseBucket(s, ms, now)] as const)
  }
}

/** A fresh bucket per credential opened (each connector opens its own). */
export const inMemoryStoreBuckets: StoreBuckets = {
  open: (_credential, configured) => makeInMemoryStoreBucket(configured)
}
