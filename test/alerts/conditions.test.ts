import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, TestClock } from "effect"
import { AlertConditions, ConditionWatchLive } from "../../src/alerts/AlertConditions.js"
import { AlertDispatch } from "../../src/alerts/AlertDispatch.js"
import { AlertSender, type AlertSettings } from "../../src/alerts/AlertSender.js"
import { withPodHealth } from "../../src/app/DependencyReports.js"
import { Db } from "../../src/db/Db.js"
import { DependencyHealth } from "../../src/observability/DependencyHealth.js"
import { PodRequestGate } from "../../src/pod/PodRequestGate.js"
import { AlertsRepo } from "../../src/repos/AlertsRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { StatusRepo } from "../../src/repos/StatusRepo.js"
import { Replica } from "../../src/schedule/ReplicaIdentity.js"
import { startWebhookReceiver } from "../support/alertReceivers.js"
import { pgliteDatabase } from "../support/database.js"
import { storedSampleOrder } from "../support/orders.js"

const T0 = Date.parse("2026-11-26T09:00:00Z")
const MIN = 60_000

/** Waits (in real time: the work is real I/O) until `check` holds. */
const eventually = <A>(what: string, read: Effect.Effect<A, unknown>, check: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const value = yield* read
      if (check(value)) return value
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 25)))
    }
    return yield* Effect.dieMessage(`${what} did not happen`)
  })

const outbox = Effect.flatMap(
  Db,
  (db) => db.use((k) => k.selectFrom("alert_outbox").select(["kind", "reason", "resolved", "store_key"]).orderBy("id").execute())
)

/** What the condition watch reads and writes, on a fresh PGlite. */
const watched = () =>
  Layer.mergeAll(DependencyHealth.Default, AlertConditions.Default, StatusRepo.Default, OrdersRepo.Default, AlertsRepo.Default)
    .pipe(Layer.provideMerge(pgliteDatabase().layer))

const THRESHOLDS = { storeUnreachableMinutes: 15, podUnreachableMinutes: 10, noProgressMinutes: 30, databaseFailingMinutes: 5 }

/** One signed-webhook channel to `url`, sent at once, three tries. */
const hookSettings = (url: string): AlertSettings => ({
  channels: [{ name: "hook", webhook: { url, secret: Redacted.make("s") }, timeoutSeconds: 5 }],
  digest: { groupMs: 0 },
  retry: { attempts: 3, firstDelayMs: 1000 },
  linkBase: "http://127.0.0.1:8080"
})

/** At T0: a webhook receiver, one channel to it, and what the watch reads and writes. */
const scene = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  const receiver = yield* Effect.acquireRelease(Effect.promise(() => startWebhookReceiver()), (r) => Effect.promise(() => r.close()))
  return { receiver, settings: hookSettings(receiver.url), base: watched() }
})

