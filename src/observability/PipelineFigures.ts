import { Clock, Effect } from "effect"
import { isDryRun } from "../config/DryRun.js"
import { NEEDS_A_PERSON } from "../domain/OrderState.js"
import { DRAFT_STATES } from "../domain/OrderState.js"
import { FULFILL_STATES } from "../domain/OrderState.js"
import { MATCH_STATES } from "../domain/OrderState.js"
import {
  type RefusedTrackingGroup,
  type StageDepth,
  type StageQueue,
  StatusRepo,
  type StorePull,
  type StoreStateCount,
  type WaitingGroup
} from "../repos/StatusRepo.js"

/** The work queues of the pipeline, as its stage loops claim them (pipeline/Workers.ts). */
export const PIPELINE_QUEUES: ReadonlyArray<StageQueue> = [
  { stage: "match", states: MATCH_STATES },
  { stage: "draft", states: DRAFT_STATES },
  { stage: "fulfill", states: FULFILL_STATES, needsOpenShipment: true }
]

/** One consistent reading of the database's side of the picture, at `now`. */
export interface PipelineFigures {
  /** Epoch ms (Clock) the figures were read at; ages are measured from it. */
  readonly now: number
  readonly orders: ReadonlyArray<StoreStateCount>
  /** Orders in states that need a person, by store, state and held reason. */
  readonly needingAPerson: ReadonlyArray<WaitingGroup>
  readonly refusedTracking: ReadonlyArray<RefusedTrackingGroup>
  readonly queues: ReadonlyArray<StageDepth>
  readonly pulls: ReadonlyArray<StorePull>
}

export const readPipelineFigures = Effect.gen(function*() {
  const repo = yield* StatusRepo
  const now = yield* Clock.currentTimeMillis
  const [orders, needingAPerson, refusedTracking, queues, pulls] = yield* Effect.all([
    repo.ordersByStoreAndState,
    repo.waitingIn(NEEDS_A_PERSON),
    repo.refusedTracking,
    repo.dueByStage(PIPELINE_QUEUES, new Date(now), yield* isDryRun),
    repo.lastPulls
  ])
  return { now, orders, needingAPerson, refusedTracking, queues, pulls } satisfies PipelineFigures
})

/** Whole seconds from `since` to `now` (never negative: clocks of replicas differ a little). */
export const ageSeconds = (now: number, since: Date): number => Math.max(0, Math.floor((now - since.getTime()) / 1000))
