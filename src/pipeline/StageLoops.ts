import { Effect, Layer, Queue } from "effect"
import { DRAFT_STATES, FULFILL_STATES, MATCH_STATES } from "../domain/OrderState.js"
import { Db } from "../db/Db.js"
import { watchDatabase } from "../observability/DependencyHealth.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { type Drafted, draftOrder, settleDrafted } from "./DraftStage.js"
import { coverageForBatch } from "./EconomyCoverage.js"
import { fulfillMany } from "./FulfillStage.js"
import { PipelineSignals } from "./PipelineSignals.js"
import { matchMany } from "./Planning.js"
import { claimLoop, eachOrder, PipelineSettings, StageWakeups, wholeBatch } from "./StageLoop.js"

/** Orders one draft claim takes; they are all sent at once, the rate budget pacing what reaches the service. */
const DRAFT_BATCH = 25

/**
 * The embedded database is held by this process alone (a data-dir lock): any claim in it is a
 * killed predecessor's, so there is no need to wait for its leases to expire.
 */
export const ReleaseStaleClaimsLive = Layer.effectDiscard(Effect.gen(function*() {
  if ((yield* Db).dialect !== "pglite") return
  const released = yield* watchDatabase("releasing a previous run's claims", (yield* OrdersRepo).releaseAllLeases).pipe(
    Effect.catchAll(() => Effect.succeed(0))
  )
  if (released > 0) yield* Effect.logInfo("released the claims of a previous run").pipe(Effect.annotateLogs({ orders: released }))
}))

/** Plans pulled, changed and woken orders: held with the seller's reason, ready, cancelled or not a POD order. */
export const MatchLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { draft, match } = yield* StageWakeups
  yield* claimLoop({ name: "match", states: MATCH_STATES, batch: 50, work: wholeBatch("match", matchMany), self: match, next: draft })
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
    needs: "pod",
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
  yield* claimLoop({ name: "fulfill", states: FULFILL_STATES, batch: 25, work: wholeBatch("fulfill", fulfillMany), self: fulfill })
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
