/**
 * Pacing inside Etsy's quotas (store-apis.md §3.4), which count a shop's private calls per OAuth
 * access token and the app's public calls per API key (§0): one gate per shop, and one for the app's
 * public calls. Queries per second and per rolling day, learned from the headers of every answer
 * (`x-limit-per-second`, `x-remaining-this-second`, `x-limit-per-day`, `x-remaining-today`); until
 * the first answer, the classic 10 per second.
 *
 * - Per second, across replicas: requests leave evenly spaced, about one per 1/limit second, from a
 *   bucket of one token refilled `limit` times a second less a headroom for latency jitter
 *   (domain/StoreBucket.ts), shared by every replica using the same shop (or, for public calls, the
 *   same application). Spacing, rather than a bucket of `limit` tokens: such a bucket lets `limit`
 *   saved-up requests go and `limit` more as it refills, twice the limit within one second, which
 *   Etsy's sliding second refuses. An answer saying nothing is left this second pauses the bucket for
 *   a second (another client of the same grant may be using it). One shop throttled does not slow
 *   another.
 * - Per second, in this process: a request also holds its slot from the
 *   moment it is sent until one second after its answer came back, so however
 *   latency shifts arrivals, Etsy never sees more than the limit within any
 *   one second from this process.
 * - Per day: the reading is counted down locally as requests go out (every
 *   replica reads Etsy's own count from the headers). When it reaches the
 *   reserve, pulls stop (the rest is kept for tracking pushes and look-ups);
 *   at zero everything stops. Both fail at once, without sending, with a
 *   `QuotaRefusedError` that says why, for as long as the reading is fresh
 *   (one minute); then one request is let through to read the quota again.
 * - A 429 (the request did not run) pauses the shared bucket for
 *   `retry-after` when Etsy sends one, else 1, 2, 4… seconds. A pause longer
 *   than a minute is not waited out: calls fail at once until it is over.
 *
 * Time is Effect's Clock (the database's for the shared bucket), so tests
 * drive it with TestClock.
 */
import { Clock, Data, Effect, Ref } from "effect"
import { type BucketShape, type StoreBucket, type StoreBucketError, storeCredentialId } from "../../domain/StoreBucket.js"
import { recordInBucket } from "../BucketGate.js"
import { baseUrlOf, type EtsyConnectorConfig } from "./EtsyConfig.js"

export const DEFAULT_PER_SECOND = 10
/** How long a daily reading is trusted to refuse requests before one is let through to read it again. */
export const DAY_READING_TTL_MS = 60_000
/** Pauses longer than this (a `retry-after` for the day) fail the call instead of holding it. */
export const MAX_INLINE_WAIT_MS = 60_000
const IN_FLIGHT_POLL_MS = 50

export type Lane = "pull" | "other"

export interface QuotaReading {
  readonly perSecond?: number
  readonly remainingThisSecond?: number
  readonly perDay?: number
  readonly remainingToday?: number
}

const headerNumber = (headers: Readonly<Record<string, string | undefined>>, name: string): number | undefined => {
  const raw = headers[name]
  const value = raw === undefined ? Number.NaN : Number(raw)
  return Number.isFinite(value) && value >= 0 ? value : undefined
}

export const readQuotaHeaders = (headers: Readonly<Record<string, string | undefined>>): QuotaReading => {
  const fields = {
    perSecond: headerNumber(headers, "x-limit-per-second"),
    remainingThisSecond: headerNumber(headers, "x-remaining-this-second"),
    perDay: headerNumber(headers, "x-limit-per-day"),
    remainingToday: headerNumber(headers, "x-remaining-today")
  }
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as QuotaReading
}

export interface Slot {
  readonly id: number
  readonly sentAt: number
  /** When the answer (or failure) came back; null while in flight. */
  readonly doneAt: number | null
}

/**
 * Milliseconds until a request may be sent without more than `limit` slots
 * held in one second; "in_flight" when the wait depends on answers not yet back.
 */
