import { Context, type Effect } from "effect"
import type { PodWebhookHint } from "../pod/PodWebhookEvents.js"

/**
 * How the edges (webhooks, file watchers, CLI) tell the pipeline that
 * something changed. Each call only makes work due sooner: the state that
 * counts is always re-read from the API, so a duplicate or forged-then-
 * rejected hint costs nothing.
 */
export interface PipelineTriggersShape {
  /** A store says an order changed (or something did): pull that store soon, that order first if named. */
  readonly storeChanged: (storeKey: string, storeOrderId?: string) => Effect.Effect<void>
  /** The POD service says something happened to an order: follow it up in the urgent lane. */
  readonly podOrderChanged: (hint: PodWebhookHint) => Effect.Effect<void>
  /** Mappings or the catalog changed: re-plan held orders (of one store, or all). */
  readonly replanHeld: (storeKey?: string) => Effect.Effect<void>
  /** Follow every order with a draft at the service now (the CLI's `podsync reconcile`). */
  readonly reconcileNow?: Effect.Effect<void>
}

export class PipelineTriggers extends Context.Tag("podsync/PipelineTriggers")<PipelineTriggers, PipelineTriggersShape>() {}
