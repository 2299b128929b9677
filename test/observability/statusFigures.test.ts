// The database's side of /metrics and /status: orders by store and state, what needs a person,
// queue depth and lag per stage, time since each store's last pull. Orders are put in place
// through the real repositories on PGlite, time is the TestClock.
import { createServer } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Redacted, Schema, TestClock } from "effect"
import { credentialId, RateBudget, RateBudgetInMemory } from "../../src/budget/RateBudget.js"
import { RateBudgetSql } from "../../src/app/PodLive.js"
import { formatAge, renderStatus } from "../../src/cli/status.js"
import { MetricsRoutes, statusResponse } from "../../src/http/MetricsRoutes.js"
import { budgetStatusFromLog } from "../../src/observability/BudgetStatus.js"
import { MetricsRegistry } from "../../src/observability/MetricsRegistry.js"
import { BudgetMetricsLive, ObservabilityLive } from "../../src/observability/ObservabilityLive.js"
import { readPipelineFigures } from "../../src/observability/PipelineFigures.js"
import { readStatusReport, StatusReport } from "../../src/observability/StatusReport.js"
import { CursorsRepo } from "../../src/repos/CursorsRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { ShipmentsRepo } from "../../src/repos/ShipmentsRepo.js"
import { StatusRepo } from "../../src/repos/StatusRepo.js"
import { WebhookMetrics } from "../../src/observability/WebhookMetrics.js"
import { Db } from "../../src/db/Db.js"
import * as ReferenceId from "../../src/domain/ReferenceId.js"
import { pgliteDatabase } from "../support/database.js"
import { sampleOrder } from "../support/orders.js"
import { expectSamples, sample } from "../support/prometheus.js"

const T0 = Date.parse("2026-11-21T10:00:00Z")
const at = (seconds: number) => TestClock.setTime(T0 + seconds * 1000)

const reposLive = Layer.mergeAll(OrdersRepo.Default, ShipmentsRepo.Default, CursorsRepo.Default, StatusRepo.Default)

/**
 * acme: a new order (due for match), a held one (unmatched; waits for a mapping, not due),
 * a ready one (due for draft), one in doubt whose look-up is not due yet, a shipped one with
 * a tracking to push (due for fulfill), one cancelled in the store after drafting.
 * woo: a held one (address) and a failed one. Only acme has been pulled.
 */
const seed = Effect.gen(function*() {
  const orders = yield* OrdersRepo
  const shipments = yield* ShipmentsRepo
  const put = (storeKey: string, id: string) =>
    Effect.map(orders.upsertPulled(sampleOrder({ storeKey, storeOrderId: id }), ReferenceId.keyOf(storeKey, id)), (r) => r.id)
  const actor = "test"

  yield* at(0)
  yield* put("acme", "new-1")
  /** An order pulled and held at once, with no next attempt. */
  const putHeld = (storeKey: string, id: string, code: "unmatched" | "address", reason: string) =>
    Effect.flatMap(
      put(storeKey, id),
      (row) => orders.transition(row, "pulled", "held", { actor, reason, held: { code, details: {} }, nextAttemptAt: null })
    )
  yield* putHeld("acme", "held-1", "unmatched", "no mapping row")
  yield* putHeld("woo", "held-2", "address", "city too long")

  yield* at(30)
  yield* (yield* CursorsRepo).save("acme", { watermark: "2026-11-21T09:59:00Z" })

  yield* at(60)
  const ready = yield* put("acme", "ready-1")
  yield* orders.transition(ready, "pulled", "ready", { actor, reason: "matched", nextAttemptAt: new Date(0) })
  const doubt = yield* put("acme", "doubt-1")
  yield* orders.transition(doubt, "pulled", "ready", { actor, reason: "matched" })
  yield* orders.transition(doubt, "ready", "in_doubt", { actor, reason: "timeout", nextAttemptAt: new Date(T0 + 3_600_000) })
  const shipped = yield* put("acme", "shipped-1")
  yield* orders.transition(shipped, "pulled", "ready", { actor, reason: "matched" })
  yield* orders.transition(shipped, "ready", "drafted", { actor, reason: "drafted", podDraftId: "d-1" })
  yield* orders.transition(shipped, "drafted", "shipped", { actor, reason: "shipped", nextAttemptAt: new Date(0) })
  yield* shipments.record(shipped, "o-1", { number: "1Z999", carrier: "UPS" })
  const pending = yield* put("acme", "cancel-1")
  yield* orders.transition(pending, "pulled", "ready", { actor, reason: "matched" })
  yield* orders.transition(pending, "ready", "drafted", { actor, reason: "drafted", podDraftId: "d-2" })
  yield* orders.transition(pending, "drafted", "cancel_pending", { actor, reason: "cancelled in the store", nextAttemptAt: null })
  const failed = yield* put("woo", "failed-1")
  yield* orders.transition(failed, "pulled", "ready", { actor, reason: "matched" })
  yield* orders.transition(failed, "ready", "failed", { actor, reason: "unreadable", nextAttemptAt: null })
  return { ready }
})

