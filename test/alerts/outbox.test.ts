import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, type Scope, TestClock } from "effect"
import { sql } from "kysely"
import { AlertDispatch } from "../../src/alerts/AlertDispatch.js"
import { AlertSender, type AlertSettings } from "../../src/alerts/AlertSender.js"
import type { AlertChannelConfig } from "../../src/config/AlertsConfig.js"
import { Db } from "../../src/db/Db.js"
import { sentSummary } from "../../src/domain/Alert.js"
import { readStatusReport } from "../../src/observability/StatusReport.js"
import { AlertsRepo } from "../../src/repos/AlertsRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { StatusRepo } from "../../src/repos/StatusRepo.js"
import { Replica } from "../../src/schedule/ReplicaIdentity.js"
import { startSmtpReceiver, startWebhookReceiver, type WebhookReceiver } from "../support/alertReceivers.js"
import { otherReplicaDb, pgliteDatabase, postgresDatabase, type TestDatabase } from "../support/database.js"
import { storedSampleOrder } from "../support/orders.js"
import { sharedDatabase } from "../support/sharedDatabase.js"

const SECRET = "alert-signing-secret"
const T0 = Date.parse("2026-11-26T09:00:00Z")

const backends: ReadonlyArray<() => TestDatabase> = process.env.TEST_DATABASE_URL
  ? [pgliteDatabase, () => postgresDatabase(process.env.TEST_DATABASE_URL ?? "")]
  : [pgliteDatabase]

const webhook = (name: string, url: string, timeoutSeconds = 5): AlertChannelConfig => ({
  name,
  webhook: { url: `${url}/hooks/podsync`, secret: Redacted.make(SECRET) },
  timeoutSeconds
})

const settingsOf = (channels: ReadonlyArray<AlertChannelConfig>, overrides: Partial<AlertSettings> = {}): AlertSettings => ({
  channels,
  digest: { groupMs: 15 * 60_000 },
  retry: { attempts: 3, firstDelayMs: 30_000 },
  linkBase: "http://127.0.0.1:8080",
  ...overrides
})

/** A sender of its own (a replica), on the database in context. */
const senderOf = (settings: AlertSettings, owner = "replica-a") =>
  Layer.build(
    AlertSender.Default(settings).pipe(
      Layer.provide(Replica.layer(owner)),
      Layer.provideMerge(AlertDispatch.Default(settings)),
      Layer.provide(NodeHttpClient.layerUndici)
    )
  ).pipe(Effect.map((context) => Context.get(context, AlertSender)))

const receiver = (options: Parameters<typeof startWebhookReceiver>[0] = {}) =>
  Effect.acquireRelease(Effect.promise(() => startWebhookReceiver({ secret: SECRET, ...options })), (r) => Effect.promise(() => r.close()))

/** An acme-shopify order pulled, then held for `reason` (as the match stage holds it). */
const heldOrder = (storeOrderId: string, reason = "unmatched") =>
  Effect.gen(function*() {
    const { repo, reference, rowId } = yield* storedSampleOrder(storeOrderId)
    yield* repo.transition(rowId, "pulled", "held", {
      actor: "match",
      reason: "no mapping row",
      held: { code: reason, details: { message: `line Logo Tee (TEE-BLK-M): no mapping row for ${reason}` } },
      nextAttemptAt: null
    })
    return { reference, rowId }
  })

/** An order cancelled in the store after its draft was made. */
const cancelledAfterDraft = (storeOrderId: string) =>
  Effect.gen(function*() {
    const { repo, reference, rowId } = yield* storedSampleOrder(storeOrderId)
    yield* repo.transition(rowId, "pulled", "ready", { actor: "match", reason: "planned" })
    yield* repo.transition(rowId, "ready", "drafted", { actor: "draft", reason: "draft made", podDraftId: `d-${storeOrderId}` })
    yield* repo.transition(rowId, "drafted", "cancel_pending", { actor: "pull", reason: "cancelled in the store after the draft" })
    return { reference, rowId }
  })

const outboxOf = (orderId: number) =>
  Effect.flatMap(
    Db,
    (db) =>
      db.use((k) => k.selectFrom("alert_outbox").select(["kind", "reason", "data"]).where("order_id", "=", orderId).orderBy("id").execute())
  )

