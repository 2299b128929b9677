/**
 * Pacing against one storefront: requests leave at most `requestsPerSecond`,
 * evenly spaced, and a 429 pauses every caller of this connector until its
 * `Retry-After` has passed (a 429 is about the credential, not the request).
 *
 * A caller waiting for its turn re-checks after each sleep, so a pause that
 * arrives meanwhile (another caller's 429) is obeyed too. Time is Effect's
 * Clock, so tests drive it with TestClock.
 */
import { Clock, Effect, Ref } from "effect"

export interface RequestGate {
  /** Waits for this caller's turn (spacing and any pause), then takes it. */
  readonly acquire: Effect.Effect<void>
  /** No request leaves for `millis` from now (later pauses extend, never shorten). */
  readonly pauseFor: (millis: number) => Effect.Effect<void>
  /** Clock millis before which no request leaves. */
  readonly nextSendAt: Effect.Effect<number>
}

export const makeRequestGate = (requestsPerSecond: number): Effect.Effect<RequestGate> =>
  Effect.gen(function*() {
    const spacingMillis = requestsPerSecond > 0 ? Math.ceil(1000 / requestsPerSecond) : 0
    const nextAt = yield* Ref.make(Number.NEGATIVE_INFINITY)
    const lock = yield* Effect.makeSemaphore(1)

    const waitForTurn: Effect.Effect<void> = Effect.gen(function*() {
      for (;;) {
        const now = yield* Clock.currentTimeMillis
        const at = yield* Ref.get(nextAt)
        if (at <= now) {
          yield* Ref.set(nextAt, now + spacingMillis)
          return
        }
        yield* Effect.sleep(at - now)
      }
    })

    const pauseFor = (millis: number): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.update(nextAt, (at) => Math.max(at, now + millis)))

    return { acquire: lock.withPermits(1)(waitForTurn), pauseFor, nextSendAt: Ref.get(nextAt) }
  })
