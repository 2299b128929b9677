/**
 * A day's report tells a person of its drift (and, when configured, of the day) through the alert
 * outbox: once per period, written with the report's row, with a link to the report in the
 * console. Against the report's integration scene (simulators over real HTTP, PGlite).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { messageOf } from "../../src/alerts/AlertMessages.js"
import { Db } from "../../src/db/Db.js"
import { reportAlerts } from "../../src/reports/ReportAlerts.js"
import { AlertsRepo } from "../../src/repos/AlertsRepo.js"
import { atReportTime, ReportStackLive } from "../reports/seededStack.js"

const iso = (ms: number) => new Date(ms).toISOString()

/** The report alerts in the outbox (the seeded day's held order has its own alert). */
const outbox = Effect.flatMap(
  Db,
  (db) =>
    db.use((k) =>
      k.selectFrom("alert_outbox").select(["id", "dedup_key", "kind", "data", "created_at"]).where("kind", "like", "report.%").orderBy(
        "id"
      ).execute()
    )
)

const stack = Layer.provideMerge(AlertsRepo.Default, ReportStackLive)

describe("the day's report as an alert", () => {
  it.effect(
    "alerts the day's drift once, with its findings and the report's link, however often the day is written",
    () =>
      Effect.gen(function*() {
        const { day, reports } = yield* atReportTime
        // Another period, and one store's report of the day: no alert.
        yield* reports.run({ from: iso(day.from - 86_400_000), to: iso(day.from) })
        yield* reports.run({ from: iso(day.from), to: iso(day.to), store: "shop" })
        expect(yield* outbox).toEqual([])

        const first = yield* reports.runPreviousDay
        const { from, to } = first.report.period
        const findings = first.summary.findings
        expect(findings).toBeGreaterThan(1)
        // The same day written again (by hand, an hour later): the alert stays one.
        yield* TestClock.adjust("1 hour")
        yield* reports.run({ from, to })
        const rows = yield* outbox
        expect(rows.map((r) => [r.kind, r.dedup_key])).toEqual([["report.drift", `report:drift:${from}/${to}`]])

        const alerts = yield* AlertsRepo
        yield* alerts.routeUnrouted((alert) => (alert.kind === "report.drift" ? ["ops"] : []))
        const [pending, ...others] = yield* alerts.pendingOn("ops")
        expect(others).toEqual([])
        const message = messageOf([pending!.alert], "https://podsync.acme.example/")
        const html = first.summary.files.find((f) => f.format === "html")!.name
        expect(message.subject).toBe(`podsync: The report of ${first.report.period.words} found ${findings} drift findings`)
        expect(message.alerts[0]).toMatchObject({
          kind: "report.drift",
          link: `https://podsync.acme.example/console/reports/file/${encodeURIComponent(html)}`,
          action: "open the report's drift ledger: each finding says what shows it and what to do"
        })
        // Each finding's own words, as the report's drift ledger says them.
        for (const finding of first.report.drift.findings) expect(message.text).toContain(finding.summary)
        expect(message.text).toContain(`Report: https://podsync.acme.example/console/reports/file/`)
      }).pipe(Effect.provide(stack)),
    40_000
  )

  it("says the day in a few lines when alerts.dailySummary is on, and nothing of drift on a day without any", () => {
    const report = {
      period: { from: "2026-11-20T00:00:00.000Z", to: "2026-11-21T00:00:00.000Z", words: "Friday 20 November 2026" },
      drift: { complete: true, findings: [] }
    } as unknown as Parameters<typeof reportAlerts>[0]
    const summary = {
      label: "20261120",
      from: "2026-11-20T00:00:00.000Z",
      to: "2026-11-21T00:00:00.000Z",
      timezone: "UTC",
      store: null,
      generatedAt: "2026-11-21T06:00:00.000Z",
      pulled: 12,
      needsAPerson: 1,
      findings: 0,
      findingsByKind: {},
      driftComplete: true,
      margins: [],
      files: []
    }
    expect(reportAlerts(report, summary, [], { dailySummary: false })).toEqual([])
    const [daily] = reportAlerts(report, summary, [], { dailySummary: true })
    expect(daily).toMatchObject({
      kind: "report.summary",
      dedupKey: "report:summary:2026-11-20T00:00:00.000Z/2026-11-21T00:00:00.000Z",
      data: {
        title: "Friday 20 November 2026: 12 orders pulled, 1 need a person, 0 drift findings",
        link: "/console/reports"
      }
    })
    expect(daily!.data.detail).toContain("report 20261120 (all stores, UTC): 12 orders pulled; 1 need a person; 0 drift findings")
  })
})
