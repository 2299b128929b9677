// One replica of the budget benchmark (and of the multi-process budget test): a process that
// drives the POD simulator through the real POD client with saturated demand from every lane
// and several stores, behind one of the limiters under comparison, and writes what it sent
// (when, answered when, with which status) to a JSON file.
//
//   node dist/bench/budget-worker.js '<BudgetWorkerConfig as JSON>'
//
// Spawned with an IPC channel, it says { type: "ready" } once connected and waits for
// { type: "start", startAt } (epoch ms) so that every replica starts together however long each
// took to boot; without one it starts at once.
import * as fs from "node:fs"
import { NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { Clock, Duration, Effect, Fiber, Layer, Option, Redacted } from "effect"
import { RateBudgetInMemory } from "../src/budget/RateBudget.js"
import { RateBudgetSql } from "../src/app/PodLive.js"
import { newReplicaId } from "../src/schedule/ReplicaIdentity.js"
import { RateBudgetGateLive } from "../src/app/RateBudgetGate.js"
import type { RateLimitSettings } from "../src/budget/SlotLog.js"
import { DbLive } from "../src/db/Db.js"
import { DEFAULT_AUTH_HEADERS, PodClient } from "../src/pod/PodClient.js"
import { PodRequestGate, type PodLane } from "../src/pod/PodRequestGate.js"
import { EffectRateLimiterGate, NaiveTokenBucketGate, type TracedSend, tracingGate } from "./budget-gates.js"

export type LimiterKind = "budget" | "naive-token-bucket" | "effect-token-bucket" | "effect-fixed-window"

export interface BudgetWorkerConfig {
  readonly simUrl: string
  readonly limiter: LimiterKind
  /** budget only: share the slot log through this PostgreSQL schema; absent → in-process ledger. */
  readonly database?: { readonly url: string; readonly schema: string } | undefined
  readonly credential: string
  readonly rateLimit: RateLimitSettings
  readonly seconds: number
  /** Concurrent callers in this process, spread over lanes and stores. */
  readonly callers: number
  readonly resultFile: string
}

export interface BudgetWorkerResult {
  readonly replica: string
  readonly sends: ReadonlyArray<TracedSend>
  readonly failures: Readonly<Record<string, number>>
}

const lanes: ReadonlyArray<PodLane> = ["urgent", "normal", "background"]

const limiterGate = (config: BudgetWorkerConfig, replica: string): Layer.Layer<PodRequestGate> => {
  const { requests, windowSeconds } = config.rateLimit
  switch (config.limiter) {
    case "naive-token-bucket":
      return NaiveTokenBucketGate(requests, requests / windowSeconds)
    case "effect-token-bucket":
      return EffectRateLimiterGate(requests, Duration.seconds(windowSeconds), "token-bucket")
    case "effect-fixed-window":
      return EffectRateLimiterGate(requests, Duration.seconds(windowSeconds), "fixed-window")
    case "budget": {
      const budgetConfig = { credential: config.credential, rateLimit: config.rateLimit }
      const budget = config.database === undefined
        ? RateBudgetInMemory({ ...budgetConfig, startFull: false })
        : RateBudgetSql({ ...budgetConfig, replica }).pipe(
          Layer.provide(DbLive({
            url: Option.some(Redacted.make(config.database.url)),
            dataDir: "unused",
            schema: config.database.schema
          })),
          Layer.orDie
        )
      return RateBudgetGateLive.pipe(Layer.provide(budget))
    }
  }
}

/** Tells the parent this replica is ready and waits for the common start time. */
const startSignal: Effect.Effect<number> = Effect.async<number>((resume) => {
  const send = process.send?.bind(process)
  if (send === undefined) {
    resume(Clock.currentTimeMillis)
    return
  }
  const onMessage = (message: unknown) => {
    if (typeof message === "object" && message !== null && (message as { type?: unknown }).type === "start") {
      process.off("message", onMessage)
      process.disconnect()
      resume(Effect.succeed(Number((message as { startAt?: unknown }).startAt)))
    }
  }
  process.on("message", onMessage)
  send({ type: "ready" })
})

const drive = (config: BudgetWorkerConfig) =>
  Effect.gen(function*() {
    const replica = newReplicaId()
    const sends: Array<TracedSend> = []
    const failures: Record<string, number> = {}
    const gate = Layer.effect(PodRequestGate, Effect.map(PodRequestGate, (inner) => tracingGate(inner, sends))).pipe(
      Layer.provide(limiterGate(config, replica))
    )
    const client = PodClient.Default({
      baseUrl: config.simUrl,
      clientKey: Redacted.make("sim-client-key"),
      clientSecret: Redacted.make("sim-client-secret"),
      authHeaders: DEFAULT_AUTH_HEADERS,
      timeoutMs: 10_000
    }).pipe(Layer.provide(NodeHttpClient.layer), Layer.provide(gate))

    yield* Effect.gen(function*() {
      const pod = yield* PodClient
      const startAt = yield* startSignal
      const now = yield* Clock.currentTimeMillis
      yield* Effect.sleep(Duration.millis(Math.max(0, startAt - now)))
      const deadline = startAt + config.seconds * 1000
      const caller = (i: number) =>
        Effect.gen(function*() {
          while ((yield* Clock.currentTimeMillis) < deadline) {
            const result = yield* pod.listCatalog({ paging: { limit: 1 } }, {
              lane: lanes[i % lanes.length]!,
              storeKey: `store-${i % 5}`
            }).pipe(Effect.either)
            if (result._tag === "Left") failures[result.left._tag] = (failures[result.left._tag] ?? 0) + 1
          }
        })
      const callers = yield* Effect.forEach(Array.from({ length: config.callers }, (_, i) => i), (i) => Effect.fork(caller(i)))
      // Callers still waiting for a slot at the deadline give up shortly after it.
      yield* Effect.sleep(Duration.millis(deadline - (yield* Clock.currentTimeMillis) + 1500))
      yield* Fiber.interruptAll(callers)
    }).pipe(Effect.provide(client))

    const result: BudgetWorkerResult = { replica, sends, failures }
    fs.writeFileSync(config.resultFile, JSON.stringify(result))
  })

const configArg = process.argv[2]
if (configArg !== undefined) {
  const config = JSON.parse(configArg) as BudgetWorkerConfig
  NodeRuntime.runMain(drive(config).pipe(Effect.scoped), { disablePrettyLogger: true })
}
