import { Effect, Layer, Option, Queue } from "effect"
import { DRAFT_STATES, FULFILL_STATES } from "../domain/OrderState.js"
import { type Dependency, DependencyHealth, storeDependency, watchDatabase } from "../observability/DependencyHealth.js"
import { PodClient } from "../pod/PodClient.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { ABSENT_ORDER_ID, StoreConnectors } from "../stores/StoreConnector.js"
import { PipelineSignals } from "./PipelineSignals.js"
import { PipelineSettings, StageWakeups } from "./StageLoop.js"

/** How often a dependency that is down is asked again (ARCHITECTURE.md: at most 5 s). */
export const PROBE_INTERVAL = "3 seconds"

/** A reference id no order has: looking it up is the POD service's cheapest answer (one list call). */
const PROBE_REFERENCE = "podsync-probe"

/**
 * While `dependency` is down, asks it with one cheap call every PROBE_INTERVAL (inside its
 * budget, like every call); the call's answer reaches the daemon's health through the request
 * gate or the store's HTTP client, and the moment it answers `onBack` runs: the work that waited
 * resumes at once, at the budget's speed, whatever backoff it was given during the outage.
 */
const probeWhileDown = (
  health: DependencyHealth,
  dependency: Dependency,
  probe: Effect.Effect<unknown, unknown>,
  onBack: Effect.Effect<void>
) =>
  Effect.gen(function*() {
    yield* health.awaitDown(dependency)
    yield* Effect.raceFirst(
      health.awaitUp(dependency),
      Effect.forever(
        Effect.sleep(PROBE_INTERVAL).pipe(Effect.zipRight(health.refreshWaiting(dependency)), Effect.zipRight(Effect.ignore(probe)))
      )
    )
    yield* onBack
  }).pipe(Effect.forever, Effect.annotateLogs({ dependency }), Effect.forkScoped)

/**
 * The probes of the POD service and of each store, and what their return wakes: the draft stage
 * (which claims nothing while the POD service is down) and every order that backed off for it;
 * a store's waiting pushes and a pull of it. Also what counts the orders waiting for each, for
 * the health's log lines, /status and /metrics.
 */
export const DependencyProbesLive = Layer.scopedDiscard(Effect.gen(function*() {
  const found = yield* Effect.serviceOption(DependencyHealth)
  if (Option.isNone(found)) return
  const health = found.value
  const repo = yield* OrdersRepo
  const client = yield* PodClient
  const connectors = yield* StoreConnectors
  const signals = yield* PipelineSignals
  const settings = yield* PipelineSettings
  const { draft, fulfill, lookUp } = yield* StageWakeups

  const wake = (what: string, woken: Effect.Effect<number, unknown>) =>
    watchDatabase(what, woken).pipe(
      Effect.tap((n) => (n > 0 ? Effect.logInfo(`${n} orders that backed off are due again at once`) : Effect.void)),
      Effect.catchAll(() => Effect.void) // seen by watchDatabase; their own backoff still brings them back
    )

  yield* health.countWaiting("pod", repo.countIn(DRAFT_STATES))
  yield* probeWhileDown(
    health,
    "pod",
    client.findDraftsByReferenceId(PROBE_REFERENCE, { lane: "urgent" }),
    Effect.zipRight(
      wake("waking orders after the POD service's outage", repo.wakeWaiting(DRAFT_STATES)),
      Effect.zipRight(lookUp.kick, draft.kick)
    )
  )

  for (const storeKey of settings.storeKeys) {
    const connector = connectors.get(storeKey)
    if (connector === undefined) continue
    const dependency = storeDependency(storeKey)
    yield* health.countWaiting(dependency, repo.countIn(FULFILL_STATES, storeKey))
    yield* probeWhileDown(
      health,
      dependency,
      // An order id no store has (of a shape every platform sends on): any answer, "not found" included, says the store is there.
      connector.getOrder(ABSENT_ORDER_ID),
      Effect.all([
        wake(`waking ${storeKey}'s orders after its outage`, repo.wakeWaiting(FULFILL_STATES, storeKey)),
        fulfill.kick,
        Queue.offer(signals.pulls, { storeKey })
      ], { discard: true })
    )
  }
}))
