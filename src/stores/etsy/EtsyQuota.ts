/**
 * Pacing inside Etsy's per-application quotas (store-apis.md §3.4): queries
 * per second and per rolling day, learned from the headers of every answer
 * (`x-limit-per-second`, `x-remaining-this-second`, `x-limit-per-day`,
 * `x-remaining-today`); until the first answer, the classic 10 per second.
 *
 * - Per second: a request holds its slot from the moment it is sent until one
 *   second after its answer came back, so however latency shifts arrivals,
 *   Etsy never sees more than the limit within any one second from us. An
 *   answer saying nothing is left this second pauses sending for a second
 *   (another client of the same app may be using it).
 * - Per day: the reading is counted down locally as requests go out. When it
 *   reaches the reserve, pulls stop (the rest is kept for tracking pushes and
 *   look-ups); at zero everything stops. Both fail at once, without sending,
 *   with a `QuotaRefusedError` that says why, for as long as the reading
 *   is fresh (one minute); then one request is let through to read the
 *   quota again.
 * - A 429 (the request did not run) pauses every caller for `retry-after`
 *   when Etsy sends one, else 1, 2, 4… seconds. A pause longer than a minute
 *   is not waited out: calls fail at once until it is over.
 *
 * Time is Effect's Clock, so tests drive it with TestClock.
 */
import { Clock, Data, Effect, Ref } from "effect"

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
  readonly pausedUntil: number
  readonly day: DayReading | null
  readonly nextId: number
}

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
  readonly acquire: (lane: Lane) => Effect.Effect<QuotaTicket, QuotaRefusedError>
  readonly observe: (reading: QuotaReading) => Effect.Effect<void>
  /** A 429: pause everyone for `retryAfterMillis`. */
  readonly pause: (millis: number) => Effect.Effect<void>
  readonly snapshot: Effect.Effect<{ readonly perSecond: number; readonly remainingToday: number | undefined }>
}

export const makeQuotaGate = (dailyReserve: number): Effect.Effect<QuotaGate> =>
  Effect.gen(function*() {
    const state = yield* Ref.make<GateState>({ slots: [], perSecond: DEFAULT_PER_SECOND, pausedUntil: 0, day: null, nextId: 1 })
    // One caller at a time decides and takes a slot, so two callers never take the same one.
    const lock = yield* Effect.makeSemaphore(1)

    const release = (id: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(state, (s) => ({ ...s, slots: s.slots.map((slot) => (slot.id === id ? { ...slot, doneAt: now } : slot)) })))

    const acquire = (lane: Lane): Effect.Effect<QuotaTicket, QuotaRefusedError> =>
      lock.withPermits(1)(
        Effect.gen(function*() {
          for (;;) {
            const now = yield* Clock.currentTimeMillis
            const s = yield* Ref.get(state)
            const refusal = dayRefusal(s.day, lane, dailyReserve, now)
            if (refusal !== undefined) {
              return yield* new QuotaRefusedError({ detail: refusal })
            }
            if (s.pausedUntil - now > MAX_INLINE_WAIT_MS) {
              return yield* new QuotaRefusedError({
                detail: `Etsy asked to wait ${Math.ceil((s.pausedUntil - now) / 1000)} s before the next request (rate limited)`
              })
            }
            const slotWait = millisUntilSlot(s.slots, s.perSecond, now)
            const wait = Math.max(s.pausedUntil - now, slotWait === "in_flight" ? IN_FLIGHT_POLL_MS : slotWait)
            if (wait <= 0) {
              break
            }
            yield* Effect.sleep(wait)
          }
          const now = yield* Clock.currentTimeMillis
          const id = yield* Ref.modify(state, (s) => [
            s.nextId,
            {
              ...s,
              nextId: s.nextId + 1,
              slots: [
                ...s.slots.filter((slot) =>
                  slot.doneAt === null || slot.doneAt + 1000 > now
                ),
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

    const observe = (reading: QuotaReading): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(state, (s) => ({
          ...s,
          perSecond: reading.perSecond !== undefined && reading.perSecond >= 1 ? reading.perSecond : s.perSecond,
          pausedUntil: reading.remainingThisSecond === 0 ? Math.max(s.pausedUntil, now + 1000) : s.pausedUntil,
          day: reading.remainingToday === undefined
            ? s.day
            : { limit: reading.perDay ?? s.day?.limit, remaining: reading.remainingToday, atMillis: now }
        })))

    const pause = (millis: number): Effect.Effect<void> =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => Ref.update(state, (s) => ({ ...s, pausedUntil: Math.max(s.pausedUntil, now + millis) }))
      )

    const snapshot = Effect.map(Ref.get(state), (s) => ({ perSecond: s.perSecond, remainingToday: s.day?.remaining }))

    return { acquire, observe, pause, snapshot }
  })
