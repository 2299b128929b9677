import { Clock, Effect } from "effect"
import type { RehearsalRun } from "../domain/Rehearsal.js"
import type { ExchangeRateTable } from "../reports/ExchangeRates.js"
import { buildRehearsalReport, type RehearsalReport } from "../reports/RehearsalReport.js"
import type { ReportFormat, WrittenFile } from "../reports/ReportOutput.js"
import { writeRehearsalFiles } from "./ReportFiles.js"

/** Where and how a rehearsal's report is written: `reports.dir`, `reports.formats`, `reports.exchangeRates`. */
export interface RehearsalReportSettings {
  readonly dir: string
  readonly formats: ReadonlyArray<ReportFormat>
  readonly rates: ExchangeRateTable | null
}

/** What a finished rehearsal hands back: its report and the files written. */
export interface RehearsalResult {
  readonly report: RehearsalReport
  readonly files: ReadonlyArray<WrittenFile>
}

/** Runs a rehearsal (the pipeline's `rehearseStore`, given by the caller) and writes its report files under reports.dir. */
export const reportRehearsal = <E, R>(run: Effect.Effect<RehearsalRun, E, R>, settings: RehearsalReportSettings) =>
  Effect.gen(function*() {
    const found = yield* run
    const now = yield* Clock.currentTimeMillis
    const report = buildRehearsalReport(found, new Date(now).toISOString(), settings.rates)
    const files = yield* writeRehearsalFiles(settings.dir, report, settings.formats)
    return { report, files } satisfies RehearsalResult
  })

/** The figures `podsync rehearse` prints and the daemon answers it with. */
export const rehearsalSummary = ({ files, report }: RehearsalResult) => ({
  storeKey: report.storeKey,
  days: report.days,
  counts: report.counts,
  states: report.states,
  held: report.held.map((g) => ({ reason: g.reason, orders: g.orders, example: g.example })),
  skipped: report.skipped.map((g) => ({ reason: g.reason, orders: g.orders })),
  toMap: report.toMap,
  podCost: report.money.podCost.map((m) => m.toJSON()),
  paid: report.money.paid.map((m) => m.toJSON()),
  margin: report.money.margin.map((m) => m.toJSON()),
  economyAsStandard: report.economyAsStandard.length,
  warnings: report.warnings.length,
  api: report.api,
  files: files.map((f) => ({ format: f.format, name: f.name, path: f.path }))
})
export type RehearsalSummary = ReturnType<typeof rehearsalSummary>
