import { Clock, type Duration, Effect, Layer, Queue } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import type { OrderState } from "../domain/OrderState.js"
import { Db } from "../db/Db.js"
import { OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { WebhookInboxRepo } from "../repos/WebhookInboxRepo.js"
import { replicaIdentity } from "../schedule/ReplicaIdentity.js"
import { makeScheduler } from "../schedule/Scheduler.js"
import { type Drafted, draftOrder, settleDrafted } from "./DraftStage.js"
import { DRAFT_STATES } from "../domain/OrderState.js"
import { type CoverageBook, coverageForBatch } from "./EconomyCoverage.js"
import { fulfillMany } from "./FulfillStage.js"
import { FULFILL_STATES } from "../domain/OrderState.js"
import { LEASE_SECONDS } from "./Lease.js"
import { matchMany } from "./MatchStage.js"
import { MATCH_STATES } from "../domain/OrderState.js"
import { PipelineTriggers } from "./PipelineTriggers.js"
import { refreshCatalog } from "./CatalogRefresh.js"
import { PodWebhookSubscriptions } from "./PodWebhookSubscriptions.js"
import { pullNamedOrders, pullStore } from "./PullStage.js"
import { type FollowUpHint, followUpMany, reconcileAll } from "./ReconcileStage.js"

export interface PipelineOptions {
  readonly owner?: string
  /** How long an idle worker waits before looking for due work again (a trigger wakes it sooner). */
  readonly idle?: Duration.DurationInput
  /** Orders worked on at once by the draft stage (the rate budget paces what reaches the service). */
  readonly draftConcurrency?: number
}

/** A store said something changed: an order it named, or anything ("*": every store). */
type PullHint = { readonly storeKey: string; readonly storeOrderId?: string | undefined }

/** How long POD webhook hints are gathered before they are followed up together. */
const FOLLOW_UP_GATHER = "200 millis"

/**
 * A hint about an order whose draft is still being made is followed up again after this, at most
 * MAX_DEFERRALS times (the draft stage records a batch's drafts together, after the service may
 * already have sent an address event about one of them).
 */
const FOLLOW_UP_DEFERRAL = "3 seconds"
const MAX_DEFERRALS = 20

/** Orders one draft claim takes; they are all sent at once, the rate budget pacing what reaches the service. */
const DRAFT_BATCH = 25

/** More named orders than this in one go: pulling the store is cheaper than reading each. */
const MAX_NAMED_ORDERS = 10

/**
 * The queues between the edges (webhooks, file watchers, CLI) and the
 * workers. Kept apart from the workers so the edges can be built before
 * them (the mapping store, for one, both plans orders and signals changes).
 */
export class PipelineSignals extends Effect.Service<PipelineSignals>()("podsync/PipelineSignals", {
  effect: Effect.gen(function*() {
    return {
      pulls: yield* Queue.unbounded<PullHint>(),
      followUps: yield* Queue.unbounded<FollowUpHint>(),
      replans: yield* Queue.unbounded<string | undefined>(),
      reconciles: yield* Queue.sliding<void>(1)
    }
  })
}) {}

export const PipelineTriggersLive = Layer.effect(
  PipelineTriggers,
  Effect.map(PipelineSignals, (signals) =>
    PipelineTriggers.of({
      storeChanged: (storeKey, storeOrderId) => Queue.offer(signals.pulls, { storeKey, storeOrderId }).pipe(Effect.asVoid),
      podOrderChanged: (hint) => Queue.offer(signals.followUps, hint).pipe(Effect.asVoid),
      replanHeld: (storeKey) => Queue.offer(signals.replans, storeKey).pipe(Effect.asVoid),
      reconcileNow: Queue.offer(signals.reconciles, undefined).pipe(Effect.asVoid)
    }))
).pipe(Layer.provideMerge(PipelineSignals.Default))

/** Wakes a waiting loop; several wake-ups before it runs count as one. */
const makeKick = Effect.map(Queue.sliding<void>(1), (queue) => ({
  kick: Queue.offer(queue, undefined).pipe(Effect.asVoid),
  wait: (idle: Duration.DurationInput) => Effect.raceFirst(Queue.take(queue), Effect.sleep(idle))
}))

/**
 * The daemon's pipeline: one loop per stage claiming due work (leases, so
 * replicas share it), cron schedules for pull and reconcile (one replica per
 * tick), and the triggers webhooks and file watchers call. Everything stops
 * with the scope; claimed orders are released or their leases expire.
 */
export const PipelineWorkersLive = (config: AppConfig, options: PipelineOptions = {}) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const signals = yield* PipelineSignals
    const owner = options.owner ?? (yield* replicaIdentity)
    const idle = options.idle ?? "2 seconds"
    const repo = yield* OrdersRepo
    // The embedded database is held by this process alone (a data-dir lock): any claim in it is a
    // killed predecessor's, so there is no need to wait for its leases to expire.
    if ((yield* Db).dialect === "pglite") {
      const released = yield* repo.releaseAllLeases.pipe(Effect.orElseSucceed(() => 0))
      if (released > 0) yield* Effect.logInfo("released the claims of a previous run").pipe(Effect.annotateLogs({ orders: released }))
    }
    const [match, draft, fulfill] = yield* Effect.all([makeKick, makeKick, makeKick])
    const pullLocks = new Map(yield* Effect.forEach(config.stores, (s) => Effect.map(Effect.makeSemaphore(1), (lock) => [s.key, lock] as const)))

    const logFailures = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
      effect.pipe(Effect.catchAllCause((cause) => Effect.logError(`${name} failed; it runs again at its next turn`, cause)))

    const stageLoop = <R>(
      name: string,
      states: ReadonlyArray<OrderState>,
      batch: number,
      /** The work on a claimed batch (`eachOrder` or `wholeBatch`). */
      work: (claimed: ReadonlyArray<StoredOrder>) => Effect.Effect<unknown, never, R>,
      self: { readonly wait: (idle: Duration.DurationInput) => Effect.Effect<unknown> },
      next?: { readonly kick: Effect.Effect<void> },
      countsAttempt = false
    ) =>
      Effect.gen(function*() {
        const claimed = yield* repo.claim(states, batch, owner, LEASE_SECONDS, { countsAttempt }).pipe(Effect.orElseSucceed(() => []))
        if (claimed.length > 0) yield* work(claimed)
        if (claimed.length > 0 && next !== undefined) yield* next.kick
        if (claimed.length < batch) yield* self.wait(idle)
      }).pipe(Effect.forever, Effect.annotateLogs({ stage: name }), Effect.forkScoped)

    const giveBack = (claimed: ReadonlyArray<StoredOrder>, inMs: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        repo.releaseMany(claimed.map((o) => ({ id: o.id, nextAttemptAt: new Date(now + inMs) })), owner)).pipe(Effect.ignore)

    /** Work on each claimed order, `concurrency` at a time: a failing order is logged and the others go on. */
    const eachOrder = <R>(name: string, concurrency: number, work: (order: StoredOrder) => Effect.Effect<unknown, unknown, R>) =>
      (claimed: ReadonlyArray<StoredOrder>) =>
        Effect.forEach(claimed, (order) =>
          logFailures(`${name} of ${order.referenceId}`, work(order)).pipe(
            // Interrupted (shutdown): give the order back now instead of waiting for its lease to expire.
            Effect.onInterrupt(() => repo.release(order.id, owner, new Date(0)).pipe(Effect.ignore))
          ), { concurrency, discard: true })

    /**
     * Work on the whole claimed batch at once (a few statements and requests for all of it). If it
     * fails (the database busy), the batch is given back, due again in a few seconds: every stage's
     * work is safe to repeat.
     */
    const wholeBatch = <R>(name: string, work: (claimed: ReadonlyArray<StoredOrder>) => Effect.Effect<unknown, unknown, R>) =>
      (claimed: ReadonlyArray<StoredOrder>) =>
        work(claimed).pipe(
          Effect.catchAllCause((cause) =>
            Effect.logError(`${name} of ${claimed.length} orders failed; they are due again in a few seconds`, cause).pipe(
              Effect.zipRight(giveBack(claimed, 5_000))
            )
          ),
          Effect.onInterrupt(() => giveBack(claimed, 0))
        )

    yield* stageLoop("match", MATCH_STATES, 50, wholeBatch("match", (claimed) => matchMany(claimed, owner)), match, draft)
    // A draft claim is the write-ahead record of the attempt it may make (see OrdersRepo.claim). The
    // drafts are made one by one (the rate budget paces them); the batch's moves to drafted are written,
    // and its store orders marked, together. The Economy ZIPs of the batch are checked first, in one call.
    const drafted: Array<Drafted> = []
    const drafting = (coverage: CoverageBook) =>
      eachOrder("draft", options.draftConcurrency ?? DRAFT_BATCH, (o) => draftOrder(o, owner, (d) => Effect.sync(() => drafted.push(d)), coverage))
    yield* stageLoop("draft", DRAFT_STATES, DRAFT_BATCH, (claimed) =>
      Effect.zipRight(Effect.flatMap(coverageForBatch(claimed), (coverage) => drafting(coverage)(claimed)), Effect.suspend(() => {
        const batch = drafted.splice(0)
        return wholeBatch("recording drafts", () => settleDrafted(batch, owner))(batch.map((d) => d.stored))
      })), draft, undefined, true)
    yield* stageLoop("fulfill", FULFILL_STATES, 25, wholeBatch("fulfill", (claimed) => fulfillMany(claimed, owner)), fulfill)

    // The triggers are called from other fibers (HTTP handlers): they run with this layer's services.
    const context = yield* Effect.context<Effect.Effect.Context<ReturnType<typeof pullStore>>>()
    const pull = (storeKey: string) =>
      logFailures(`pull of ${storeKey}`, pullLocks.get(storeKey)!.withPermits(1)(pullStore(storeKey))).pipe(
        Effect.zipRight(match.kick),
        Effect.provide(context)
      )
    const pullAll = Effect.forEach(config.stores, (s) => pull(s.key), { concurrency: 2, discard: true })
    // Reconciliation spends the rate budget: it runs on its schedule (and on demand), never in a tight loop.
    const reconcileNow = logFailures("reconcile", reconcileAll(owner)).pipe(
      Effect.zipRight(fulfill.kick),
      Effect.provide(yield* Effect.context<Effect.Effect.Context<ReturnType<typeof reconcileAll>>>())
    )

    yield* Effect.gen(function*() {
      const first = yield* Queue.take(signals.followUps)
      // Deliveries come in bursts (one per event of each order): a moment's wait lets one list call answer many.
      yield* Effect.sleep(FOLLOW_UP_GATHER)
      const hints = [first, ...(yield* Queue.takeAll(signals.followUps))]
      const done = yield* followUpMany(hints, owner).pipe(
        Effect.map((result) => result.deferred),
        Effect.catchAllCause((cause) => Effect.as(Effect.logError("webhook follow-up failed; it runs again at its next turn", cause), []))
      )
      const again = done.filter((h) => (h.deferrals ?? 0) < MAX_DEFERRALS).map((h) => ({ ...h, deferrals: (h.deferrals ?? 0) + 1 }))
      if (done.length > again.length) {
        yield* Effect.logWarning("a POD webhook about an order whose draft is still being made was put off too often; reconciliation has the last word")
      }
      if (again.length > 0) yield* Effect.sleep(FOLLOW_UP_DEFERRAL).pipe(Effect.zipRight(Queue.offerAll(signals.followUps, again)), Effect.forkScoped)
      yield* fulfill.kick
    }).pipe(Effect.forever, Effect.forkScoped)
    // A webhook that names its order: read that order alone (the pull's schedule stays the backstop).
    const pullNamed = (storeKey: string, ids: ReadonlyArray<string>) =>
      pullLocks.get(storeKey)!.withPermits(1)(pullNamedOrders(storeKey, ids)).pipe(
        Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("reading the orders a webhook named failed; pulling the store", cause), false)),
        Effect.provide(context),
        Effect.flatMap((done) => (done ? match.kick : pull(storeKey)))
      )
    yield* Effect.gen(function*() {
      const first = yield* Queue.take(signals.pulls)
      // Several hints for a store arriving together need one pull, or one read of the orders they name.
      const hints = [first, ...(yield* Queue.takeAll(signals.pulls))]
      const all = hints.some((h) => h.storeKey === "*")
      const byStore = new Map<string, Set<string> | "pull">()
      for (const hint of all ? [...pullLocks.keys()].map((storeKey): PullHint => ({ storeKey })) : hints) {
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
    yield* Effect.gen(function*() {
      const storeKey = yield* Queue.take(signals.replans)
      yield* repo.wake(["held", "not_pod"], storeKey).pipe(Effect.ignore)
      yield* match.kick
    }).pipe(Effect.forever, Effect.forkScoped)
    yield* Queue.take(signals.reconciles).pipe(Effect.zipRight(reconcileNow), Effect.forever, Effect.forkScoped)

    const scheduler = yield* makeScheduler({ owner, timezone: config.reports.timezone })
    yield* scheduler.schedule("pull", config.schedules.pull, pullAll)
    yield* scheduler.schedule("reconcile", config.schedules.reconcile, reconcileNow)
    const subscriptions = yield* PodWebhookSubscriptions
    const inbox = yield* WebhookInboxRepo
    const catalogAndSubscriptions = Effect.all([
      // Subscriptions first: an event the service sends before they are in place is lost (the reconcile catches up).
      logFailures("webhook subscriptions", subscriptions.ensure),
      logFailures("catalog refresh", refreshCatalog),
      // Housekeeping: the webhook inbox only needs keys their senders may still retry.
      logFailures("webhook inbox pruning", inbox.pruneExpired)
    ], { discard: true }).pipe(Effect.provide(yield* Effect.context<Effect.Effect.Context<typeof refreshCatalog>>()))
    yield* scheduler.schedule("catalog", config.schedules.catalog, catalogAndSubscriptions)
    yield* Effect.forkScoped(catalogAndSubscriptions)
    yield* Effect.forkScoped(pullAll)
    yield* Effect.logInfo("pipeline started").pipe(Effect.annotateLogs({ owner }))
  }))