export const millisUntilSlot = (slots: ReadonlyArray<Slot>, limit: number, now: number): number | "in_flight" => {
  const held = slots.filter((s) => s.doneAt === null || s.doneAt + 1000 > now)
  if (held.length < limit) return 0
  const releases = held.flatMap((s) => (s.doneAt === null ? [] : [s.doneAt + 1000])).sort((a, b) => a - b)
  const needed = held.length - limit
  const release = releases[needed]
  return release === undefined ? "in_flight" : release - now
}

interface DayReading {
  readonly limit: number | undefined
  readonly remaining: number
  readonly atMillis: number
}

interface GateState {
  readonly slots: ReadonlyArray<Slot>
  readonly perSecond: number
  readonly day: DayReading | null
  readonly nextId: number
}

/**
 * The shared bucket of a shop's private calls: Etsy counts them per OAuth access token (store-apis.md
 * §0), one seller's grant each, so each shop of an app has its own (the app's keystring and the shop,
 * hashed, at the API's address); tokens renewed for the shop keep it.
 */
export const etsyCredential = (config: Pick<EtsyConnectorConfig, "keystring" | "baseUrl" | "shopId">): string =>
  storeCredentialId("etsy", [baseUrlOf(config), config.keystring, `shop:${config.shopId}`])

/** The shared bucket of the app's public calls (getShop, getShippingCarriers): per API key, every shop's. */
export const etsyAppCredential = (config: Pick<EtsyConnectorConfig, "keystring" | "baseUrl">): string =>
  storeCredentialId("etsy", [baseUrlOf(config), config.keystring])

/**
 * Arrivals drift from sends with latency: a twentieth of each second is left free, so that evenly
 * spaced requests still fit in Etsy's sliding second when some arrive a little early.
 */
export const SPACING_HEADROOM = 0.05

/** `perSecond` requests a second (less the headroom), evenly spaced. */
export const spacingShape = (perSecond: number): BucketShape => ({ capacity: 1, restorePerSecond: perSecond * (1 - SPACING_HEADROOM) })

/** Why the daily quota refuses a request now, or undefined. */
export const dayRefusal = (day: DayReading | null, lane: Lane, reserve: number, now: number): string | undefined => {
  if (day === null || now - day.atMillis >= DAY_READING_TTL_MS) return undefined
  const of = day.limit === undefined ? "" : ` of ${day.limit}`
  if (day.remaining <= 0) return `Etsy's daily quota is spent (0${of} left in the rolling 24 hours); try again later`
  if (lane === "pull" && day.remaining <= reserve) {
    return `only ${day.remaining}${of} requests are left in Etsy's daily quota; they are kept for tracking pushes, so pulling waits`
  }
  return undefined
}

/** The quota refuses a request for longer than is worth waiting (nothing was sent); reported as unavailable. */
export class QuotaRefusedError extends Data.TaggedError("QuotaRefusedError")<{ readonly detail: string }> {}

export interface QuotaTicket {
  /** Marks the request answered (or failed); its slot frees one second later. */
  readonly done: Effect.Effect<void>
}

export interface QuotaGate {
  readonly acquire: (lane: Lane) => Effect.Effect<QuotaTicket, QuotaRefusedError | StoreBucketError>
  readonly observe: (reading: QuotaReading) => Effect.Effect<void>
  /** A 429: pause everyone sharing the bucket (every replica of the shop) for `retryAfterMillis`. */
  readonly pause: (millis: number) => Effect.Effect<void>
  readonly snapshot: Effect.Effect<{ readonly perSecond: number; readonly remainingToday: number | undefined }>
}

