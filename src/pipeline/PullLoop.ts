import { Clock, Duration, Effect, Layer, Queue } from "effect"
import { logFailure, storeDependency, unlessDown } from "../observability/DependencyHealth.js"
import { makeJobLeases } from "../schedule/JobLeases.js"
import { makeScheduler } from "../schedule/Scheduler.js"
import { Replica } from "../schedule/ReplicaIdentity.js"
import { PipelineSignals, type PullHint } from "./PipelineSignals.js"
import { pullNamedOrders, pullStore } from "./PullStage.js"
import { logFailures, PipelineSettings, StageWakeups } from "./StageLoop.js"

/** More named orders than this in one go: pulling the store is cheaper than reading each. */
export const MAX_NAMED_ORDERS = 10

/**
 * Webhook-asked pulls and reads start at most this often: the hints that arrive meanwhile are
 * gathered into the next one. A lone webhook is acted on at once; in a burst, one pull a second
 * covers every order it names. Without the spacing a steady flow of webhooks kept a pull running
 * back to back, each started by the hints that came during the last: the daemon was busy with
 * pulls that found nothing new, the store's API budget was spent on them, and the receiver's
 * answers waited behind them (issue #22: p99 105 ms at 500 deliveries/s on PGlite, 15 ms without).
 */
export const HINT_PULL_SPACING = Duration.seconds(1)

/**
 * Pulls the stores: on the pull schedule (one replica per tick), once at start, and when a
 * store's webhook says something changed (the orders it names are read alone when they are
 * few; at most one such pull or read a HINT_PULL_SPACING). Pulls of one store never overlap,
 * across replicas either (JobLeases).
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
    const startedAt = yield* Clock.currentTimeMillis
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
    const spent = (yield* Clock.currentTimeMillis) - startedAt
    yield* Effect.sleep(Duration.millis(Math.max(0, Duration.toMillis(HINT_PULL_SPACING) - spent)))
  }).pipe(Effect.forever, Effect.forkScoped)
  const scheduler = yield* makeScheduler({ owner, timezone: settings.timezone, logFailure })
  yield* scheduler.schedule("pull", settings.schedules.pull, pullAll)
  yield* Effect.forkScoped(pullAll)
}))