const parsedAlerts = (r: WebhookReceiver) =>
  r.delivered().map((req) =>
    JSON.parse(req.body) as { subject: string; alerts: Array<{ id: number; title: string; changes: number; resolved: boolean }> }
  )

for (const backend of backends) {
  const name = backend().name

  describe(`alerts on ${name}`, () => {
    // One database for the block, emptied before each test: no test here is about a new database, and
    // each starts from an empty one as before (same ids, no alert, delivery or order of another test).
    const shared = sharedDatabase(backend())
    const run = <A, E>(
      effect:
        | Effect.Effect<A, E, Db | OrdersRepo | AlertsRepo | StatusRepo | Scope.Scope>
        | ((database: TestDatabase) => Effect.Effect<A, E, Db | OrdersRepo | AlertsRepo | StatusRepo | Scope.Scope>)
    ) =>
      (typeof effect === "function" ? effect(shared.database) : effect).pipe(
        Effect.provide(Layer.mergeAll(OrdersRepo.Default, AlertsRepo.Default, StatusRepo.Default).pipe(Layer.provideMerge(shared.layer))),
        Effect.scoped
      )

    it.scoped("an order held for an unmatched SKU is one alert, written by its move; a re-plan for the same reason adds none", () =>
      run(Effect.gen(function*() {
        const db = yield* Db
        const orders = yield* OrdersRepo
        const { rowId } = yield* heldOrder("h1")
        expect(yield* outboxOf(rowId)).toEqual([{
          kind: "order.held",
          reason: "unmatched",
          data: { name: "#1001", state: "held", message: "line Logo Tee (TEE-BLK-M): no mapping row for unmatched" }
        }])
        // Planned again with the same reason (the store edited the order): still one alert.
        yield* orders.transition(rowId, "held", "held", {
          actor: "match",
          reason: "no mapping row",
          held: { code: "unmatched", details: {} }
        })
        expect(yield* outboxOf(rowId)).toHaveLength(1)
        // Another reason is another thing a person must do.
        yield* orders.transition(rowId, "held", "held", { actor: "match", reason: "bad address", held: { code: "address", details: {} } })
        expect((yield* outboxOf(rowId)).map((a) => a.reason)).toEqual(["unmatched", "address"])

        // A move rolled back takes its alert with it: they are one write.
        const { rowId: other } = yield* storedSampleOrder("h2")
        const rolledBack = yield* db.transaction(
          orders.transition(other, "pulled", "held", { actor: "match", reason: "x", held: { code: "unmatched", details: {} } }).pipe(
            Effect.zipRight(Effect.fail("the rest of the batch failed" as const))
          )
        ).pipe(Effect.flip)
        expect(rolledBack).toBe("the rest of the batch failed")
        expect(yield* outboxOf(other)).toEqual([])
        expect((yield* orders.byId(other)).state).toBe("pulled")
        // A move that does not happen (the order was not in `from`) writes nothing either.
        yield* orders.transition(other, "ready", "failed", { actor: "draft", reason: "x" }).pipe(Effect.flip)
        expect(yield* outboxOf(other)).toEqual([])
      })))

    it.scoped("a draft not checked out after the report's hours is one alert, however often the watch asks", () =>
      run(Effect.gen(function*() {
        yield* TestClock.setTime(T0)
        const alerts = yield* AlertsRepo
        const orders = yield* OrdersRepo
        const { rowId } = yield* storedSampleOrder("n1")
        yield* orders.transition(rowId, "pulled", "ready", { actor: "match", reason: "planned" })
        yield* orders.transition(rowId, "ready", "drafted", { actor: "draft", reason: "draft made", podDraftId: "d-n1" })
        const { rowId: paid } = yield* storedSampleOrder("n2")
        yield* orders.transition(paid, "pulled", "ready", { actor: "match", reason: "planned" })
        yield* orders.transition(paid, "ready", "drafted", { actor: "draft", reason: "draft made", podDraftId: "d-n2" })
        yield* orders.transition(paid, "drafted", "checked_out", { actor: "follow", reason: "checked out" })

        const dayAgo = (now: number) => new Date(now - 24 * 3_600_000)
        yield* TestClock.adjust("23 hours")
        expect(yield* alerts.alertDraftsNotCheckedOut(dayAgo(T0 + 23 * 3_600_000))).toBe(0)
        yield* TestClock.adjust("2 hours")
        expect(yield* alerts.alertDraftsNotCheckedOut(dayAgo(T0 + 25 * 3_600_000))).toBe(1)
        expect(yield* alerts.alertDraftsNotCheckedOut(dayAgo(T0 + 25 * 3_600_000))).toBe(0)
        expect(yield* outboxOf(rowId)).toEqual([{
          kind: "order.not_checked_out",
          reason: null,
          data: {
            name: "#1001",
            state: "drafted",
            message: "draft d-n1 is not checked out: check it out (pay for it) at the POD service, or delete it"
          }
        }])
        expect(yield* outboxOf(paid)).toEqual([])
        expect(sentSummary([{ kind: "order.not_checked_out", reason: null, count: 1 }])).toContain("1 draft not checked out")
      })))

    it.scoped("sends them once on every channel: a signed JSON webhook, a Slack text and an email, each saying what they are", () =>
      run(Effect.gen(function*() {
        yield* TestClock.setTime(Date.now())
        const hook = yield* receiver()
        const slack = yield* receiver()
        const smtp = yield* Effect.acquireRelease(
          Effect.promise(() => startSmtpReceiver({ user: "alerts", password: "mail-pass" })),
          (s) => Effect.promise(() => s.close())
        )
        const sender = yield* senderOf(settingsOf([
          webhook("hook", hook.url),
          { name: "chat", slack: { url: Redacted.make(`${slack.url}/services/T000/B000/token`) }, timeoutSeconds: 5 },
          {
            name: "mail",
            email: {
              host: "127.0.0.1",
              port: smtp.port,
              tls: "none",
              user: Redacted.make("alerts"),
              password: Redacted.make("mail-pass"),
              from: "podsync <podsync@example.com>",
              to: ["owner@example.com"]
            },
            timeoutSeconds: 5
          }
        ]))
        const a = yield* heldOrder("s1")
        yield* heldOrder("s2")
        yield* cancelledAfterDraft("s3")

        const pass = yield* sender.runOnce
        expect(pass.routed).toBe(3)
        expect(pass.channels.map((c) => [c.channel, c.sent, c.failed])).toEqual([["hook", 3, 0], ["chat", 3, 0], ["mail", 3, 0]])

        // The generic webhook: one signed message of the three alerts, each with its story's link.
        expect(hook.requests).toHaveLength(1)
        expect(hook.requests[0]?.verified).toBe(true)
        expect(hook.requests[0]?.headers["x-podsync-delivery"]).toMatch(/^hook-/)
        const [message] = parsedAlerts(hook)
        expect(message?.subject).toBe("podsync: 3 alerts: 2 unmatched SKUs, 1 cancelled after draft")
        expect(message?.alerts.map((x) => x.title)).toContain(`${a.reference} (#1001) held: unmatched SKU`)
        expect(hook.requests[0]?.body).toContain(`/console/order?ref=${encodeURIComponent(a.reference)}`)
        // Slack takes {"text"}; the text says what to do.
        expect(slack.requests).toHaveLength(1)
        expect(slack.requests[0]?.path).toBe("/services/T000/B000/token")
        const text = (JSON.parse(slack.requests[0]?.body ?? "{}") as { text: string }).text
        expect(text).toContain("3 alerts: 2 unmatched SKUs, 1 cancelled after draft")
        expect(text).toContain("What to do: add the item's variant id or SKU to the store's mapping file")
        // The email, through a real SMTP session with its user and password.
        expect(smtp.mails).toHaveLength(1)
        expect(smtp.mails[0]?.subject).toBe("podsync: 3 alerts: 2 unmatched SKUs, 1 cancelled after draft")
        expect(smtp.mails[0]?.to).toEqual(["owner@example.com"])
        expect(smtp.mails[0]?.user).toBe("alerts")

        // Nothing is sent twice.
        yield* sender.runOnce
        expect([hook.requests.length, slack.requests.length, smtp.mails.length]).toEqual([1, 1, 1])
        expect(sentSummary(yield* (yield* AlertsRepo).sentByTopic)).toBe("3 alerts sent: 2 unmatched SKUs, 1 cancelled after draft")
      })))

    it.scoped("sends the first alert at once and groups what follows for 15 minutes; a flapping condition is one line", () =>
      run(Effect.gen(function*() {
        yield* TestClock.setTime(T0)
        let now = T0
        const hook = yield* receiver({ clock: () => now })
        const advance = (ms: number) => Effect.zipRight(TestClock.adjust(ms), Effect.sync(() => (now += ms)))
        const sender = yield* senderOf(settingsOf([webhook("hook", hook.url)]))
        const alerts = yield* AlertsRepo

        yield* heldOrder("d1")
        yield* sender.runOnce
        expect(parsedAlerts(hook).map((m) => m.alerts.length)).toEqual([1])

        yield* advance(60_000)
        const b = yield* heldOrder("d2")
        const firstWait = yield* sender.runOnce
        yield* advance(60_000)
        yield* heldOrder("d3", "address")
        yield* sender.runOnce
        expect(hook.requests).toHaveLength(1)
        expect(firstWait.channels[0]?.nextAt).toBe(T0 + 15 * 60_000)

        yield* advance(13 * 60_000 - 1)
        yield* sender.runOnce
        expect(hook.requests).toHaveLength(1)
        yield* advance(1)
        yield* sender.runOnce
        expect(parsedAlerts(hook).map((m) => m.alerts.length)).toEqual([1, 2])
        expect(parsedAlerts(hook)[1]?.subject).toBe("podsync: 2 alerts: 1 address to fix, 1 unmatched SKU")

        // Re-planned for the same reason: no new alert.
        yield* (yield* OrdersRepo).transition(b.rowId, "held", "held", {
          actor: "match",
          reason: "edited",
          held: { code: "unmatched", details: {} }
        })
        // 16 minutes after the last send: the next alert goes at once again.
        yield* advance(16 * 60_000)
        yield* heldOrder("d4")
        yield* sender.runOnce
        expect(parsedAlerts(hook).map((m) => m.alerts.length)).toEqual([1, 2, 1])

        // A condition raised and resolved twice within the window: four alerts, one line, as it stands last.
        for (let i = 0; i < 2; i++) {
          yield* advance(1000)
          expect(yield* alerts.raiseCondition({ key: "rate_limited:pod", kind: "pod.rate_limited", data: { title: "POD 429" } })).toBe(true)
          expect(yield* alerts.raiseCondition({ key: "rate_limited:pod", kind: "pod.rate_limited", data: { title: "POD 429" } })).toBe(
            false
          )
          yield* advance(1000)
          expect(yield* alerts.resolveCondition("rate_limited:pod")).toBe(true)
          expect(yield* alerts.resolveCondition("rate_limited:pod")).toBe(false)
        }
        yield* sender.runOnce
        expect(hook.requests).toHaveLength(3)
        yield* advance(15 * 60_000)
        yield* sender.runOnce
        const last = parsedAlerts(hook)[3]
        expect(last?.alerts.map((x) => [x.title, x.changes, x.resolved])).toEqual([["Resolved: POD 429", 4, true]])
        expect(hook.requests.every((r) => r.verified === true)).toBe(true)
      })))

    it.scoped("retries a receiver that answers 503 with backoff, then marks the alert failed and /status shows it", () =>
      run(Effect.gen(function*() {
        yield* TestClock.setTime(T0)
        let now = T0
        const hook = yield* receiver({ clock: () => now, answer: () => 503 })
        const advance = (ms: number) => Effect.zipRight(TestClock.adjust(ms), Effect.sync(() => (now += ms)))
        const sender = yield* senderOf(settingsOf([webhook("hook", hook.url)]))
        const { reference } = yield* heldOrder("f1")

        expect((yield* sender.runOnce).channels[0]).toMatchObject({ failed: 1, gaveUp: 0 })
        yield* sender.runOnce
        expect(hook.requests).toHaveLength(1)
        yield* advance(30_000)
        yield* sender.runOnce
        expect(hook.requests).toHaveLength(2)
        yield* advance(59_999)
        yield* sender.runOnce
        expect(hook.requests).toHaveLength(2)
        yield* advance(1)
        expect((yield* sender.runOnce).channels[0]).toMatchObject({ failed: 1, gaveUp: 1 })
        expect(hook.requests).toHaveLength(3)
        yield* advance(3_600_000)
        yield* sender.runOnce
        expect(hook.requests).toHaveLength(3)

        const status = yield* readStatusReport({ storeKeys: ["acme-shopify"], budget: null, traffic: null })
        expect(status.alerts).toMatchObject({ pending: 0, sent: 0 })
        expect(status.alerts?.failed).toEqual([{
          channel: "hook",
          kind: "order.held",
          reason: "unmatched",
          referenceId: reference,
          attempts: 3,
          lastError: "HTTP 503",
          at: new Date(T0).toISOString()
        }])

        // The receiver is back: the next alert goes, the failed one stays failed (and listed).
        hook.answer = () => 200
        yield* heldOrder("f2")
        yield* sender.runOnce
        expect(hook.delivered()).toHaveLength(1)
        expect((yield* (yield* AlertsRepo).summary).failed).toHaveLength(1)
      })))

    it.scoped("forgets alerts once they are done and old, never one still to send", () =>
      run(Effect.gen(function*() {
        yield* TestClock.setTime(T0)
        const alerts = yield* AlertsRepo
        const hook = yield* receiver({ answer: () => 503 })
        const { rowId: waiting } = yield* heldOrder("p1")
        const sender = yield* senderOf(settingsOf([webhook("hook", hook.url)]))
        yield* sender.runOnce
        const { rowId: unrouted } = yield* heldOrder("p2")
        // Nothing is old yet.
        expect(yield* alerts.pruneBefore(new Date(T0 - 1))).toBe(0)
        // Later: the alert never routed goes; the one whose delivery still waits for a retry stays.
        expect(yield* alerts.pruneBefore(new Date(T0 + 31 * 86_400_000))).toBe(1)
        expect(yield* outboxOf(unrouted)).toEqual([])
        expect(yield* outboxOf(waiting)).toHaveLength(1)
      })))

    it.live("times out a receiver that never answers, retries it, then fails the alert", () =>
      run(Effect.gen(function*() {
        const hook = yield* receiver({ answer: () => "hang" })
        const sender = yield* senderOf(settingsOf([webhook("slow", hook.url, 1)], { retry: { attempts: 2, firstDelayMs: 0 } }))
        yield* heldOrder("t1")
        const started = Date.now()
        expect((yield* sender.runOnce).channels[0]).toMatchObject({ failed: 1, gaveUp: 0 })
        expect((yield* sender.runOnce).channels[0]).toMatchObject({ failed: 1, gaveUp: 1 })
        expect(Date.now() - started).toBeGreaterThanOrEqual(2000)
        expect(hook.requests).toHaveLength(2)
        const { failed } = yield* (yield* AlertsRepo).summary
        expect(failed.map((f) => [f.attempts, f.lastError])).toEqual([[2, "no answer within 1s"]])
      })), 20_000)

    it.live("three replicas sending at once send each alert once", () =>
      run((testDatabase) =>
        Effect.gen(function*() {
          const hook = yield* receiver()
          const settings = settingsOf([webhook("hook", hook.url)], { digest: { groupMs: 0 } })
          const database = yield* Db
          const replicas = yield* Effect.forEach(["r1", "r2", "r3"], (owner, i) =>
            i === 0
              ? senderOf(settings, owner)
              : Effect.flatMap(otherReplicaDb(testDatabase), (db) => Effect.provideService(senderOf(settings, owner), Db, db)))
          // On PostgreSQL each replica has a pool of its own; PGlite has one connection, shared.
          expect(database).toBeDefined()
          const ids: Array<number> = []
          for (let round = 0; round < 6; round++) {
            for (let i = 0; i < 5; i++) ids.push((yield* heldOrder(`r${round}-${i}`)).rowId)
            yield* Effect.all(replicas.map((r) => r.runOnce), { concurrency: "unbounded" })
          }
          for (let i = 0; i < 3; i++) yield* Effect.all(replicas.map((r) => r.runOnce), { concurrency: "unbounded" })
          const delivered = hook.deliveredAlertIds()
          expect(delivered).toHaveLength(30)
          expect(new Set(delivered).size).toBe(30)
          const { rows } = yield* database.use((k) =>
            sql<{ n: number }>`select count(*)::int as n from alert_deliveries where status = 'sent'`.execute(k)
          )
          expect(rows[0]?.n).toBe(30)
        })
      ), 60_000)
  })
}
