import { Effect, Layer, Queue } from "effect"
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
 * few). Pulls of one store never overlap within this process.
 */
export const PullLoopLive = Layer.scopedDiscard(Effect.gen(function*() {
  const signals = yield* PipelineSignals
  const settings = yield* PipelineSettings
  const { match } = yield* StageWakeups
  const owner = yield* Replica
  const pullLocks = new Map(
    yield* Effect.forEach(settings.storeKeys, (key) => Effect.map(Effect.makeSemaphore(1), (lock) => [key, lock] as const))
  )
  // The pulls run from other fibers (the scheduler's, the hint loop's): with this layer's services.
  const context = yield* Effect.context<Effect.Effect.Context<ReturnType<typeof pullStore>>>()
  const locked = <A, E, R>(storeKey: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const lock = pullLocks.get(storeKey)
    // Every configured store has a lock, and hints for other stores are dropped below.
    return lock === undefined
      ? Effect.dieMessage(`no pull lock for store ${storeKey}: only configured stores are pulled`)
      : lock.withPermits(1)(effect)
  }
  const pull = (storeKey: string) =>
    logFailures(`pull of ${storeKey}`, locked(storeKey, pullStore(storeKey))).pipe(
      Effect.zipRight(match.kick),
      Effect.provide(context)
    )
  const pullAll = Effect.forEach(settings.storeKeys, pull, { concurrency: 2, discard: true })
  // A webhook that names its order: read that order alone (the pull's schedule stays the backstop).
  const pullNamed = (storeKey: string, ids: ReadonlyArray<string>) =>
    locked(storeKey, pullNamedOrders(storeKey, ids)).pipe(
      Effect.catchAllCause((cause) =>
        Effect.as(Effect.logWarning("reading the orders a webhook named failed; pulling the store", cause), false)
      ),
      Effect.provide(context),
      Effect.flatMap((done) => (done ? match.kick : pull(storeKey)))
    )
  yield* Effect.gen(function*() {
    const first = yield* Queue.take(signals.pulls)
    // Several hints for a store arriving together need one pull, or one read of the orders they name.
    const hints = [first, ...(yield* Queue.takeAll(signals.pulls))]
    const all = hints.some((h) => h.storeKey === "*")
    const byStore = new Map<string, Set<string> | "pull">()
    for (const hint of all ? settings.storeKeys.map((storeKey): PullHint => ({ storeKey })) : hints) {
      if (!pullLocks.has(hint.storeKey)) continue
      const named = byStore.get(hint.storeKey) ?? new Set<string>()
      if (named === "pull" || hint.storeOrderId === undefined) byStore.set(hint.storeKey, "pull")
      else byStore.set(hint.storeKey, named.add(hint.storeOrderId).size > MAX_NAMED_ORDERS ? "pull" : named)
    }
    yield* Effect.forEach(byStore, ([storeKey, named]) => (named === "pull" ? pull(storeKey) : pullNamed(storeKey, [...named])), {
      concurrency: 2,
      discard: true
    })
  }).pipe(Effect.forever, Effect.forkScoped)
  const scheduler = yield* makeScheduler({ owner, timezone: settings.timezone })
  yield* scheduler.schedule("pull", settings.schedules.pull, pullAll)
  yield* Effect.forkScoped(pullAll)
}))
