/**
 * The daemon's conditions a person must hear about, raised once and resolved once across
 * replicas: a refused credential (POD or store 401/403), a 429 pause of the POD service, the POD
 * service or a store unreachable for longer than its threshold, a stage with waiting orders and
 * no progress, the database failing. The hooks that see requests (app/DependencyReports.ts) call
 * `raise`/`resolve` on every answer: what this replica already knows costs nothing, a change is
 * written (condition and alert in one statement, repos/AlertsRepo.ts) by a fiber of its own, so
 * no request waits for it. `ConditionWatchLive` looks at the rest every few seconds.
 */
import { Clock, type Duration, Effect, Layer, Option, Queue, Ref, Schedule, Stream, SubscriptionRef } from "effect"
import { isDryRun } from "../config/DryRun.js"
import { DependencyHealth, dependencyLabel, type Trouble } from "../observability/DependencyHealth.js"
import { PIPELINE_QUEUES } from "../observability/PipelineFigures.js"
import { logFailure } from "../observability/DependencyHealth.js"
import { AlertsRepo, type OutboxAlert } from "../repos/AlertsRepo.js"
import { StatusRepo } from "../repos/StatusRepo.js"
import { AlertDispatch } from "./AlertDispatch.js"

/** A condition as it is raised: its key (one alert per raise), kind, store, and the words of its alert. */
export interface Condition {
  readonly key: string
  readonly kind: string
  readonly storeKey?: string
  readonly title: string
  readonly detail?: string
  readonly action?: string
  readonly resolvedDetail?: string
}

type Change = { readonly _tag: "Raise"; readonly condition: Condition } | {
  readonly _tag: "Resolve"
  readonly key: string
  readonly storeKey?: string | undefined
}

/** The conditions of refused credentials and of the POD service's 429 pause. */
export const credentialsRefused = (who: "pod" | { readonly storeKey: string }, status: number, operation: string): Condition =>
  who === "pod"
    ? {
      key: "credentials:pod",
      kind: "credentials.refused",
      title: `the POD service refused podsync's credentials (HTTP ${status})`,
      detail: `${operation} was answered ${status}: no draft can be made or followed until this is fixed`,
      action: "check pod.clientKey and pod.clientSecret (and the key's permissions at the POD service), then restart podsync"
    }
    : {
      key: `credentials:store:${who.storeKey}`,
      kind: "credentials.refused",
      storeKey: who.storeKey,
      title: `store ${who.storeKey} refused podsync's credentials (HTTP ${status})`,
      detail: `${operation} was answered ${status}: no order of this store is pulled or fulfilled until this is fixed`,
      action: "renew the store's access token or API key in the configuration (or the app's permissions in the store)"
    }

export const rateLimited = (retryAfterSeconds: number | undefined): Condition => ({
  key: "rate_limited:pod",
  kind: "pod.rate_limited",
  title: "the POD service answered 429: every POD request pauses",
  detail: `podsync waits ${
    retryAfterSeconds === undefined ? "for the service's block" : `${Math.round(retryAfterSeconds)} s`
  } before sending again; another client using the same API key can cause this`,
  action: "nothing if it passes; if it repeats, check for another program using the same POD API key"
})