describe("alert conditions", () => {
  it.scoped(
    "a refused credential, a store unreachable too long and a stalled stage are raised once and resolved once",
    () =>
      Effect.gen(function*() {
        const { base, receiver, settings } = yield* scene
        const alerts = AlertSender.Default(settings).pipe(
          Layer.provide(Replica.layer("test")),
          Layer.provideMerge(AlertDispatch.Default(settings)),
          Layer.provide(NodeHttpClient.layerUndici)
        )
        const gate = withPodHealth(PodRequestGate.passThrough)

        const context = yield* Layer.build(
          Layer.mergeAll(gate, ConditionWatchLive(THRESHOLDS, "15 seconds")).pipe(Layer.provideMerge(alerts), Layer.provideMerge(base))
        )
        const health = Context.get(context, DependencyHealth)
        const conditions = Context.get(context, AlertConditions)
        const sender = Context.get(context, AlertSender)
        const pod = Context.get(context, PodRequestGate)
        const read = outbox.pipe(Effect.provide(context))
        const info = { operation: "drafts.create", method: "POST", path: "/api/v3/orders/draft", lane: "normal" as const }

        // The POD service refuses the credentials: raised once, however many requests it refuses.
        for (let i = 0; i < 5; i++) yield* pod.report(info, { _tag: "Answered", status: 401 })
        yield* conditions.settled
        yield* eventually("the refusal to be raised", read, (rows) => rows.length === 1)
        // Accepted again: resolved once.
        for (let i = 0; i < 3; i++) yield* pod.report(info, { _tag: "Answered", status: 200 })
        yield* conditions.settled
        expect(yield* eventually("the refusal to be resolved", read, (rows) => rows.length === 2)).toEqual([
          { kind: "credentials.refused", reason: "credentials:pod", resolved: false, store_key: null },
          { kind: "credentials.refused", reason: "credentials:pod", resolved: true, store_key: null }
        ])

        // A store stops answering: not an alert at once, one after 15 minutes, one "resolved" when it answers.
        yield* health.failed("store:acme-shopify", "GET /orders", "HTTP 503")
        yield* TestClock.adjust(14 * MIN)
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
        expect((yield* read).filter((r) => r.kind === "dependency.unreachable")).toEqual([])
        yield* TestClock.adjust(1 * MIN)
        yield* eventually("the store to be unreachable", read, (rows) => rows.some((r) => r.kind === "dependency.unreachable"))
        yield* TestClock.adjust(1 * MIN)
        yield* health.succeeded("store:acme-shopify")
        yield* TestClock.adjust(15_000)
        const store = yield* eventually("the store to be back", read, (rows) =>
          rows.filter((r) =>
            r.kind === "dependency.unreachable"
          ).length === 2)
        expect(store.filter((r) => r.kind === "dependency.unreachable")).toEqual([
          { kind: "dependency.unreachable", reason: "unreachable:store:acme-shopify", resolved: false, store_key: "acme-shopify" },
          { kind: "dependency.unreachable", reason: "unreachable:store:acme-shopify", resolved: true, store_key: "acme-shopify" }
        ])

        // An order waits in the match stage and nothing moves for 30 minutes: the stage is stalled.
        yield* storedSampleOrder("stuck").pipe(Effect.provide(context))
        yield* TestClock.adjust(31 * MIN)
        yield* eventually("the stage to be stalled", read, (rows) => rows.some((r) => r.reason === "stalled:match"))

        // Every alert reached the receiver in one message (no digest wait here); a condition raised and
        // resolved within it is one line, as it stands last, with how often it changed.
        yield* sender.runOnce
        const lines = receiver.delivered().flatMap((r) =>
          (JSON.parse(r.body) as { alerts: Array<{ title: string; changes: number }> }).alerts.map((a) => [a.title, a.changes])
        )
        expect(lines).toEqual([
          ["Resolved: the POD service refused podsync's credentials (HTTP 401)", 2],
          ["Resolved: store acme-shopify unreachable for 15 min", 2],
          ["the match stage has 1 order(s) waiting and nothing moved for 30 min", 1]
        ])
        yield* sender.runOnce
        expect(receiver.delivered()).toHaveLength(1)
      }),
    60_000
  )

  it.scoped(
    "the database failing for 5 minutes is said straight through the channels, once, and once more when it is back",
    () =>
      Effect.gen(function*() {
        const { base, receiver, settings } = yield* scene

        const context = yield* Layer.build(
          ConditionWatchLive(THRESHOLDS, "15 seconds").pipe(
            Layer.provideMerge(AlertDispatch.Default(settings).pipe(Layer.provide(NodeHttpClient.layerUndici))),
            Layer.provideMerge(base)
          )
        )
        const health = Context.get(context, DependencyHealth)
        const titles = () =>
          receiver.delivered().flatMap((r) => (JSON.parse(r.body) as { alerts: Array<{ title: string }> }).alerts.map((a) => a.title))

        yield* health.failed("database", "claiming orders", "connection refused")
        yield* TestClock.adjust(4 * MIN)
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
        expect(titles()).toEqual([])
        yield* TestClock.adjust(1 * MIN)
        yield* eventually("the failing database to be said", Effect.sync(titles), (t) => t.length === 1)
        // Still failing: not said again.
        yield* TestClock.adjust(5 * MIN)
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
        expect(titles()).toHaveLength(1)
        yield* health.succeeded("database")
        yield* TestClock.adjust(15_000)
        expect(yield* eventually("the database to be back", Effect.sync(titles), (t) => t.length === 2)).toEqual([
          "the database keeps failing: podsync cannot move orders",
          "Resolved: the database keeps failing: podsync cannot move orders"
        ])
      }),
    60_000
  )

  it.scoped(
    "drafts not checked out in time are looked for every 5 minutes, not at every turn, and each is alerted once",
    () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(T0)
        const base = watched()
        const context = yield* Layer.build(base)
        const drafted = (id: string) =>
          Effect.gen(function*() {
            const { repo, rowId } = yield* storedSampleOrder(id)
            yield* repo.transition(rowId, "pulled", "ready", { actor: "match", reason: "planned" })
            yield* repo.transition(rowId, "ready", "drafted", { actor: "draft", reason: "draft made", podDraftId: `d-${id}` })
          }).pipe(Effect.provide(context))
        yield* drafted("late1")
        yield* TestClock.adjust("2 minutes")
        yield* drafted("late2")
        const thresholds = { ...THRESHOLDS, notCheckedOutAfterHours: 24 }
        yield* TestClock.adjust("1439 minutes")
        // Database failures would go straight to the channels: none is reached in this test.
        const dispatch = AlertDispatch.Default(hookSettings("http://127.0.0.1:9")).pipe(Layer.provide(NodeHttpClient.layerUndici))
        yield* Layer.build(
          ConditionWatchLive(thresholds, "15 seconds").pipe(Layer.provide(dispatch), Layer.provide(Layer.succeedContext(context)))
        )
        const late = outbox.pipe(Effect.provide(context), Effect.map((rows) => rows.filter((r) => r.kind === "order.not_checked_out")))
        // The first turn looks: the first draft is a day old, the second not yet.
        yield* eventually("the first late draft alerted", late, (rows) => rows.length === 1)
        // A minute later the second is late too, but the next look is 5 minutes after the first.
        yield* TestClock.adjust("2 minutes")
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
        expect(yield* late).toHaveLength(1)
        yield* TestClock.adjust("3 minutes")
        yield* eventually("the second late draft alerted", late, (rows) => rows.length === 2)
        // Looked for again and again: still one alert each.
        yield* TestClock.adjust("10 minutes")
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
        expect(yield* late).toHaveLength(2)
      }),
    30_000
  )
})
