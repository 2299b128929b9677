import { Effect, Layer, Queue } from "effect"
import { Replica } from "../schedule/ReplicaIdentity.js"
import { PipelineSignals } from "./PipelineSignals.js"
import { followUpMany } from "./ReconcileStage.js"
import { StageWakeups } from "./StageLoop.js"

/** How long POD webhook hints are gathered before they are followed up together. */
const FOLLOW_UP_GATHER = "200 millis"

/**
 * A hint about an order whose draft is still being made is followed up again after this, at most
 * MAX_DEFERRALS times (the draft stage records a batch's drafts together, after the service may
 * already have sent an address event about one of them).
 */
const FOLLOW_UP_DEFERRAL = "3 seconds"
const MAX_DEFERRALS = 20

/** Follows up POD webhooks: the orders they name are read from the API (webhooks are hints), in batches. */
export const FollowUpLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const signals = yield* PipelineSignals
  const { fulfill } = yield* StageWakeups
  const owner = yield* Replica
  yield* Effect.gen(function*() {
    const first = yield* Queue.take(signals.followUps)
    // Deliveries come in bursts (one per event of each order): a moment's wait lets one list call answer many.
    yield* Effect.sleep(FOLLOW_UP_GATHER)
    const hints = [first, ...(yield* Queue.takeAll(signals.followUps))]
    const done = yield* followUpMany(hints, owner).pipe(
      Effect.map((result) => result.deferred),
      Effect.catchAllCause((cause) => Effect.as(Effect.logError("webhook follow-up failed; it runs again at its next turn", cause), []))
    )
    const again = done.filter((h) => (h.deferrals ?? 0) < MAX_DEFERRALS).map((h) => ({ ...h, deferrals: (h.deferrals ?? 0) + 1 }))
    if (done.length > again.length) {
      yield* Effect.logWarning(
        "a POD webhook about an order whose draft is still being made was put off too often; reconciliation has the last word"
      )
    }
    if (again.length > 0) {
      yield* Effect.sleep(FOLLOW_UP_DEFERRAL).pipe(Effect.zipRight(Queue.offerAll(signals.followUps, again)), Effect.forkScoped)
    }
    yield* fulfill.kick
  }).pipe(Effect.forever, Effect.forkScoped)
}))