class Server extends Context.Tag("test/ObservabilityServer")<Server, { readonly url: string }>() {}

/** GET /metrics and GET /status over real HTTP, as the daemon serves them. */
const ServerLive = Layer.effect(
  Server,
  Effect.map(HttpServer.HttpServer, (server) => {
    if (server.address._tag !== "TcpAddress") throw new Error("expected a TCP address")
    return { url: `http://127.0.0.1:${server.address.port}` }
  })
).pipe(
  Layer.provideMerge(
    HttpRouter.empty.pipe(
      HttpRouter.concat(MetricsRoutes),
      HttpRouter.get("/status", statusResponse),
      HttpServer.serve(),
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { host: "127.0.0.1", port: 0 }))
    )
  ),
  Layer.provideMerge(BudgetMetricsLive),
  Layer.provideMerge(ObservabilityLive(["acme", "woo"])),
  Layer.provideMerge(
    RateBudgetInMemory({
      credential: "pod-test",
      rateLimit: { requests: 100, windowSeconds: 10, blockSeconds: 60, headroom: 0.05 },
      startFull: false
    })
  ),
  Layer.provideMerge(reposLive),
  Layer.provideMerge(pgliteDatabase().layer)
)

const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() }
  })

// One database for the file (PGlite takes seconds to start); each test starts from empty tables.
const emptyTables = Effect.flatMap(Db, (db) =>
  db.use(async (k) => {
    for (const table of ["shipments", "order_events", "store_orders", "store_cursors"] as const) await k.deleteFrom(table).execute()
  }))

