// Request gates for the budget benchmark: the peers we compare against (a naive token bucket
// and Effect's built-in RateLimiter) and a tracer recording when each request was sent and
// answered. The peers pause on a 429 for its Retry-After too, as any polite client would.
import { Clock, Duration, Effect, Layer, RateLimiter } from "effect"
import { PodRequestGate, type PodRequestGateShape, type PodRequestInfo } from "../src/pod/PodRequestGate.js"

/** [sentAt, answeredAt, HTTP status or 0 without an answer] */
export type TracedSend = readonly [number, number, number]

const pausingOn429 = (limit: <A, E, R>(send: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
  Effect.sync((): PodRequestGateShape => {
    let pausedUntil = 0
    const waitOutPause = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      now < pausedUntil ? Effect.sleep(Duration.millis(pausedUntil - now)) : Effect.void)
    return {
      around: (_info, send) =>
        Effect.zipRight(waitOutPause, limit(send)),
      report: (_info, outcome) =>
        outcome._tag === "Answered" && outcome.status === 429
          ? Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.sync(() => {
              pausedUntil = Math.max(pausedUntil, now + Duration.toMillis(outcome.retryAfter ?? Duration.seconds(60)))
            }))
          : Effect.void
    }
  })

/** `capacity` tokens, refilled continuously at `perSecond`; one token per request. */
export const NaiveTokenBucketGate = (capacity: number, perSecond: number): Layer.Layer<PodRequestGate> =>
  Layer.effect(
    PodRequestGate,
    Effect.gen(function*() {
      const lock = yield* Effect.makeSemaphore(1)
      let tokens = capacity
      let refilledAt = yield* Clock.currentTimeMillis
      const takeToken: Effect.Effect<void> = Effect.gen(function*() {
        for (;;) {
          const now = yield* Clock.currentTimeMillis
          tokens = Math.min(capacity, tokens + ((now - refilledAt) * perSecond) / 1000)
          refilledAt = now
          if (tokens >= 1) {
            tokens -= 1
            return
          }
          yield* Effect.sleep(Duration.millis(Math.ceil(((1 - tokens) * 1000) / perSecond)))
        }
      })
      return yield* pausingOn429((send) => Effect.zipRight(lock.withPermits(1)(takeToken), send))
    })
  )

/** Effect's RateLimiter at `limit` per `interval`, with the given algorithm. */
export const EffectRateLimiterGate = (
  limit: number,
  interval: Duration.DurationInput,
  algorithm: "token-bucket" | "fixed-window"
): Layer.Layer<PodRequestGate> =>
  Layer.scoped(
    PodRequestGate,
    Effect.gen(function*() {
      const limiter = yield* RateLimiter.make({ limit, interval, algorithm })
      return yield* pausingOn429((send) => limiter(send))
    })
  )

/** Wraps a gate: records when each request was really sent (inside the gate) and answered. */
export const tracingGate = (inner: PodRequestGateShape, trace: Array<TracedSend>): PodRequestGateShape => {
  const statuses = new WeakMap<PodRequestInfo, number>()
  return {
    around: (info, send) =>
      inner.around(
        info,
        Effect.gen(function*() {
          const sentAt = yield* Clock.currentTimeMillis
          const exit = yield* Effect.exit(send)
          const answeredAt = yield* Clock.currentTimeMillis
          trace.push([sentAt, answeredAt, statuses.get(info) ?? 0])
          return yield* exit
        })
      ),
    report: (info, outcome) =>
      Effect.zipRight(
        Effect.sync(() => void statuses.set(info, outcome._tag === "Answered" ? outcome.status : 0)),
        inner.report(info, outcome)
      )
  }
}
