/**
 * Waiting in a store credential's bucket (domain/StoreBucket.ts), written once for every
 * connector: one caller of this process at a time asks the bucket and sits out the wait it
 * answers, so callers are served in turn and only one of them polls the shared database; then it
 * takes its tokens. The bucket's storage failing is the store being unavailable for now (nothing
 * was sent), and what a store said that could not be recorded is logged, not lost silently.
 */
import { Data, Effect } from "effect"
import type { StoreBucket, StoreBucketError } from "../domain/StoreBucket.js"
import { StoreUnavailableError } from "./StoreErrors.js"

/** The bucket asks for a longer wait than the caller sits out (nothing was taken). */
export class BucketWaitTooLongError extends Data.TaggedError("BucketWaitTooLongError")<{ readonly waitMs: number }> {}

export interface BucketGate {
  /** Waits for `cost` tokens and takes them; the take's ticket. */
  readonly acquire: (cost: number) => Effect.Effect<number, StoreBucketError | BucketWaitTooLongError>
  readonly bucket: StoreBucket
}

export const makeBucketGate = (
  bucket: StoreBucket,
  options: { readonly longestWaitMs?: number } = {}
): Effect.Effect<BucketGate> =>
  Effect.map(Effect.makeSemaphore(1), (lock) => ({
    bucket,
    acquire: (cost) =>
      lock.withPermits(1)(Effect.gen(function*() {
        // A pause may arrive while we sleep (another replica's 429): the bucket is asked again after every wake-up.
        for (;;) {
          const { waitMs, ticket } = yield* bucket.take(cost)
          if (waitMs <= 0) return ticket
          if (options.longestWaitMs !== undefined && waitMs > options.longestWaitMs) {
            return yield* new BucketWaitTooLongError({ waitMs })
          }
          yield* Effect.sleep(waitMs)
        }
      }))
  }))

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
