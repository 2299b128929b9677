/**
 * The report job: gather → build → write the files → record the run and keep
 * the files in the database (any replica serves them) → one log line. Idempotent per period and store: the `reports` row is upserted and
 * the files are replaced. One report at a time per process, so the cron job
 * and a `podsync report` answered by the daemon never write the same files at
 * once; across replicas the scheduler runs each tick once.
 *
 * Layer: `ReportService.Default(reportServiceConfigOf(config))`, needing
 * `Db`, `PodClient` and `StoreConnectors`.
 */
import { Clock, Data, Effect, Option, Schema } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import type { PodClient } from "../pod/PodClient.js"
import { ReportsRepo } from "./ReportsRepo.js"
import type { StoreConnectors } from "../stores/StoreConnector.js"
import { buildReport } from "../reports/ReportBuilder.js"
import { CONTENT_TYPES, readReportFile, renderReportFiles, reportFileFormat, writeRenderedFiles } from "./ReportFiles.js"
import { type ReportFormat } from "../reports/ReportOutput.js"
import { DEFAULT_REPORT_SETTINGS, type ReportPeriod, type ReportSettings, type ReportStore } from "../reports/ReportInput.js"
import { periodFromFlags, previousDay, reportFileStem } from "../reports/ReportPeriod.js"
import { gatherReportInput } from "./ReportSources.js"
import { AlertsRepo } from "../repos/AlertsRepo.js"
import { Db } from "../db/Db.js"
import { reportAlerts } from "../reports/ReportAlerts.js"
import { ReportSummary, summarize, summaryLine } from "../reports/ReportSummary.js"

export interface ReportServiceConfig {
  readonly dir: string
  readonly formats: ReadonlyArray<ReportFormat>
  readonly timezone: string
  readonly stores: ReadonlyArray<ReportStore>
  readonly settings: ReportSettings
  /** The day's report also sends a short summary as an alert (alerts.dailySummary). */
  readonly dailySummary?: boolean
}

/**
 * The service's settings from the configuration (`reports:` and `stores:`), so the daemon, `podsync report`
 * and the demo write the same report; `settings` overrides them (tests).
 */
export const reportServiceConfigOf = (config: AppConfig, settings: Partial<ReportSettings> = {}): ReportServiceConfig => ({
  dir: config.reports.dir,
  formats: config.reports.formats,
  timezone: config.reports.timezone,
  stores: config.stores.map((s) => ({
    key: s.key,
    name: config.reports.storeNames[s.key] ?? s.key,
    podStoreId: s.podStoreId,
    eligibleFinancialStatuses: s.eligible.financialStatuses
  })),
  settings: {
    ...DEFAULT_REPORT_SETTINGS,
    noDraftAfterMinutes: config.reports.noDraftAfterMinutes,
    notCheckedOutAfterHours: config.reports.notCheckedOutAfterHours,
    exchangeRates: config.reports.exchangeRates ?? null,
    ...settings
  },
  dailySummary: config.alerts?.dailySummary ?? false
})

export class UnknownReportStoreError extends Data.TaggedError("UnknownReportStoreError")<{
  readonly storeKey: string
  readonly known: ReadonlyArray<string>
}> {
  override get message(): string {
    return `no store "${this.storeKey}" in the configuration (stores: ${this.known.join(", ") || "none"})`
  }
}

/** What a report request may say; every field optional (no period: the previous day). */
export interface ReportRequest {
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly store?: string | undefined
}

/** A listed report: the row of the `reports` table, files by name (served at GET /reports/<name>). */
export interface ListedReport {
  readonly from: string
  readonly to: string
  readonly store: string | null
  readonly createdAt: string
  readonly summary: ReportSummary | null
}

const decodeSummary = Schema.decodeUnknownOption(ReportSummary)

