import { Clock, Context, Duration, Effect, Layer, Option, Queue } from "effect"
import { SessionTie } from "../db/SessionTie.js"
import type { OrderState } from "../domain/OrderState.js"
import { type Dependency, logFailure, watchDatabase, whenUp } from "../observability/DependencyHealth.js"
import { OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { Replica } from "../schedule/ReplicaIdentity.js"
import { LeaseLength } from "./Lease.js"

/** What the loops are told by the composition root: schedules, stores, and how hard to work. */
export interface PipelineSettingsShape {
  readonly storeKeys: ReadonlyArray<string>
  readonly schedules: { readonly pull: string; readonly reconcile: string; readonly catalog: string }
  readonly timezone: string
  /** How long an idle loop waits before looking for due work again (a wake-up comes sooner). */
  readonly idle: Duration.DurationInput
  /** Orders worked on at once by the draft stage (the rate budget paces what reaches the service). */
  readonly draftConcurrency: number
  /** How reconciliation reads fulfilled orders again for later boxes. */
  readonly laterPackages: { readonly everyMs: number; readonly forMs: number }
  /**
   * How long a dead replica's claims stay untaken once its session is seen gone: as long as a
   * request it had sent may still be at work at the service (the POD request timeout). Default 0.
   */
  readonly takeOverAfterMs?: number
  /** How long an order due a look-up at the POD service waits to share the call with others (LookUpStage.ts; default 3 s). */
  readonly lookUpGather?: Duration.DurationInput
}

export class PipelineSettings extends Context.Tag("podsync/PipelineSettings")<PipelineSettings, PipelineSettingsShape>() {}

/** Wakes a waiting loop; several wake-ups before it runs count as one. */
export interface Wakeup {
  readonly kick: Effect.Effect<void>
  readonly wait: (idle: Duration.DurationInput) => Effect.Effect<unknown>
}

const makeWakeup = Effect.map(Queue.sliding<void>(1), (queue): Wakeup => ({
  kick: Queue.offer(queue, undefined).pipe(Effect.asVoid),
  wait: (idle) => Effect.raceFirst(Queue.take(queue), Effect.sleep(idle))
}))

/** One wake-up per claiming stage: work done upstream wakes the stage below at once. */
export class StageWakeups extends Effect.Service<StageWakeups>()("podsync/StageWakeups", {
  effect: Effect.all({ match: makeWakeup, lookUp: makeWakeup, draft: makeWakeup, fulfill: makeWakeup })
}) {}

/** The first wait after a failed claim; it doubles to at most MAX_BACKOFF while the failures last. */
const FIRST_BACKOFF_MS = 500
const MAX_BACKOFF_MS = 10_000

export const logFailures = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.catchAllCause((cause) => logFailure(`${name} failed; it runs again at its next turn`, cause)))

/**
 * A stage's loop: claim due orders in `states` (leases, so replicas share them; tied to this
 * replica's database session when it is, so a dead replica's are taken at once), work on them,
 * wake the next stage, wait when there was less than a batch. A failed claim (the database
 * down) is never read as "no work": it is logged with its cause, counted, reported to readiness
 * through `watchDatabase`, and the loop backs off until the database answers again. A loop whose
 * work `needs` a dependency (the POD service) claims nothing while it is down.
 */
