/**
 * Waiting in a store credential's bucket (domain/StoreBucket.ts), written once for every
 * connector: one caller of this process at a time asks the bucket and sits out the wait it
 * answers, so callers are served in turn and only one of them polls the shared database. A caller
 * that was answered a wait and, asking again after it, still finds the tokens gone (another
 * replica took them first) reserves them: it goes in its turn, and the takes after it wait
 * behind it, so a large request is never starved by smaller ones. A pause that came while a
 * reserved take waited holds it too. The bucket's storage failing is the store being unavailable
 * for now (nothing was sent), and what a store said that could not be recorded is logged, not
 * lost silently.
 */
import { Data, Effect } from "effect"
import type { StoreBucket, StoreBucketError } from "../domain/StoreBucket.js"
import { StoreUnavailableError } from "./StoreErrors.js"

/** The bucket asks for a longer wait than the caller sits out (nothing was taken). */
export class BucketWaitTooLongError extends Data.TaggedError("BucketWaitTooLongError")<{ readonly waitMs: number }> {}

export interface BucketGate {
  /** Waits for `cost` tokens and takes them (reserving them if it had to wait); the take's ticket. */
  readonly acquire: (cost: number) => Effect.Effect<number, StoreBucketError | BucketWaitTooLongError>
  readonly bucket: StoreBucket
}

export const makeBucketGate = (
  bucket: StoreBucket,
  options: { readonly longestWaitMs?: number } = {}
): Effect.Effect<BucketGate> =>
  Effect.map(Effect.makeSemaphore(1), (lock) => {
    const tooLong = (waitMs: number) => options.longestWaitMs !== undefined && waitMs > options.longestWaitMs
    /** Takes, sitting out the waits and pauses; from its second ask on, a take reserves. */
    const take = (cost: number) =>
      lock.withPermits(1)(Effect.gen(function*() {
        for (let asked = 0;; asked++) {
          const take = yield* bucket.take(cost, {
            reserve: asked > 0,
            ...(options.longestWaitMs === undefined ? {} : { maxWaitMs: options.longestWaitMs })
          })
          if (take.taken) return take
          if (tooLong(take.waitMs)) return yield* new BucketWaitTooLongError({ waitMs: take.waitMs })
          yield* Effect.sleep(take.waitMs)
        }
      }))
    return {
      bucket,
      acquire: (cost) =>
        Effect.gen(function*() {
          const { waitMs, ticket } = yield* take(cost)
          if (waitMs <= 0) return ticket
          // Reserved: outside the lock, so the callers after it ask meanwhile (and wait behind it).
          yield* Effect.sleep(waitMs)
          for (;;) {
            const paused = yield* bucket.pausedFor
            if (paused <= 0) return ticket
            if (tooLong(paused)) return yield* new BucketWaitTooLongError({ waitMs: paused })
            yield* Effect.sleep(paused)
          }
        })
    }
  })

/**
 * The store is unavailable for now when its budget cannot be read, or asks for a longer wait than
 * is sat out: nothing was sent, so retrying later is safe.
 */
export const budgetUnavailable =
  (storeKey: string, operation: string) => (error: StoreBucketError | BucketWaitTooLongError): StoreUnavailableError =>
    new StoreUnavailableError({
      storeKey,
      operation,
      ambiguous: false,
      detail: error._tag === "StoreBucketError"
        ? error.message
        : `the store asked to wait ${Math.ceil(error.waitMs / 1000)} s before the next request (rate limited)`
    })

/** Records what the store said; a failure to record it is logged, and the answer is used all the same. */
export const recordInBucket = (storeKey: string, effect: Effect.Effect<void, StoreBucketError>): Effect.Effect<void> =>
  effect.pipe(Effect.catchAll((error) => Effect.logWarning(`store ${storeKey}: ${error.message}`)))
