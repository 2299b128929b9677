/**
 * Polite pacing for one WooCommerce store. Core WooCommerce publishes no REST limit, but the host or a
 * WAF in front of WordPress may answer 429 or 503, so the connector (a) spaces its requests at least
 * `intervalMs` apart, and (b) after a 429/503 holds every request to that store until `Retry-After`
 * (seconds or an HTTP date) has passed, or, without one, for an exponential backoff (1 s, 2 s, 4 s …
 * at most 60 s). Time is Effect's Clock, so tests drive it with TestClock.
 */
import { Clock, Effect, Ref } from "effect"

export interface PacingState {
  /** Clock milliseconds of the last request sent, or null before the first. */
  readonly lastSentAt: number | null
  /** No request leaves before this (Clock milliseconds); 0 when not paused. */
  readonly pausedUntil: number
}

export const initialPacing: PacingState = { lastSentAt: null, pausedUntil: 0 }

/** When the next request may leave. */
export const nextSendAt = (state: PacingState, nowMillis: number, intervalMs: number): number =>
  Math.max(nowMillis, state.lastSentAt === null ? nowMillis : state.lastSentAt + intervalMs, state.pausedUntil)

export const MAX_BACKOFF_MS = 60_000

/** 1 s, 2 s, 4 s … for the n-th consecutive refusal (n from 1), capped at a minute. */
export const backoffMillis = (attempt: number): number => Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempt - 1))

/**
 * `Retry-After` in milliseconds from now: delta-seconds or an HTTP date; undefined when absent or
 * unreadable (the caller backs off instead). Never negative.
 */
export const retryAfterMillis = (header: string | undefined, nowMillis: number): number | undefined => {
  if (header === undefined || header.trim() === "") return undefined
  const text = header.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000)
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMillis)
}

export interface PoliteGate {
  /** Waits for this store's next free slot, then takes it. */
  readonly acquire: Effect.Effect<void>
  /** Holds every request to the store for `ms` from now (longer holds win). */
  readonly pauseFor: (ms: number) => Effect.Effect<void>
  readonly state: Effect.Effect<PacingState>
}

export const makePoliteGate = (intervalMs: number): Effect.Effect<PoliteGate> =>
  Effect.gen(function*() {
    const state = yield* Ref.make(initialPacing)
    // One caller decides and waits at a time, so two callers never take the same slot.
    const lock = yield* Effect.makeSemaphore(1)

    const acquire = lock.withPermits(1)(
      Effect.gen(function*() {
        // A pause may arrive while we sleep (another fiber's 429): look again after every wake-up.
        for (;;) {
          const now = yield* Clock.currentTimeMillis
          const at = nextSendAt(yield* Ref.get(state), now, intervalMs)
          if (at <= now) break
          yield* Effect.sleep(at - now)
        }
        const sentAt = yield* Clock.currentTimeMillis
        yield* Ref.update(state, (s) => ({ ...s, lastSentAt: sentAt }))
      })
    )

    const pauseFor = (ms: number): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.update(state, (s) => ({ ...s, pausedUntil: Math.max(s.pausedUntil, now + ms) })))

    return { acquire, pauseFor, state: Ref.get(state) }
  })
