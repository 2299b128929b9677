import * as fs from "node:fs"
import { parse } from "csv-parse/sync"
import { createServer } from "node:http"
import { HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, TestClock, TestServices } from "effect"
import * as Money from "../../src/domain/Money.js"
import { ReportRoutes } from "../../src/http/ReportRoutes.js"
import { catchUpPreviousDay, ReportScheduleLive } from "../../src/reporting/ReportSchedule.js"
import { makeRunCoordinator } from "../../src/schedule/RunCoordinator.js"
import { ReportsRepo } from "../../src/reporting/ReportsRepo.js"
import { pgliteDatabase } from "../support/database.js"
import { sharedDatabase } from "../support/sharedDatabase.js"
import { atReportTime, podOrderTotal, reportStackOn, SceneTag, seedDay } from "./seededStack.js"

const iso = (ms: number) => new Date(ms).toISOString()
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))

describe("the report job against the simulators", () => {
  // New simulators for each test (each seeds its own day), one database for all, emptied as each test starts.
  const database = sharedDatabase(pgliteDatabase())

  it.effect(
    "writes the seeded day's report with exactly the expected figures and findings, reading the APIs in batches in the background lane",
    () =>
      Effect.gen(function*() {
        const scene = yield* SceneTag
        const { day, reports } = yield* atReportTime
        scene.podRequests.length = 0
        const { report, summary } = yield* reports.run({ from: iso(day.from), to: iso(day.to) })
        const ref = (key: keyof typeof day.ids) => `shop:${day.ids[key]}`

        expect(report.overall.flow).toEqual({
          storeOrdersCreated: 6,
          pulled: 6,
          held: 1,
          drafted: 3,
          checkedOut: 2,
          inProduction: 1,
          shipped: 1,
          fulfilled: 1,
          cancelled: 1,
          timings: {
            pullToDraft: { count: 3, p50Seconds: 600, p95Seconds: 900 }, // 10, 15 and 10 minutes
            draftToShipped: { count: 1, p50Seconds: 10_800, p95Seconds: 10_800 },
            shippedToFulfilled: { count: 1, p50Seconds: 900, p95Seconds: 900 }
          }
        })

        expect(report.needsAPerson.held).toEqual([expect.objectContaining({
          storeKey: "shop",
          reason: "unmatched",
          count: 1,
          oldestAgeHours: 28.3,
          referenceIds: [ref("held")]
        })])
        expect(report.needsAPerson.notCheckedOut.map((i) => [i.referenceId, i.ageHours])).toEqual([[ref("duplicate"), 29.2]])
        expect(report.overall.needsAPerson).toBe(2)

        expect(report.drift.complete).toBe(true)
        expect(report.drift.findings.map((f) => [f.kind, f.referenceId])).toEqual([
          ["missing_draft", ref("noDraft")],
          ["orphan_at_pod", "shop:999999999"],
          ["duplicate_at_pod", ref("duplicate")],
          ["shipped_not_fulfilled", ref("shippedUnfulfilled")]
        ])
        const [, orphan, duplicate, shipped] = report.drift.findings
        expect(orphan!.evidence).toMatchObject({ store: "the store has no such order", drafts: [{ id: day.drafts.orphan }] })
        expect(duplicate!.evidence).toMatchObject({ followedDraft: day.drafts.duplicateKept })
        expect(duplicate!.action).toContain(`delete draft ${day.drafts.duplicateSpare} at the POD service`)
        expect(shipped!.evidence).toMatchObject({
          pod: { id: day.podOrders.shippedUnfulfilled, status: "shipped" },
          store: { fulfillmentStatus: "unfulfilled" },
          unfulfilledLines: ["UTS01-FOREST-S × 1"],
          podsync: { state: "checked_out" }
        })

        // Revenue: 2 × 24.00 + 5.00 and 1 × 24.00 + 5.00; cost: what the POD service bills for the two orders.
        const cost = Money.fromNanos(
          "USD",
          (yield* podOrderTotal(scene, day.podOrders.fulfilled)).totalNanos +
            (yield* podOrderTotal(scene, day.podOrders.shippedUnfulfilled)).totalNanos
        )
        const [money] = report.money.stores
        expect(money).toMatchObject({ storeKey: "shop", currency: "USD", orders: 2 })
        expect(String(money!.revenue)).toBe("82 USD")
        expect(Money.equals(money!.podCost, cost)).toBe(true)
        expect(Money.equals(money!.margin, Either.getOrThrow(Money.subtract(money!.revenue, cost)))).toBe(true)
        expect(money!.bySku.map((s) => [s.sku, s.units, String(s.revenue)])).toEqual([["UTS01-FOREST-S", 3, "82 USD"]])

        // Four list calls in all, every one in the background lane: created since the day began, then the day's reference ids in one batch.
        expect(scene.podRequests.map((r) => [r.operation, r.lane])).toEqual([
          ["drafts.list", "background"],
          ["orders.list", "background"],
          ["drafts.list", "background"],
          ["orders.list", "background"]
        ])

        const label = report.period.label
        expect(summary.files.map((f) => f.name)).toEqual([`report-${label}.html`, `report-${label}.csv`, `report-${label}.json`])
        const json = readJson(summary.files.find((f) => f.format === "json")!.path)
        expect(json.money.stores[0].revenue).toEqual({ currency: "USD", amount: "82" })
        expect(json.drift.findings).toHaveLength(4)
        const csv = parse(fs.readFileSync(summary.files.find((f) => f.format === "csv")!.path, "utf8"), { columns: true }) as Array<
          Record<string, string>
        >
        const sections = csv.map((r) => r.section)
        expect(sections.filter((s) => s === "needs_a_person")).toHaveLength(2)
        expect(sections.filter((s) => s === "drift")).toHaveLength(4)
        // The two orders with a POD order, their one SKU, the one package podsync saw shipped.
        expect(csv.filter((r) => r.section === "money_order").map((r) => [r.reference_id, r.currency, r.revenue])).toEqual([
          [ref("fulfilled"), "USD", "53.00"],
          [ref("shippedUnfulfilled"), "USD", "29.00"]
        ].sort((a, b) => a[0]!.localeCompare(b[0]!)))
        expect(csv.filter((r) => r.section === "money_sku").map((r) => [r.sku, r.units, r.revenue])).toEqual([[
          "UTS01-FOREST-S",
          "3",
          "82.00"
        ]])
        expect(csv.filter((r) => r.section === "shipped").map((r) => [r.reference_id, r.pod_order_id])).toEqual([
          [ref("fulfilled"), day.podOrders.fulfilled]
        ])
      }).pipe(Effect.provide(reportStackOn(database.layer))),
    40_000
  )

  it.effect("is idempotent per period: a second run replaces the files and the row, it adds nothing", () =>
    Effect.gen(function*() {
      const { day, reports } = yield* atReportTime
      const repo = yield* ReportsRepo
      const first = yield* reports.run({ from: iso(day.from), to: iso(day.to) })
      const files = first.summary.files.map((f) => fs.readFileSync(f.path, "utf8"))
      yield* TestClock.adjust("1 hour")
      const second = yield* reports.run({ from: iso(day.from), to: iso(day.to) })
      expect(second.summary.files.map((f) => f.path)).toEqual(first.summary.files.map((f) => f.path))
      expect(second.summary.generatedAt).toBe(iso(day.reportAt + 3_600_000))
      const rows = yield* repo.list()
      expect(rows).toHaveLength(1)
      expect(rows[0]!.summary).toMatchObject({ generatedAt: second.summary.generatedAt, findings: 4, needsAPerson: 2 })
      // Same figures, one hour older.
      expect(second.report.drift.findings.map((f) => f.summary)).toEqual(first.report.drift.findings.map((f) => f.summary))
      expect(fs.readFileSync(second.summary.files[2]!.path, "utf8")).not.toBe(files[2])
      const dirEntries = fs.readdirSync((yield* SceneTag).dir).filter((f) => f.startsWith("report-"))
      expect(dirEntries.sort()).toEqual(first.summary.files.map((f) => f.name).sort())
      // A report for one store is its own row.
      yield* reports.run({ from: iso(day.from), to: iso(day.to), store: "shop" })
      expect((yield* repo.list()).map((r) => r.storeKey).sort()).toEqual(["", "shop"])
    }).pipe(Effect.provide(reportStackOn(database.layer))), 40_000)

  it.effect(
    "writes the previous day's missing report once, a minute after the daemon starts, on one replica",
    () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.parse("2026-11-21T09:00:00Z"))
        const repo = yield* ReportsRepo
        const written = (from: string) => Effect.map(repo.list(), (rows) => rows.some((r) => r.periodFrom.toISOString() === from))
        // The schedule layer as the daemon runs it: a real cron expression (not due in this test), and the catch-up.
        yield* Layer.build(ReportScheduleLive({ expression: "0 6 * * *", timezone: "UTC", owner: "replica-a" }))
        yield* TestClock.adjust("59 seconds")
        expect(yield* written("2026-11-20T00:00:00.000Z")).toBe(false)
        yield* TestClock.adjust("1 second")
        // The catch-up now reads the simulators over real HTTP: wait for it in real time, and let the test
        // clock follow (a read that times out on a starved machine is retried after a pause it measures).
        const deadline = Date.now() + 150_000
        while (Date.now() < deadline && !(yield* written("2026-11-20T00:00:00.000Z"))) {
          yield* TestServices.provideLive(Effect.sleep("100 millis"))
          yield* TestClock.adjust("100 millis")
        }
        expect(yield* written("2026-11-20T00:00:00.000Z")).toBe(true)
        expect(yield* catchUpPreviousDay("replica-b")).toBe("already_written")

        // The next day another replica has claimed the catch-up and is writing it: this one leaves it alone.
        yield* TestClock.setTime(Date.parse("2026-11-22T09:00:00Z"))
        const other = yield* makeRunCoordinator("replica-b")
        expect(yield* other.claim("report-catch-up", new Date("2026-11-21T00:00:00Z"))).toBe(true)
        expect(yield* catchUpPreviousDay("replica-a")).toBe("claimed_elsewhere")
        expect(yield* written("2026-11-21T00:00:00.000Z")).toBe(false)
      }).pipe(Effect.scoped, Effect.provide(reportStackOn(database.layer))),
    // Its body runs in about 0.4 s alone but has taken 20–30 s on a loaded 2-core machine, and more than 90 s
    // on one whose every page fault was slow (the catch-up reads the simulators over real HTTP): room enough
    // not to fail for load.
    180_000
  )

  it.effect("lists and serves the reports at GET /reports, and writes one at POST /reports/run", () =>
    Effect.gen(function*() {
      const day = yield* seedDay
      yield* TestClock.setTime(day.reportAt)
      const server = yield* Layer.build(HttpRouter.empty.pipe(
        HttpRouter.concat(ReportRoutes),
        HttpServer.serve(),
        HttpServer.withLogAddress,
        Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { host: "127.0.0.1", port: 0 }))
      ))
      const address = server.unsafeMap.get(HttpServer.HttpServer.key) as HttpServer.HttpServer
      const base = address.address._tag === "TcpAddress" ? `http://127.0.0.1:${address.address.port}` : ""
      const fetchJson = (path: string, init?: RequestInit) =>
        Effect.promise(async () => {
          const response = await fetch(`${base}${path}`, init)
          return {
            status: response.status,
            type: response.headers.get("content-type"),
            csp: response.headers.get("content-security-policy"),
            body: await response.text()
          }
        })

      const run = yield* fetchJson(`/reports/run?from=${iso(day.from)}&to=${iso(day.to)}`, { method: "POST" })
      expect(run.status).toBe(200)
      const { summary } = JSON.parse(run.body)
      expect(summary).toMatchObject({ pulled: 6, needsAPerson: 2, findings: 4, driftComplete: true })

      const listed = JSON.parse((yield* fetchJson("/reports")).body)
      expect(listed.reports).toHaveLength(1)
      expect(listed.reports[0].files.map((f: { url: string }) => f.url)).toEqual(
        summary.files.map((f: { name: string }) => `/reports/${f.name}`)
      )

      const html = yield* fetchJson(listed.reports[0].files[0].url)
      expect(html).toMatchObject({ status: 200, type: "text/html; charset=utf-8" })
      expect(html.csp).toContain("default-src 'none'")
      expect(html.body).toContain('<svg class="chart"')
      // Another replica has its own, empty reports.dir: it serves the same files from the database.
      const scene = yield* SceneTag
      for (const name of fs.readdirSync(scene.dir)) fs.rmSync(`${scene.dir}/${name}`)
      for (const file of listed.reports[0].files as ReadonlyArray<{ url: string; format: string }>) {
        const served = yield* fetchJson(file.url)
        expect(served.status, file.url).toBe(200)
        if (file.format === "html") expect(served.body).toBe(html.body)
        if (file.format === "json") expect(JSON.parse(served.body).overall.flow.pulled).toBe(6)
      }
      expect((yield* fetchJson("/reports/..%2F..%2Fetc%2Fpasswd")).status).toBe(404)
      expect((yield* fetchJson("/reports/report-1999-01-01.json")).status).toBe(404)
      const refused = yield* fetchJson("/reports/run?from=yesterday", { method: "POST" })
      expect(refused.status).toBe(400)
      expect(JSON.parse(refused.body).error).toContain("expected a date")
      expect((yield* fetchJson("/reports/run?store=nope", { method: "POST" })).status).toBe(404)
    }).pipe(Effect.scoped, Effect.provide(reportStackOn(database.layer))), 40_000)
})
