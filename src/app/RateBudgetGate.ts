import { Effect, FiberRef, Layer, Option } from "effect"
import { PodRequestGate, type PodRequestOutcome } from "../pod/PodRequestGate.js"
import type { Permit } from "../budget/CredentialBudget.js"
import { RateBudget } from "../budget/RateBudget.js"

// The permit of the request being sent by this fiber: `report` is called inside `send`.
const currentPermit = FiberRef.unsafeMake<Option.Option<Permit>>(Option.none())

/**
 * The POD client's request gate backed by the shared rate budget: every request waits for a
 * slot in its lane, holds it until `windowSeconds` after its answer, and a 429 pauses every
 * caller of the credential.
 */
export const RateBudgetGateLive: Layer.Layer<PodRequestGate, never, RateBudget> = Layer.effect(
  PodRequestGate,
  Effect.map(RateBudget, (budget) => ({
    around: (info, send) =>
      budget.withPermit(
        { lane: info.lane, storeKey: info.storeKey, operation: `${info.method} ${info.path}` },
        (permit) => Effect.locally(send, currentPermit, Option.some(permit))
      ),
    report: (info, outcome: PodRequestOutcome) =>
      Effect.flatMap(FiberRef.get(currentPermit), (permit) => {
        if (Option.isNone(permit)) {
          return Effect.logWarning("a POD request was reported outside the rate budget").pipe(
            Effect.annotateLogs({ operation: info.operation })
          )
        }
        if (outcome._tag === "NoAnswer") return Effect.void
        return permit.value.answered(outcome.status).pipe(
          Effect.zipRight(outcome.status === 429 ? permit.value.rateLimited(outcome.retryAfter) : Effect.void)
        )
      })
  }))
)
