import { Effect, Layer, Queue } from "effect"
import { PipelineTriggers } from "./PipelineTriggers.js"
import type { FollowUpHint } from "./ReconcileStage.js"

/** A store said something changed: an order it named, or anything ("*": every store). */
export type PullHint = { readonly storeKey: string; readonly storeOrderId?: string | undefined }

/**
 * The queues between the edges (webhooks, file watchers, CLI) and the loops. Kept apart from
 * the loops so the edges can be built before them (the mapping store, for one, both plans
 * orders and signals changes).
 */
export class PipelineSignals extends Effect.Service<PipelineSignals>()("podsync/PipelineSignals", {
  effect: Effect.gen(function*() {
    return {
      pulls: yield* Queue.unbounded<PullHint>(),
      followUps: yield* Queue.unbounded<FollowUpHint>(),
      replans: yield* Queue.unbounded<string | undefined>(),
      reconciles: yield* Queue.sliding<void>(1)
    }
  })
}) {}

export const PipelineTriggersLive = Layer.effect(
  PipelineTriggers,
  Effect.map(PipelineSignals, (signals) =>
    PipelineTriggers.of({
      storeChanged: (storeKey, storeOrderId) => Queue.offer(signals.pulls, { storeKey, storeOrderId }).pipe(Effect.asVoid),
      podOrderChanged: (hint) => Queue.offer(signals.followUps, hint).pipe(Effect.asVoid),
      replanHeld: (storeKey) => Queue.offer(signals.replans, storeKey).pipe(Effect.asVoid),
      reconcileNow: Queue.offer(signals.reconciles, undefined).pipe(Effect.asVoid)
    }))
).pipe(Layer.provideMerge(PipelineSignals.Default))