export class ReportService extends Effect.Service<ReportService>()("podsync/ReportService", {
  effect: (config: ReportServiceConfig) =>
    Effect.gen(function*() {
      const repo = yield* ReportsRepo
      const db = yield* Db
      const alerts = yield* AlertsRepo
      const context = yield* Effect.context<PodClient | StoreConnectors | ReportsRepo>()
      const oneAtATime = yield* Effect.makeSemaphore(1)
      const configuredStoreKeys = config.stores.map((s) => s.key)

      /** The previous day in reports.timezone, every store: what the cron job writes. */
      const previousDayPeriod = Effect.flatMap(Clock.currentTimeMillis, (now) => previousDay(now, config.timezone))

      const runFor = (period: ReportPeriod, store: string | null) =>
        oneAtATime.withPermits(1)(Effect.gen(function*() {
          const stores = store === null ? config.stores : config.stores.filter((s) => s.key === store)
          if (store !== null && stores.length === 0) {
            return yield* new UnknownReportStoreError({ storeKey: store, known: configuredStoreKeys })
          }
          const input = yield* gatherReportInput({ period, stores, store, configuredStoreKeys, settings: config.settings })
          const report = buildReport(input)
          const rendered = renderReportFiles(reportFileStem(period, store), report, config.formats)
          const files = yield* writeRenderedFiles(config.dir, rendered)
          const summary = summarize(report, files)
          // The day's report of every store (the cron job's, its catch-up at start, or `podsync report`
          // for yesterday) tells a person of its drift, in the transaction that records it: a crash
          // before the commit leaves neither, and the catch-up writes both.
          const yesterday = yield* previousDayPeriod
          const announced = store === null && period.from === yesterday.from && period.to === yesterday.to
            ? reportAlerts(report, summary, files, { dailySummary: config.dailySummary ?? false })
            : []
          yield* db.transaction(Effect.zipRight(
            Effect.zipRight(
              repo.save({ periodFrom: new Date(period.from), periodTo: new Date(period.to), storeKey: store ?? "", files, summary }),
              repo.saveFiles(rendered)
            ),
            alerts.recordOnce(announced)
          ))
          yield* Effect.logInfo(summaryLine(summary)).pipe(Effect.annotateLogs({
            report: summary.label,
            store: store ?? "all",
            needsAPerson: summary.needsAPerson,
            findings: summary.findings,
            dir: config.dir
          }))
          return { report, summary }
        })).pipe(Effect.provide(context), Effect.withSpan("reports.run"))

      /** `podsync report [--from --to] [--store KEY]`: the period from the flags, in reports.timezone. */
      const run = (request: ReportRequest) =>
        Effect.gen(function*() {
          const period = yield* periodFromFlags(request, yield* Clock.currentTimeMillis, config.timezone)
          return yield* runFor(period, request.store ?? null)
        })

      const runPreviousDay = Effect.flatMap(previousDayPeriod, (period) => runFor(period, null))

      const list = repo.list().pipe(Effect.map((rows) =>
        rows.map((row): ListedReport => ({
          from: row.periodFrom.toISOString(),
          to: row.periodTo.toISOString(),
          store: row.storeKey === "" ? null : row.storeKey,
          createdAt: row.createdAt.toISOString(),
          summary: Option.getOrNull(decodeSummary(row.summary))
        }))
      ))

      const written = (period: ReportPeriod, store: string | null) => repo.find(new Date(period.from), new Date(period.to), store ?? "")

      /**
       * A report file by name: as the database keeps it, so any replica serves any report;
       * else under reports.dir (a report written before the database kept them).
       */
      const file = (name: string) =>
        Effect.gen(function*() {
          if (Option.isNone(reportFileFormat(name))) return Option.none()
          const kept = yield* repo.file(name)
          if (Option.isSome(kept)) {
            const { format, body } = kept.value
            return Option.some({ format, contentType: CONTENT_TYPES[format], bytes: new TextEncoder().encode(body) })
          }
          return yield* readReportFile(config.dir, name)
        })

      return {
        run,
        runFor,
        runPreviousDay,
        previousDayPeriod,
        list,
        written,
        file,
        config
      }
    }),
  dependencies: [ReportsRepo.Default, AlertsRepo.Default]
}) {}
