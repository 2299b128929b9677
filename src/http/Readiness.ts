import { Effect, Ref } from "effect"

/**
 * Whether this process should receive traffic: false until start-up (migrations,
 * workers) is done, and false again as soon as shutdown begins, so a load
 * balancer stops sending webhooks before the server closes.
 */
export class Readiness extends Effect.Service<Readiness>()("podsync/Readiness", {
  effect: Effect.gen(function*() {
    const ready = yield* Ref.make(false)
    return {
      isReady: Ref.get(ready),
      markReady: Ref.set(ready, true),
      markNotReady: Ref.set(ready, false)
    }
  })
}) {}