export const claimLoop = <R>(options: {
  readonly name: string
  readonly states: ReadonlyArray<OrderState>
  readonly batch: number
  readonly work: (claimed: ReadonlyArray<StoredOrder>, owner: string) => Effect.Effect<unknown, never, R>
  readonly self: Wakeup
  readonly next?: Wakeup
  /** The claim is the write-ahead record of an attempt (the draft stage). */
  readonly countsAttempt?: boolean
  /** The work can do nothing while this dependency is down: nothing is claimed until it answers again. */
  readonly needs?: Dependency
  /** The work sends requests that change something elsewhere (default): a dead holder's claims wait out `takeOverAfterMs`. */
  readonly sendsRequests?: boolean
  /** Which ready orders are taken by their look-up at the POD service (see OrdersRepo.claim). */
  readonly lookedUp?: { readonly when: "recently" | "notRecently"; readonly withinMs: number }
  /** A dry run: orders whose would-be request is recorded already are left alone until they change (OrdersRepo.recordDryRun). */
  readonly unlessDryRunRecorded?: boolean
  /**
   * After a wait (less than a batch was due), while some but less than a batch is `due`, wait up to
   * `upTo` more before claiming, so that orders coming one by one are worked on together (one
   * request for many); a backlog goes at once, and nothing is waited for when nothing is due.
   */
  readonly gather?: { readonly upTo: Duration.DurationInput; readonly due: Effect.Effect<number, unknown> }
}) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const owner = yield* Replica
    const tie = Option.getOrElse(yield* Effect.serviceOption(SessionTie), () => SessionTie.untied)
    const { idle, takeOverAfterMs } = yield* PipelineSettings
    const leaseSeconds = yield* LeaseLength
    let backoffMs = 0
    return yield* Effect.gen(function*() {
      // While the dependency is down its probe asks it; the loop resumes the moment it answers.
      if (options.needs !== undefined) yield* whenUp(options.needs)
      const tiedToSession = yield* tie.tied
      const claim = yield* watchDatabase(
        `claiming ${options.name} work`,
        repo.claim(options.states, options.batch, owner, leaseSeconds, {
          countsAttempt: options.countsAttempt ?? false,
          tiedToSession,
          takeOverAfterMs: options.sendsRequests === false ? 0 : takeOverAfterMs ?? 0,
          ...(options.lookedUp === undefined ? {} : { lookedUp: options.lookedUp }),
          ...(options.unlessDryRunRecorded === true ? { unlessDryRunRecorded: true } : {})
        })
      ).pipe(Effect.either)
      if (claim._tag === "Left") {
        backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(FIRST_BACKOFF_MS, backoffMs * 2))
        return yield* Effect.sleep(Duration.millis(backoffMs))
      }
      backoffMs = 0
      const claimed = claim.right
      if (claimed.length > 0) yield* options.work(claimed, owner)
      if (claimed.length > 0 && options.next !== undefined) yield* options.next.kick
      if (claimed.length < options.batch) {
        yield* options.self.wait(idle)
        if (options.gather !== undefined) yield* gatherFor(options.gather.upTo, options.gather.due, options.batch)
      }
    }).pipe(Effect.forever, Effect.annotateLogs({ stage: options.name }), Effect.forkScoped)
  })

/** How often a gathering loop asks whether a whole batch is due. */
const GATHER_LOOK_MS = 250

/**
 * Waits while some but less than `batch` is `due`, at most `upTo`. A failing count (the database busy)
 * only ends the wait: the claim that follows meets the failure and reports it.
 */
export const gatherFor = (upTo: Duration.DurationInput, due: Effect.Effect<number, unknown>, batch: number) =>
  Effect.gen(function*() {
    const until = (yield* Clock.currentTimeMillis) + Duration.toMillis(upTo)
    while ((yield* Clock.currentTimeMillis) < until) {
      const n = yield* due.pipe(Effect.orElseSucceed(() => batch))
      if (n === 0 || n >= batch) return
      yield* Effect.sleep(Duration.millis(Math.min(GATHER_LOOK_MS, Math.max(0, until - (yield* Clock.currentTimeMillis)))))
    }
  })

/** Gives claimed orders back, due again in `inMs`; a failure is seen (their leases expire anyway). */
export const giveBack = (claimed: ReadonlyArray<StoredOrder>, owner: string, inMs: number) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const repo = yield* OrdersRepo
    yield* watchDatabase(
      "giving claimed orders back",
      repo.releaseMany(claimed.map((o) => ({ id: o.id, nextAttemptAt: new Date(now + inMs) })), owner)
    )
  }).pipe(Effect.catchAllCause(() => Effect.void))

/** Work on each claimed order, `concurrency` at a time: a failing order is logged and the others go on. */
export const eachOrder =
  <R>(name: string, concurrency: number, work: (order: StoredOrder, owner: string) => Effect.Effect<unknown, unknown, R>) =>
  (claimed: ReadonlyArray<StoredOrder>, owner: string) =>
    Effect.forEach(claimed, (order) =>
      logFailures(`${name} of ${order.referenceId}`, work(order, owner)).pipe(
        // Interrupted (shutdown): give the order back now instead of waiting for its lease to expire.
        Effect.onInterrupt(() => giveBack([order], owner, 0))
      ), { concurrency, discard: true })

/**
 * Work on the whole claimed batch at once (a few statements and requests for all of it). If it
 * fails (the database busy), the batch is given back, due again in a few seconds: every stage's
 * work is safe to repeat.
 */
export const wholeBatch =
  <R>(name: string, work: (claimed: ReadonlyArray<StoredOrder>, owner: string) => Effect.Effect<unknown, unknown, R>) =>
  (claimed: ReadonlyArray<StoredOrder>, owner: string) =>
    work(claimed, owner).pipe(
      Effect.catchAllCause((cause) =>
        logFailure(`${name} of ${claimed.length} orders failed; they are due again in a few seconds`, cause).pipe(
          Effect.zipRight(giveBack(claimed, owner, 5_000))
        )
      ),
      Effect.onInterrupt(() => giveBack(claimed, owner, 0))
    )

/** The settings from the daemon's options (tests shorten `idle`). */
export const PipelineSettingsLive = (settings: PipelineSettingsShape) => Layer.succeed(PipelineSettings, settings)