/** `bucket`: the shared bucket (a shop's, or the app's for public calls), opened with `spacingShape(DEFAULT_PER_SECOND)`. */
export const makeQuotaGate = (storeKey: string, dailyReserve: number, bucket: StoreBucket): Effect.Effect<QuotaGate> =>
  Effect.gen(function*() {
    const state = yield* Ref.make<GateState>({ slots: [], perSecond: DEFAULT_PER_SECOND, day: null, nextId: 1 })
    // One caller at a time decides and takes a slot, so two callers never take the same one.
    const lock = yield* Effect.makeSemaphore(1)
    // The limit this process last told the shared bucket: it is told once, then on a change only.
    const told = yield* Ref.make<number | null>(null)

    const release = (id: number) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => Ref.update(state, (s) => ({ ...s, slots: s.slots.map((slot) => (slot.id === id ? { ...slot, doneAt: now } : slot)) }))
      )

    const acquire = (lane: Lane): Effect.Effect<QuotaTicket, QuotaRefusedError | StoreBucketError> =>
      lock.withPermits(1)(
        Effect.gen(function*() {
          // Everything is looked at again after every wake-up: the day's reading, this process's slots, the shared bucket.
          let asked = 0
          for (;;) {
            const now = yield* Clock.currentTimeMillis
            const s = yield* Ref.get(state)
            const refusal = dayRefusal(s.day, lane, dailyReserve, now)
            if (refusal !== undefined) {
              return yield* new QuotaRefusedError({ detail: refusal })
            }
            const slotWait = millisUntilSlot(s.slots, s.perSecond, now)
            if (slotWait !== 0) {
              yield* Effect.sleep(slotWait === "in_flight" ? IN_FLIGHT_POLL_MS : slotWait)
              continue
            }
            // After a wait, the take reserves (domain/StoreBucket.ts): it goes in its turn, after a pause that came meanwhile.
            const take = yield* bucket.take(1, { reserve: asked++ > 0, maxWaitMs: MAX_INLINE_WAIT_MS })
            if (take.taken) {
              yield* Effect.sleep(take.waitMs)
              for (let paused = yield* bucket.pausedFor; paused > 0; paused = yield* bucket.pausedFor) yield* Effect.sleep(paused)
              break
            }
            if (take.waitMs > MAX_INLINE_WAIT_MS) {
              return yield* new QuotaRefusedError({
                detail: `Etsy asked to wait ${Math.ceil(take.waitMs / 1000)} s before the next request (rate limited)`
              })
            }
            yield* Effect.sleep(take.waitMs)
          }
          const now = yield* Clock.currentTimeMillis
          const id = yield* Ref.modify(state, (s) => [
            s.nextId,
            {
              ...s,
              nextId: s.nextId + 1,
              slots: [
                ...s.slots.filter((slot) => slot.doneAt === null || slot.doneAt + 1000 > now),
                {
                  id: s.nextId,
                  sentAt: now,
                  doneAt: null
                }
              ],
              day: s.day === null ? null : { ...s.day, remaining: s.day.remaining - 1 }
            }
          ])
          return { done: release(id) }
        })
      )

    const tellLimit = (perSecond: number | undefined): Effect.Effect<void> =>
      perSecond === undefined || perSecond < 1
        ? Effect.void
        : Effect.flatMap(Ref.getAndSet(told, perSecond), (before) =>
          before === perSecond ? Effect.void : recordInBucket(storeKey, bucket.observe(spacingShape(perSecond))))

    const observe = (reading: QuotaReading): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(state, (s) => ({
          ...s,
          perSecond: reading.perSecond !== undefined && reading.perSecond >= 1 ? reading.perSecond : s.perSecond,
          day: reading.remainingToday === undefined
            ? s.day
            : { limit: reading.perDay ?? s.day?.limit, remaining: reading.remainingToday, atMillis: now }
        }))).pipe(
          Effect.zipRight(tellLimit(reading.perSecond)),
          Effect.zipRight(reading.remainingThisSecond === 0 ? pause(1000) : Effect.void)
        )

    const pause = (millis: number): Effect.Effect<void> => recordInBucket(storeKey, bucket.pause(millis))

    const snapshot = Effect.map(Ref.get(state), (s) => ({ perSecond: s.perSecond, remainingToday: s.day?.remaining }))

    return { acquire, observe, pause, snapshot }
  })
