import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Either, Layer, Redacted } from "effect"
import { RateBudget, RateBudgetInMemory } from "../../src/budget/RateBudget.js"
import { RateBudgetGateLive } from "../../src/app/RateBudgetGate.js"
import { DEFAULT_AUTH_HEADERS, PodClient } from "../../src/pod/PodClient.js"
import type { PodLane } from "../../src/pod/PodRequestGate.js"
import { startPodSimulator } from "../../src/simulator/pod/index.js"
import { simAdmin, simStats } from "./simAdmin.js"

const rateLimit = { requests: 8, windowSeconds: 1, blockSeconds: 5, headroom: 0 }

const clientWithBudget = (url: string) => {
  const budget = RateBudgetInMemory({ credential: "sim", rateLimit, startFull: false, pauseJitterMs: 100 })
  const client = PodClient.Default({
    baseUrl: url,
    clientKey: Redacted.make("sim-client-key"),
    clientSecret: Redacted.make("sim-client-secret"),
    authHeaders: DEFAULT_AUTH_HEADERS,
    timeoutMs: 5_000
  }).pipe(Layer.provide(NodeHttpClient.layer), Layer.provide(RateBudgetGateLive))
  return Layer.provideMerge(client, budget)
}

const simulator = Effect.acquireRelease(
  Effect.promise(() => startPodSimulator({ rateLimit: { requests: 8, windowSeconds: 1, blockSeconds: 5 } })),
  (sim) => Effect.promise(() => sim.close())
)

const lanes: ReadonlyArray<PodLane> = ["urgent", "normal", "background"]

describe("the POD client behind the rate budget (real HTTP to the simulator)", () => {
  it.scopedLive("sends as fast as the simulator's strict limit allows and is never refused", () =>
    Effect.gen(function*() {
      const sim = yield* simulator
      yield* Effect.gen(function*() {
        const client = yield* PodClient
        yield* Effect.forEach(
          Array.from({ length: 40 }, (_, i) => i),
          (i) => client.listCatalog({ paging: { limit: 1 } }, { lane: lanes[i % 3]!, storeKey: `store-${i % 4}` }),
          { concurrency: "unbounded", discard: true }
        )
        const stats = yield* Effect.promise(() => simStats(sim.url))
        expect(stats).toMatchObject({ accepted: 40, rejected429: 0, maxInWindow: 8 })
        const budget = yield* RateBudget
        expect((yield* budget.snapshot).sent).toBe(40)
      }).pipe(Effect.provide(clientWithBudget(sim.url)))
    }), { timeout: 30_000 })

  it.scopedLive("after a 429 sends nothing until Retry-After has passed, then resumes", () =>
    Effect.gen(function*() {
      const sim = yield* simulator
      yield* Effect.gen(function*() {
        const client = yield* PodClient
        yield* Effect.promise(() => simAdmin(sim.url, "POST", "/faults", { kind: "rateLimit429", count: 1, retryAfterSeconds: 3 }))
        const refused = yield* client.listCatalog({ paging: { limit: 1 } }).pipe(Effect.either)
        expect(Either.isLeft(refused) && refused.left._tag).toBe("PodRateLimitedError")
        const refusedAt = yield* Clock.currentTimeMillis
        const before = yield* Effect.promise(() => simStats(sim.url))
        const waiting = yield* Effect.fork(Effect.forEach(
          lanes,
          (lane) => client.listCatalog({ paging: { limit: 1 } }, { lane }).pipe(Effect.zipRight(Clock.currentTimeMillis)),
          { concurrency: "unbounded" }
        ))
        yield* Effect.sleep(Duration.millis(1500))
        // Nobody reached the service during the pause.
        expect((yield* Effect.promise(() => simStats(sim.url))).total).toBe(before.total)
        const answeredAt = yield* waiting.await.pipe(Effect.flatten)
        for (const at of answeredAt) expect(at - refusedAt).toBeGreaterThanOrEqual(3000)
        expect(yield* Effect.promise(() => simStats(sim.url))).toMatchObject({ total: before.total + 3, rejected429: 1 })
        const snapshot = yield* (yield* RateBudget).snapshot
        expect(snapshot).toMatchObject({ rateLimited: 1, pauses: 1, sent: 4 })
      }).pipe(Effect.provide(clientWithBudget(sim.url)))
    }), { timeout: 30_000 })
})