describe("observability", () => {
  it.layer(ServerLive, { timeout: 60_000 })((it) => {
    describe("the database's figures", () => {
      it.effect("counts due orders per stage and how long the oldest has waited; held orders wait for a change, not a stage", () =>
        Effect.gen(function*() {
          yield* emptyTables
          yield* seed
          yield* at(600)
          const figures = yield* readPipelineFigures
          expect(figures.queues).toEqual([
            { stage: "match", due: 1, oldestDueSince: new Date(T0) },
            { stage: "draft", due: 1, oldestDueSince: new Date(T0 + 60_000) },
            { stage: "fulfill", due: 1, oldestDueSince: new Date(T0 + 60_000) }
          ])
          const report = yield* readStatusReport({ storeKeys: ["acme", "woo"], budget: null, traffic: null })
          expect(report.generatedAt).toBe("2026-11-21T10:10:00.000Z")
          expect(report.queues).toEqual([
            { stage: "match", due: 1, oldestAgeSeconds: 600 },
            { stage: "draft", due: 1, oldestAgeSeconds: 540 },
            { stage: "fulfill", due: 1, oldestAgeSeconds: 540 }
          ])
          expect(report.pulls).toEqual([
            { storeKey: "acme", lastPullAt: "2026-11-21T10:00:30.000Z", ageSeconds: 570 },
            { storeKey: "woo", lastPullAt: null, ageSeconds: null }
          ])
          expect(report.orders).toContainEqual({ storeKey: "acme", state: "in_doubt", count: 1 })
          expect(report.orders.reduce((n, o) => n + o.count, 0)).toBe(8)
          expect(report.held).toEqual([
            { storeKey: "acme", reason: "unmatched", count: 1, oldestAgeSeconds: 600, oldestReferenceId: "acme:held-1" },
            { storeKey: "woo", reason: "address", count: 1, oldestAgeSeconds: 600, oldestReferenceId: "woo:held-2" }
          ])
          expect(report.attention.map((a) => [a.storeKey, a.what, a.count, a.oldestAgeSeconds, a.oldestReferenceId])).toEqual([
            ["acme", "held: unmatched", 1, 600, "acme:held-1"],
            ["acme", "cancel_pending", 1, 540, "acme:cancel-1"],
            ["woo", "held: address", 1, 600, "woo:held-2"],
            ["woo", "failed", 1, 540, "woo:failed-1"]
          ])
          expect(report.attention.find((a) => a.what === "cancel_pending")?.action).toContain("cancel the POD order by hand")
          // The JSON form decodes back to the same report (what `podsync status` reads from a daemon).
          const json = JSON.parse(JSON.stringify(yield* Schema.encode(StatusReport)(report)))
          expect(yield* Schema.decodeUnknown(StatusReport)(json)).toEqual(report)
        }))

      it.effect("shows the oldest held order of a reason with its age, and a refused tracking as work for a person", () =>
        Effect.gen(function*() {
          yield* emptyTables
          const orders = yield* OrdersRepo
          const shipments = yield* ShipmentsRepo
          for (const [i, id] of ["h-1", "h-2", "h-3"].entries()) {
            yield* at(i * 100)
            const { id: row } = yield* orders.upsertPulled(sampleOrder({ storeKey: "acme", storeOrderId: id }), `acme:${id}`)
            yield* orders.transition(row, "pulled", "held", { actor: "t", reason: "no row", held: { code: "unmatched", details: {} } })
          }
          yield* at(300)
          const { id: shipped } = yield* orders.upsertPulled(sampleOrder({ storeKey: "acme", storeOrderId: "s-1" }), "acme:s-1")
          yield* orders.transition(shipped, "pulled", "ready", { actor: "t", reason: "matched" })
          yield* orders.transition(shipped, "ready", "drafted", { actor: "t", reason: "drafted" })
          yield* orders.transition(shipped, "drafted", "shipped", { actor: "t", reason: "shipped" })
          yield* shipments.record(shipped, "o-9", { number: "TRK-1" })
          const [open] = yield* shipments.forOrder(shipped)
          yield* shipments.mark(open!.id, "rejected", { error: { reason: "line already fulfilled" } })

          yield* at(3600)
          const report = yield* readStatusReport({ storeKeys: ["acme"], budget: null, traffic: null })
          expect(report.held).toEqual([{
            storeKey: "acme",
            reason: "unmatched",
            count: 3,
            oldestAgeSeconds: 3600,
            oldestReferenceId: "acme:h-1"
          }])
          expect(report.attention).toContainEqual({
            storeKey: "acme",
            what: "tracking refused by the store",
            count: 1,
            oldestAgeSeconds: 3600 - 300,
            oldestReferenceId: "acme:s-1",
            action: "add the tracking number in the store by hand"
          })
          // Pushed (or refused) shipments leave nothing for the fulfill stage.
          expect(report.queues.find((q) => q.stage === "fulfill")).toEqual({ stage: "fulfill", due: 0, oldestAgeSeconds: null })
        }))
    })

    describe("podsync status without a daemon", () => {
      it.effect("prints orders, what needs a person with its oldest age, queues, pulls and the budget from the send log", () =>
        Effect.gen(function*() {
          yield* emptyTables
          yield* seed
          // One request went out under the shared budget (the database's send log) a moment ago.
          const pod = {
            clientKey: Redacted.make("cli-key"),
            rateLimit: { requests: 100, windowSeconds: 10, blockSeconds: 60, headroom: 0.05 }
          }
          yield* Effect.scoped(Effect.gen(function*() {
            const budget = yield* Layer.build(RateBudgetSql({ credential: credentialId(pod.clientKey), rateLimit: pod.rateLimit }))
            yield* Context.get(budget, RateBudget).withPermit({ lane: "normal" }, () => Effect.void)
          }))
          yield* at(7300)
          const report = yield* readStatusReport({ storeKeys: ["acme", "woo"], budget: yield* budgetStatusFromLog(pod), traffic: null })
          expect(report.budget).toMatchObject({ limit: 95, inUse: 1, inFlight: 0, waiting: null, pausedUntil: null, sent: null })
          const text = renderStatus(report, "embedded database")
          expect(text).toContain("podsync status (embedded database, 2026-11-21T12:01:40.000Z)")
          expect(text).toMatch(/acme +held: unmatched +1 +2h 1m +acme:held-1 +add the item's variant id or SKU/)
          // The order in doubt became due again at 1 h: two wait for the draft stage now, the oldest since 10:01.
          expect(text).toMatch(/draft +2 +2h 0m/)
          expect(text).toMatch(/woo +never +-/)
          expect(text).toContain("in use 1/95 per 10 s window, in flight 0")
          expect(text).toContain("waiting: unknown (no daemon answered)")
          expect(text).not.toContain("Since the daemon started")
          expect([formatAge(59), formatAge(61), formatAge(3_661), formatAge(90_000)]).toEqual(["59s", "1m 1s", "1h 1m", "1d 1h"])
          // A daemon that cannot reach a dependency says so first, with what waits for it.
          const down = renderStatus({
            ...report,
            unreachable: [{
              dependency: "pod",
              since: "2026-11-21T12:00:10.000Z",
              downSeconds: 90,
              failures: 31,
              waitingOrders: 75,
              lastError: "HTTP 503"
            }]
          }, "running daemon")
          expect(down.split("\n")[1]).toBe(
            "UNREACHABLE: the POD service since 2026-11-21T12:00:10.000Z (1m 30s, 31 failed attempts, 75 orders waiting): HTTP 503"
          )
          expect(text).not.toContain("UNREACHABLE")
          // Webhooks a store signs with another key: said first too, with what to set.
          const refused = renderStatus({
            ...report,
            webhookSignatures: [{
              storeKey: "acme",
              since: "2026-11-21T12:00:40.000Z",
              forSeconds: 60,
              refused: 4,
              detail: "signed with the key shown on that page"
            }]
          }, "running daemon")
          expect(refused.split("\n")[1]).toBe(
            "WEBHOOKS REFUSED: store acme since 2026-11-21T12:00:40.000Z (1m 0s, 4 deliveries): signed with the key shown on that page"
          )
        }))
    })

    describe("GET /metrics and GET /status", () => {
      it.effect("expose the same figures, read again at every scrape", () =>
        Effect.gen(function*() {
          yield* emptyTables
          const { ready } = yield* seed
          yield* at(600)
          const { url } = yield* Server
          const metrics = yield* get(`${url}/metrics`)
          expect(metrics.status).toBe(200)
          expect(metrics.type).toContain("text/plain")
          const text = metrics.text
          expectSamples(text, {
            'podsync_orders{store="acme",state="ready"}': 1,
            'podsync_orders{store="woo",state="failed"}': 1,
            'podsync_orders_needing_a_person{store="acme",state="held",reason="unmatched"}': 1,
            'podsync_orders_needing_a_person_oldest_age_seconds{store="woo",state="held",reason="address"}': 600,
            'podsync_queue_depth{stage="match"}': 1,
            'podsync_queue_depth{stage="draft"}': 1,
            'podsync_pipeline_lag_seconds{stage="draft"}': 540,
            'podsync_store_last_pull_age_seconds{store="acme"}': 570,
            'podsync_store_last_pull_age_seconds{store="woo"}': undefined
          })
          // Configured webhook sources are listed from the start, at 0.
          expectSamples(text, { 'podsync_webhook_deliveries_total{source="woo",outcome="rejected"}': 0 })
          expect(text).toContain("process_resident_memory_bytes")

          const status = yield* get(`${url}/status`)
          expect(status.status).toBe(200)
          const report = yield* Schema.decodeUnknown(StatusReport)(JSON.parse(status.text))
          expect(report.queues.find((q) => q.stage === "draft")).toEqual({ stage: "draft", due: 1, oldestAgeSeconds: 540 })
          expect(report.traffic?.webhooks).toContainEqual({ source: "pod", outcome: "accepted", count: 0 })
          expect(report.budget).toEqual({
            credential: "pod-test",
            limit: 95,
            windowSeconds: 10,
            inUse: 0,
            inFlight: 0,
            waiting: { urgent: 0, normal: 0, background: 0 },
            pausedUntil: null,
            sent: 0,
            rateLimited: 0
          })
          expectSamples(text, {
            'podsync_pod_budget_limit{credential="pod-test"}': 95,
            'podsync_pod_budget_waiting{credential="pod-test",lane="normal"}': 0
          })

          // The ready order is drafted: the next scrape no longer shows a ready order or a draft queue.
          yield* (yield* OrdersRepo).transition(ready, "ready", "drafted", { actor: "test", reason: "drafted", nextAttemptAt: null })
          yield* at(660)
          const again = (yield* get(`${url}/metrics`)).text
          expect(sample(again, 'podsync_orders{store="acme",state="ready"}')).toBeUndefined()
          expect(sample(again, 'podsync_orders{store="acme",state="drafted"}')).toBe(1)
          expect(sample(again, 'podsync_queue_depth{stage="draft"}')).toBe(0)
          expect(sample(again, 'podsync_pipeline_lag_seconds{stage="draft"}')).toBe(0)
          expect(sample(again, 'podsync_store_last_pull_age_seconds{store="acme"}')).toBe(630)
        }))

      it.effect("gives every daemon a registry of its own, so several run in one process", () =>
        Effect.gen(function*() {
          // A second daemon's metrics beside the first: on a shared registry it would fail ("already registered").
          const second = yield* Layer.build(ObservabilityLive(["acme"]).pipe(Layer.provide(Layer.succeed(StatusRepo, yield* StatusRepo))))
          yield* Context.get(second, WebhookMetrics).record("acme", "rejected")
          const rejected = (text: string) => sample(text, 'podsync_webhook_deliveries_total{source="acme",outcome="rejected"}')
          expect(rejected(yield* Context.get(second, MetricsRegistry).scrape)).toBe(1)
          expect(rejected(yield* (yield* MetricsRegistry).scrape)).toBe(0)
        }).pipe(Effect.scoped))
    })
  })
})
