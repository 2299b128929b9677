import { Clock, Effect } from "effect"
import type { SlotId, SlotLedger } from "./SlotLedger.js"
import { admit, type SlotState } from "./SlotLog.js"

export interface InMemoryLedgerOptions {
  readonly limit: number
  readonly windowMs: number
  /**
   * This process cannot know what a predecessor sent just before it died: treat the first
   * window as full (every slot held until start + window). Default true.
   */
  readonly startFull?: boolean
}

interface MemorySlot {
  answeredAt: number | null
  holdsUntil: number
}

/** The ledger of a single replica: slots in memory, time from Clock. */
export const makeInMemorySlotLedger = (options: InMemoryLedgerOptions): Effect.Effect<SlotLedger> =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const slots = new Map<SlotId, MemorySlot>()
    let nextId = 1
    let pausedUntil: number | null = null
    if (options.startFull ?? true) {
      for (let i = 0; i < options.limit; i++) {
        slots.set(`start-${i}`, { answeredAt: start, holdsUntil: start + options.windowMs })
      }
    }
    const prune = (now: number) => {
      for (const [id, slot] of slots) if (slot.answeredAt !== null && slot.holdsUntil < now) slots.delete(id)
    }
    const held = (now: number): Array<SlotState> => {
      prune(now)
      return [...slots.values()]
    }

    return {
      acquire: (request) =>
        Clock.currentTimeMillis.pipe(
          Effect.map((now) => {
            const wanted = request.waitingByLane.urgent + request.waitingByLane.normal +
              request.waitingByLane.background
            const admission = admit({ limit: options.limit, windowMs: options.windowMs, now, wanted, pausedUntil, slots: held(now) })
            const granted: Array<SlotId> = []
            for (let i = 0; i < admission.granted; i++) {
              const id = String(nextId++)
              // In flight: never expires while this process lives.
              slots.set(id, { answeredAt: null, holdsUntil: Number.POSITIVE_INFINITY })
              granted.push(id)
            }
            return { now, granted, minLaneRank: 0, retryAt: admission.retryAt, inUse: admission.inUse, pausedUntil }
          })
        ),
      release: (slot) =>
        Clock.currentTimeMillis.pipe(
          Effect.map((now) => {
            const held = slots.get(slot)
            if (held !== undefined) {
              held.answeredAt = now
              held.holdsUntil = now + options.windowMs
            }
          })
        ),
      cancel: (slot) => Effect.sync(() => void slots.delete(slot)),
      keepAlive: () => Effect.void,
      pause: (delayMs) =>
        Clock.currentTimeMillis.pipe(
          Effect.map((now) => {
            pausedUntil = Math.max(pausedUntil ?? 0, now + delayMs)
            return pausedUntil
          })
        ),
      withdraw: Effect.void,
      usage: Clock.currentTimeMillis.pipe(
        Effect.map((now) => {
          const current = held(now).filter((slot) => slot.holdsUntil >= now)
          return {
            now,
            inUse: current.length,
            inFlight: current.filter((slot) => slot.answeredAt === null).length,
            pausedUntil: pausedUntil !== null && pausedUntil > now ? pausedUntil : null
          }
        })
      ),
      keepAliveEveryMs: null,
      minWaitMs: 1,
      maxWaitMs: null
    }
  })