export class AlertConditions extends Effect.Service<AlertConditions>()("podsync/AlertConditions", {
  scoped: Effect.gen(function*() {
    const repo = yield* AlertsRepo
    // What this replica knows: key → raised. Read from the database at start and at each watch.
    const known = new Map<string, boolean>()
    const changes = yield* Queue.unbounded<Change>()
    // Changes asked for and not yet written, so a test (or a shutdown) can wait for them.
    const inFlight = yield* SubscriptionRef.make(0)
    const offer = (change: Change) =>
      Effect.zipRight(SubscriptionRef.update(inFlight, (n) => n + 1), Queue.offer(changes, change)).pipe(Effect.asVoid)

    const refresh = Effect.gen(function*() {
      const active = yield* repo.activeConditions
      const keys = new Set(active.map((c) => c.key))
      for (const key of known.keys()) if (!keys.has(key)) known.set(key, false)
      for (const key of keys) known.set(key, true)
    })
    yield* refresh.pipe(Effect.catchAllCause((cause) => logFailure("reading the raised alert conditions failed", cause)))

    const apply = (change: Change) =>
      Effect.gen(function*() {
        if (change._tag === "Raise") {
          const { condition } = change
          if (known.get(condition.key) === true) return
          const data = {
            title: condition.title,
            ...(condition.detail === undefined ? {} : { detail: condition.detail }),
            ...(condition.action === undefined ? {} : { action: condition.action }),
            ...(condition.resolvedDetail === undefined ? {} : { resolvedDetail: condition.resolvedDetail })
          }
          const raised = yield* repo.raiseCondition({
            key: condition.key,
            kind: condition.kind,
            ...(condition.storeKey === undefined ? {} : { storeKey: condition.storeKey }),
            data
          })
          known.set(condition.key, true)
          if (raised) yield* Effect.logWarning(`alert: ${condition.title}`).pipe(Effect.annotateLogs({ condition: condition.key }))
        } else {
          if (known.get(change.key) !== true) return
          const resolved = yield* repo.resolveCondition(change.key, change.storeKey)
          known.set(change.key, false)
          if (resolved) yield* Effect.logInfo(`alert resolved: ${change.key}`).pipe(Effect.annotateLogs({ condition: change.key }))
        }
      }).pipe(Effect.catchAllCause((cause) =>
        logFailure(`recording the alert condition ${change._tag === "Raise" ? change.condition.key : change.key} failed`, cause)
      ))

    yield* Queue.take(changes).pipe(
      Effect.flatMap((change) => apply(change).pipe(Effect.ensuring(SubscriptionRef.update(inFlight, (n) => n - 1)))),
      Effect.forever,
      Effect.forkScoped
    )

    return {
      /** Raises the condition unless this replica knows it is raised; returns at once. */
      raise: (condition: Condition) => known.get(condition.key) === true ? Effect.void : offer({ _tag: "Raise", condition }),
      /** Resolves the condition if this replica knows it is raised; returns at once. */
      resolve: (key: string, storeKey?: string) => known.get(key) !== true ? Effect.void : offer({ _tag: "Resolve", key, storeKey }),
      /** The conditions this replica knows are raised. */
      raised: Effect.sync(() => [...known].filter(([, up]) => up).map(([key]) => key)),
      refresh,
      /** Waits until the changes asked for so far are written (tests; shutdown). */
      settled: inFlight.changes.pipe(Stream.filter((n) => n === 0), Stream.take(1), Stream.runDrain)
    }
  }),
  dependencies: [AlertsRepo.Default]
}) {}

/** How often the watch looks for drafts not checked out in time. */
const DRAFTS_LOOK_EVERY_MS = 5 * 60_000

export interface WatchThresholds {
  readonly storeUnreachableMinutes: number
  readonly podUnreachableMinutes: number
  readonly noProgressMinutes: number
  readonly databaseFailingMinutes: number
  /** A draft still not checked out this long is an alert (reports.notCheckedOutAfterHours: the report's own line). */
  readonly notCheckedOutAfterHours?: number
}

const unreachable = (trouble: Trouble, now: number): Condition => {
  const label = dependencyLabel(trouble.dependency)
  const minutes = Math.round((now - trouble.since.getTime()) / 60_000)
  return {
    key: `unreachable:${trouble.dependency}`,
    kind: "dependency.unreachable",
    ...(trouble.dependency.startsWith("store:") ? { storeKey: trouble.dependency.slice("store:".length) } : {}),
    title: `${label} unreachable for ${minutes} min`,
    detail: `since ${trouble.since.toISOString()}, ${trouble.failures} failed attempt(s), last: ${trouble.message}${
      trouble.waiting === null ? "" : `; ${trouble.waiting} order(s) waiting`
    }`,
    action: "podsync retries with backoff and drains the waiting orders when it answers; check the service's status page"
  }
}

/** A synthetic alert of the database failing: sent past the outbox, which lives in the failing database. */
const databaseAlert = (trouble: Trouble | undefined, resolved: boolean, now: number): OutboxAlert => ({
  id: 0,
  kind: "database.failing",
  storeKey: null,
  orderId: null,
  referenceId: null,
  reason: "database",
  resolved,
  createdAt: new Date(now),
  data: {
    title: "the database keeps failing: podsync cannot move orders",
    detail: trouble === undefined ? "it answers again" : `since ${trouble.since.toISOString()}: ${trouble.message}`,
    action: "check the database server (disk, connections, credentials); podsync goes on by itself when it answers"
  }
})

