import { Clock, DateTime, Deferred, Duration, Effect, Exit, Fiber, Queue, Random, type Scope } from "effect"
import type { Lane } from "./Lane.js"
import type { AcquireResult, SlotId, SlotLedger } from "./SlotLedger.js"
import { effectiveLimit, type RateLimitSettings } from "./SlotLog.js"
import { WaitQueue } from "./WaitQueue.js"

/** What a caller tells the budget about the request it wants to send. */
export interface PermitTicket {
  readonly lane: Lane
  /** Requests of one store share a turn in the lane's round-robin; absent = a shared turn. */
  readonly storeKey?: string | undefined
  /** For the send log and logs, e.g. "POST /api/v3/orders/draft". */
  readonly operation?: string | undefined
}

/** Held while one request is sent and answered. */
export interface Permit {
  /** When the slot was granted (Clock, epoch ms); the request is sent right after. */
  readonly sentAt: number
  /** The service answered 429: pause every caller of the credential (Retry-After, else blockSeconds, plus jitter). */
  readonly rateLimited: (retryAfter: Duration.DurationInput | undefined) => Effect.Effect<void>
  /** The HTTP status of the answer, kept in the send log. */
  readonly answered: (status: number) => Effect.Effect<void>
}

/** The shared budget of one POD credential, as seen by this replica. */
export interface CredentialBudget {
  readonly credential: string
  /**
   * Waits for a slot (strict lane priority, round-robin by store), runs `use` (which sends the
   * request), and holds the slot until `windowSeconds` after `use` ended. Nothing is sent while
   * the credential is paused.
   */
  readonly withPermit: <A, E, R>(
    ticket: PermitTicket,
    use: (permit: Permit) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R>
  readonly snapshot: Effect.Effect<BudgetSnapshot>
}

/** What /metrics and `podsync status` show. */
export interface BudgetSnapshot {
  readonly credential: string
  readonly limit: number
  readonly windowSeconds: number
  /** Slots counting now, across every replica sharing the ledger. */
  readonly inUse: number
  /** Requests in flight, across every replica sharing the ledger. */
  readonly inFlight: number
  /** Callers of this replica waiting for a slot, per lane. */
  readonly waiting: Readonly<Record<Lane, number>>
  readonly pausedUntil: string | null
  /** Counters of this replica since it started. */
  readonly sent: number
  readonly rateLimited: number
  readonly pauses: number
  readonly ledgerErrors: number
}

export interface CredentialBudgetOptions {
  readonly credential: string
  readonly rateLimit: RateLimitSettings
  /** Upper bound of the random delay added to every pause, so replicas do not all hit the edge. Default 1000. */
  readonly pauseJitterMs?: number
}

interface Waiter {
  readonly lane: Lane
  readonly storeKey: string
  readonly deferred: Deferred.Deferred<SlotId>
  /** Set by the dispatcher in the same step as it completes `deferred`. */
  slot: SlotId | undefined
}

/** Backoff after consecutive ledger failures; past the list, every retry waits `maxRetryDelayMs`. */
const retryDelaysMs = [100, 250, 500, 1000, 2000]
const maxRetryDelayMs = 5000

/** Starts the dispatcher of one credential in the current scope. */
export const makeCredentialBudget = (
  ledger: SlotLedger,
  options: CredentialBudgetOptions
): Effect.Effect<CredentialBudget, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = new WaitQueue<Waiter>()
    const wake = yield* Queue.sliding<void>(1)
    const jitterMs = options.pauseJitterMs ?? 1000
    const log = Effect.annotateLogs({ credential: options.credential })
    const counters = { sent: 0, rateLimited: 0, pauses: 0, ledgerErrors: 0 }
    let last: AcquireResult | undefined
    let failuresInARow = 0
    // Whether the ledger may still list this replica as waiting.
    let advertised = false

    const handOut = (result: AcquireResult): Effect.Effect<void> =>
      Effect.suspend(() => {
        const unused: Array<SlotId> = []
        for (const slot of result.granted) {
          const waiter = queue.takeNext(result.minLaneRank)
          if (waiter === undefined) {
            unused.push(slot)
            continue
          }
          waiter.slot = slot
          counters.sent++
          Deferred.unsafeDone(waiter.deferred, Exit.succeed(slot))
        }
        return Effect.forEach(unused, (slot) => ledger.cancel(slot).pipe(Effect.catchAll(logLedgerError)), {
          discard: true
        })
      })

    const logLedgerError = (error: unknown) =>
      Effect.sync(() => counters.ledgerErrors++).pipe(
        Effect.zipRight(Effect.logWarning("rate budget ledger failed", error)),
        log
      )

    const waitFor = (result: AcquireResult): Effect.Effect<void> => {
      if (result.retryAt === null) return Effect.void
      const delay = Math.max(ledger.minWaitMs, result.retryAt - result.now)
      return Effect.sleep(Duration.millis(ledger.maxWaitMs === null ? delay : Math.min(delay, ledger.maxWaitMs)))
    }

