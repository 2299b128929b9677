import { Effect, Layer, Queue } from "effect"
import { isDryRun } from "../config/DryRun.js"
import { DRAFT_STATES, FULFILL_STATES, MATCH_STATES } from "../domain/OrderState.js"
import { Db } from "../db/Db.js"
import { watchDatabase } from "../observability/DependencyHealth.js"
import { LOOK_UP_BATCH } from "../pod/PodClient.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { endDeadJobLeases } from "../schedule/JobLeases.js"
import { type Drafted, draftOrder, settleDrafted } from "./DraftStage.js"
import { coverageForBatch } from "./EconomyCoverage.js"
import { fulfillMany, wouldFulfillMany } from "./FulfillStage.js"
import { LOOK_UP_FRESH_MS, LOOK_UP_GATHER, lookUpMany } from "./LookUpStage.js"
import { PipelineSignals } from "./PipelineSignals.js"
import { matchMany } from "./Planning.js"
import { claimLoop, eachOrder, PipelineSettings, StageWakeups, wholeBatch } from "./StageLoop.js"

/** Orders one draft claim takes; they are all sent at once, the rate budget pacing what reaches the service. */
const DRAFT_BATCH = 25

/**
 * The embedded database is held by this process alone (the data-folder lock, which tells a dead
 * or dying holder from a live one): any claim in it, on an order or a job, is a killed
 * predecessor's, so there is no need to wait for its leases to expire: its orders are free once
 * any request it had sent may no longer be at work at the service (`requestTimeoutMs`, the POD
 * request timeout), its jobs at once. Built before anything that claims (DaemonLive), so every
 * claim it finds is a predecessor's.
 */
export const ReleaseStaleClaimsLive = (requestTimeoutMs: number) =>
  Layer.effectDiscard(Effect.gen(function*() {
    if ((yield* Db).dialect !== "pglite") return
    const released = yield* watchDatabase(
      "releasing a previous run's claims",
      Effect.all({ orders: (yield* OrdersRepo).releaseAllLeases(requestTimeoutMs), jobs: endDeadJobLeases })
    ).pipe(Effect.catchAll(() => Effect.succeed({ orders: 0, jobs: 0 })))
    if (released.orders > 0 || released.jobs > 0) {
      yield* Effect.logInfo("released the claims of a previous run").pipe(Effect.annotateLogs(released))
    }
  }))

/** Plans pulled, changed and woken orders: held with the seller's reason, ready, cancelled or not a POD order. */
export const MatchLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { draft, lookUp, match } = yield* StageWakeups
  // A ready order goes to the look-up first (never drafted through this database), else straight to the draft stage.
  const next = { kick: Effect.zipRight(lookUp.kick, draft.kick), wait: draft.wait }
  yield* claimLoop({
    name: "match",
    states: MATCH_STATES,
    batch: 50,
    work: wholeBatch("match", matchMany),
    self: match,
    next,
    sendsRequests: false
  })
}))

/**
 * Looks ready orders this database never tried to draft up at the POD service before their first
 * draft, LOOK_UP_BATCH a call (LookUpStage.ts): what stands there is adopted, the rest goes on to
 * the draft stage. Orders coming one by one wait a moment (`lookUpGather`) to share a call. A
 * look-up only reads, so a dead holder's look-up claims are taken at once.
 */
export const LookUpLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { draft, lookUp } = yield* StageWakeups
  const { lookUpGather } = yield* PipelineSettings
  const repo = yield* OrdersRepo
  // A dry run looks an order up until its would-be draft is recorded, not again every LOOK_UP_FRESH_MS after.
  const dryRun = yield* isDryRun
  yield* claimLoop({
    name: "look-up",
    states: ["ready"],
    batch: LOOK_UP_BATCH,
    needs: "pod",
    lookedUp: { when: "notRecently", withinMs: LOOK_UP_FRESH_MS },
    unlessDryRunRecorded: dryRun,
    gather: {
      upTo: lookUpGather ?? LOOK_UP_GATHER,
      due: repo.countDueForLookUp(LOOK_UP_FRESH_MS, LOOK_UP_BATCH, dryRun)
    },
    self: lookUp,
    next: draft,
    work: wholeBatch("look-up", lookUpMany),
    sendsRequests: false
  })
}))

/**
 * Creates the drafts of ready and in-doubt orders. A draft claim is the write-ahead record of the
 * attempt it may make (see OrdersRepo.claim). The drafts are made one by one (the rate budget
 * paces them); the batch's moves to drafted are written, and its store orders marked, together.
 * The Economy ZIPs of the batch are checked first, in one call.
 */
export const DraftLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { draft } = yield* StageWakeups
  const { draftConcurrency } = yield* PipelineSettings
  yield* claimLoop({
    name: "draft",
    states: DRAFT_STATES,
    batch: DRAFT_BATCH,
    countsAttempt: true,
    // A dry run records each order's would-be draft once (DraftStage), not at every turn.
    unlessDryRunRecorded: yield* isDryRun,
    needs: "pod",
    // A ready order's first draft waits for its look-up (the look-up stage) unless it was looked up lately.
    lookedUp: { when: "recently", withinMs: LOOK_UP_FRESH_MS },
    self: draft,
    work: (claimed, owner) =>
      Effect.gen(function*() {
        const drafted: Array<Drafted> = []
        const coverage = yield* coverageForBatch(claimed)
        yield* eachOrder("draft", draftConcurrency, (o) => draftOrder(o, owner, (d) => Effect.sync(() => drafted.push(d)), coverage))(
          claimed,
          owner
        )
        yield* wholeBatch("recording drafts", () => settleDrafted(drafted, owner))(drafted.map((d) => d.stored), owner)
      })
  })
}))

/** Pushes the trackings of shipped orders to their stores. */
export const FulfillLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { fulfill } = yield* StageWakeups
  const dryRun = yield* isDryRun
  yield* claimLoop({
    name: "fulfill",
    states: FULFILL_STATES,
    batch: 25,
    // A dry run tells each order's story what it would push, once, and pushes nothing.
    work: wholeBatch("fulfill", dryRun ? wouldFulfillMany : fulfillMany),
    unlessDryRunRecorded: dryRun,
    self: fulfill
  })
}))

/** A mapping or catalog change: the held (and not-POD) orders of a store become due for the match stage. */
export const ReplanLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const signals = yield* PipelineSignals
  const repo = yield* OrdersRepo
  const { match } = yield* StageWakeups
  yield* Effect.gen(function*() {
    const storeKey = yield* Queue.take(signals.replans)
    yield* watchDatabase("waking held orders", repo.wake(["held", "not_pod"], storeKey)).pipe(Effect.ignore)
    yield* match.kick
  }).pipe(Effect.forever, Effect.forkScoped)
}))
