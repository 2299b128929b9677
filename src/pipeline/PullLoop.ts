import { Effect, Layer, Queue } from "effect"
import { logFailure, storeDependency, unlessDown } from "../observability/DependencyHealth.js"
import { makeJobLeases } from "../schedule/JobLeases.js"
import { makeScheduler } from "../schedule/Scheduler.js"
import { Replica } from "../schedule/ReplicaIdentity.js"
import { PipelineSignals, type PullHint } from "./PipelineSignals.js"
import { pullNamedOrders, pullStore } from "./PullStage.js"
import { logFailures, PipelineSettings, StageWakeups } from "./StageLoop.js"

/** More named orders than this in one go: pulling the store is cheaper than reading each. */
const MAX_NAMED_ORDERS = 10

/**
 * Pulls the stores: on the pull schedule (one replica per tick), once at start, and when a
 * store's webhook says something changed (the orders it names are read alone when they are
 * few). Pulls of one store never overlap, across replicas either (JobLeases).
 */
export const PullLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const signals = yield* PipelineSignals
  const settings = yield* PipelineSettings
  const { match } = yield* StageWakeups
  const owner = yield* Replica
  const configured = new Set(settings.storeKeys)
  const leases = yield* makeJobLeases(owner)
  // The pulls run from other fibers (the scheduler's, the hint loop's): with this layer's services.
  const context = yield* Effect.context<Effect.Effect.Context<ReturnType<typeof pullStore>>>()
  // While the store is unreachable its probe asks it; its return asks for a pull.
  const wholePull = (storeKey: string) => unlessDown(storeDependency(storeKey), `pull of ${storeKey}`, Effect.asVoid(pullStore(storeKey)))
  // One pull of a store at a time anywhere: a pull asked for while one runs (here or on another
  // replica) is folded into one follow-up pull by whoever holds the store's pull.
  const pull = (storeKey: string) =>
    logFailures(`pull of ${storeKey}`, leases.exclusive(`pull:${storeKey}`, wholePull(storeKey))).pipe(
      Effect.zipRight(match.kick),
      Effect.provide(context)
    )
  const pullAll = Effect.forEach(settings.storeKeys, pull, { concurrency: 2, discard: true })
  // A webhook that names its order: read that order alone (the pull's schedule stays the backstop).
  const pullNamed = (storeKey: string, ids: ReadonlyArray<string>) =>
    logFailures(
      `reading ${storeKey}'s named orders`,
      leases.exclusive(
        `pull:${storeKey}`,
        pullNamedOrders(storeKey, ids).pipe(
          Effect.catchAllCause((cause) =>
            Effect.as(Effect.logWarning("reading the orders a webhook named failed; pulling the store", cause), false)
          ),
          Effect.flatMap((done) => (done ? Effect.void : wholePull(storeKey)))
        ),
        { followUp: wholePull(storeKey) }
      )
    ).pipe(Effect.zipRight(match.kick), Effect.provide(context))
  yield* Effect.gen(function*() {
    const first = yield* Queue.take(signals.pulls)
    // Several hints for a store arriving together need one pull, or one read of the orders they name.
    const hints = [first, ...(yield* Queue.takeAll(signals.pulls))]
    const all = hints.some((h) => h.storeKey === "*")
    const byStore = new Map<string, Set<string> | "pull">()
    for (const hint of all ? settings.storeKeys.map((storeKey): PullHint => ({ storeKey })) : hints) {
      if (!configured.has(hint.storeKey)) continue
      const named = byStore.get(hint.storeKey) ?? new Set<string>()
      if (named === "pull" || hint.storeOrderId === undefined) byStore.set(hint.storeKey, "pull")
      else byStore.set(hint.storeKey, named.add(hint.storeOrderId).size > MAX_NAMED_ORDERS ? "pull" : named)
    }
    yield* Effect.forEach(byStore, ([storeKey, named]) => (named === "pull" ? pull(storeKey) : pullNamed(storeKey, [...named])), {
      concurrency: 2,
      discard: true
    })
  }).pipe(Effect.forever, Effect.forkScoped)
  const scheduler = yield* makeScheduler({ owner, timezone: settings.timezone, logFailure })
  yield* scheduler.schedule("pull", settings.schedules.pull, pullAll)
  yield* Effect.forkScoped(pullAll)
}))