    const dispatchOnce: Effect.Effect<void> = Effect.suspend(() => {
      if (queue.size === 0) {
        const withdraw = advertised
          ? ledger.withdraw.pipe(Effect.tap(() => (advertised = false)), Effect.catchAll(logLedgerError))
          : Effect.void
        return Effect.zipRight(withdraw, Queue.take(wake))
      }
      advertised = true
      return ledger.acquire({ waitingByLane: queue.waitingByLane() }).pipe(
        Effect.matchEffect({
          onFailure: (error) => {
            const delay = retryDelaysMs[failuresInARow++] ?? maxRetryDelayMs
            return logLedgerError(error).pipe(Effect.zipRight(Effect.sleep(Duration.millis(delay))))
          },
          onSuccess: (result) => {
            failuresInARow = 0
            last = result
            return handOut(result).pipe(Effect.zipRight(queue.size > 0 ? waitFor(result) : Effect.void))
          }
        })
      )
    })
    yield* Effect.forkScoped(Effect.forever(dispatchOnce))

    const pauseFor = (retryAfter: Duration.DurationInput | undefined) =>
      Effect.gen(function*() {
        counters.rateLimited++
        const base = retryAfter === undefined
          ? options.rateLimit.blockSeconds * 1000
          : Duration.toMillis(Duration.decode(retryAfter))
        const jitter = jitterMs > 0 ? yield* Random.nextIntBetween(0, jitterMs + 1) : 0
        const until = yield* ledger.pause(Math.ceil(base) + jitter)
        counters.pauses++
        yield* Effect.logWarning(
          `POD answered 429: every caller of this credential waits ${((base + jitter) / 1000).toFixed(1)} s`
        ).pipe(Effect.annotateLogs({ pausedUntilMs: until }), log)
      }).pipe(Effect.catchAll(logLedgerError))

    const giveUp = (waiter: Waiter): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (queue.remove(waiter) || waiter.slot === undefined) return Effect.void
        return ledger.cancel(waiter.slot).pipe(Effect.catchAll(logLedgerError))
      })

    // Renews a slot whose request runs long, for ledgers where an unanswered slot expires.
    const keepAlive = (slot: SlotId, everyMs: number): Effect.Effect<void> =>
      Effect.sleep(Duration.millis(everyMs)).pipe(
        Effect.zipRight(ledger.keepAlive(slot).pipe(Effect.catchAll(logLedgerError))),
        Effect.forever
      )

    const withPermit = <A, E, R>(
      ticket: PermitTicket,
      use: (permit: Permit) => Effect.Effect<A, E, R>
    ): Effect.Effect<A, E, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const waiter: Waiter = {
            lane: ticket.lane,
            storeKey: ticket.storeKey ?? "",
            deferred: yield* Deferred.make<SlotId>(),
            slot: undefined
          }
          queue.enqueue(waiter)
          yield* Queue.offer(wake, undefined)
          const slot = yield* restore(Deferred.await(waiter.deferred)).pipe(Effect.onInterrupt(() => giveUp(waiter)))
          const sentAt = yield* Clock.currentTimeMillis
          let status: number | null = null
          const permit: Permit = {
            sentAt,
            rateLimited: pauseFor,
            answered: (answer) => Effect.sync(() => void (status = answer))
          }
          const keeper = ledger.keepAliveEveryMs === null
            ? undefined
            : yield* Effect.fork(Effect.interruptible(keepAlive(slot, ledger.keepAliveEveryMs)))
          const exit = yield* Effect.exit(restore(use(permit)))
          if (keeper !== undefined) yield* Fiber.interrupt(keeper)
          yield* ledger.release(slot, {
            lane: ticket.lane,
            storeKey: waiter.storeKey,
            operation: ticket.operation ?? "",
            status
          }).pipe(Effect.catchAll(logLedgerError))
          return yield* exit
        })
      )

    const snapshot: Effect.Effect<BudgetSnapshot> = Effect.gen(function*() {
      const fresh = yield* ledger.usage.pipe(Effect.option)
      const usage = fresh._tag === "Some"
        ? fresh.value
        : { now: last?.now ?? 0, inUse: last?.inUse ?? 0, inFlight: 0, pausedUntil: last?.pausedUntil ?? null }
      const pausedUntil = usage.pausedUntil !== null && usage.pausedUntil > usage.now ? usage.pausedUntil : null
      return {
        credential: options.credential,
        limit: effectiveLimit(options.rateLimit),
        windowSeconds: options.rateLimit.windowSeconds,
        inUse: usage.inUse,
        inFlight: usage.inFlight,
        waiting: queue.waitingByLane(),
        pausedUntil: pausedUntil === null ? null : DateTime.formatIso(DateTime.unsafeMake(pausedUntil)),
        ...counters
      }
    })

    return { credential: options.credential, withPermit, snapshot }
  })
