import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, TestClock } from "effect"
import { Registry } from "prom-client"
import { RateBudget, RateBudgetInMemory } from "../../src/budget/RateBudget.js"
import { registerRateBudgetMetrics } from "../../src/budget/RateBudgetMetrics.js"

const budget = RateBudgetInMemory({
  credential: "pod-team-a",
  rateLimit: { requests: 2, windowSeconds: 10, blockSeconds: 60, headroom: 0 },
  startFull: false,
  pauseJitterMs: 0
})

describe("the rate budget on /metrics", () => {
  it.effect("shows use, waiting callers per lane, the pause and the counters", () =>
    Effect.gen(function*() {
      const registry = new Registry()
      yield* registerRateBudgetMetrics(registry)
      const rateBudget = yield* RateBudget
      const refused = yield* Effect.fork(
        rateBudget.withPermit(
          { lane: "normal" },
          (permit) => Effect.zipRight(permit.answered(429), permit.rateLimited(Duration.seconds(30)))
        )
      )
      yield* TestClock.adjust(Duration.millis(1))
      yield* Fiber.join(refused)
      yield* Effect.fork(rateBudget.withPermit({ lane: "urgent", storeKey: "s" }, () => Effect.void))
      yield* Effect.fork(rateBudget.withPermit({ lane: "background", storeKey: "s" }, () => Effect.void))
      yield* TestClock.adjust(Duration.millis(1))
      const text = yield* Effect.promise(() => registry.metrics())
      expect(text).toContain('podsync_pod_budget_limit{credential="pod-team-a"} 2')
      expect(text).toContain('podsync_pod_budget_in_use{credential="pod-team-a"} 1')
      expect(text).toContain('podsync_pod_budget_paused{credential="pod-team-a"} 1')
      expect(text).toContain('podsync_pod_budget_waiting{credential="pod-team-a",lane="urgent"} 1')
      expect(text).toContain('podsync_pod_budget_waiting{credential="pod-team-a",lane="background"} 1')
      expect(text).toContain('podsync_pod_budget_waiting{credential="pod-team-a",lane="normal"} 0')
      expect(text).toContain('podsync_pod_budget_sent_total{credential="pod-team-a"} 1')
      expect(text).toContain('podsync_pod_budget_rate_limited_total{credential="pod-team-a"} 1')
    }).pipe(Effect.provide(budget)))
})