/**
 * Looks every `every` at what no single request shows: dependencies down for longer than their
 * threshold, stages whose waiting orders have not moved, the database failing (sent straight
 * through the channels by the replica that sees it, and said once more when it is back).
 */
export const ConditionWatchLive = (thresholds: WatchThresholds, every: Duration.DurationInput = "15 seconds") =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const conditions = yield* AlertConditions
    const dispatch = yield* AlertDispatch
    const repo = yield* AlertsRepo
    const status = yield* StatusRepo
    const health = yield* Effect.serviceOption(DependencyHealth)
    let databaseAlerted = false

    const watchDependencies = Effect.gen(function*() {
      if (Option.isNone(health)) return
      const now = yield* Clock.currentTimeMillis
      const troubles = yield* health.value.troubles
      const database = troubles.find((t) => t.dependency === "database")
      if (database !== undefined && !databaseAlerted && now - database.since.getTime() >= thresholds.databaseFailingMinutes * 60_000) {
        databaseAlerted = true
        yield* dispatch.sendDirect([databaseAlert(database, false, now)])
      } else if (database === undefined && databaseAlerted) {
        databaseAlerted = false
        yield* dispatch.sendDirect([databaseAlert(undefined, true, now)])
      }
      if (database !== undefined) return // the rest needs the database
      const down = new Set<string>()
      for (const trouble of troubles) {
        const minutes = trouble.dependency === "pod" ? thresholds.podUnreachableMinutes : thresholds.storeUnreachableMinutes
        if (now - trouble.since.getTime() < minutes * 60_000) continue
        down.add(`unreachable:${trouble.dependency}`)
        yield* conditions.raise(unreachable(trouble, now))
      }
      for (const key of yield* conditions.raised) {
        if (key.startsWith("unreachable:") && !down.has(key)) {
          const dependency = key.slice("unreachable:".length)
          yield* conditions.resolve(key, dependency.startsWith("store:") ? dependency.slice("store:".length) : undefined)
        }
      }
    })

    const watchProgress = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const limit = thresholds.noProgressMinutes * 60_000
      const lastMove = yield* repo.lastOrderMoveAt
      const moved = lastMove !== null && now - lastMove.getTime() < limit
      const depths = yield* status.dueByStage(PIPELINE_QUEUES, new Date(now), yield* isDryRun)
      for (const depth of depths) {
        const key = `stalled:${depth.stage}`
        const stuck = !moved && depth.due > 0 && depth.oldestDueSince !== null && now - depth.oldestDueSince.getTime() >= limit
        if (stuck) {
          yield* conditions.raise({
            key,
            kind: "pipeline.stalled",
            title: `the ${depth.stage} stage has ${depth.due} order(s) waiting and nothing moved for ${thresholds.noProgressMinutes} min`,
            detail: `the oldest has been due since ${depth.oldestDueSince?.toISOString() ?? "?"}`,
            action: "see podsync status (what is unreachable) and the daemon's log for the failure that repeats"
          })
        } else yield* conditions.resolve(key)
      }
    })

    const draftsLookedAt = yield* Ref.make(Number.NEGATIVE_INFINITY)
    const turn = Effect.gen(function*() {
      yield* conditions.refresh.pipe(Effect.ignore)
      yield* watchDependencies
      if (Option.isSome(health) && (yield* health.value.isDown("database"))) return
      yield* watchProgress
      // Drafts are late by hours: looking every few minutes is on time, and spares the query every turn.
      const now = yield* Clock.currentTimeMillis
      if (thresholds.notCheckedOutAfterHours !== undefined && now - (yield* Ref.get(draftsLookedAt)) >= DRAFTS_LOOK_EVERY_MS) {
        yield* repo.alertDraftsNotCheckedOut(new Date(now - thresholds.notCheckedOutAfterHours * 3_600_000))
        yield* Ref.set(draftsLookedAt, now)
      }
    }).pipe(Effect.catchAllCause((cause) => logFailure("watching alert conditions failed; it looks again at its next turn", cause)))

    yield* turn.pipe(Effect.repeat(Schedule.spaced(every)), Effect.forkScoped)
  }))
