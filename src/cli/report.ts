import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Clock, Console, Effect, Either, Layer, Option, Schema } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { migrateToLatest } from "../db/Migrator.js"
import { ExternalApisLive } from "../app/CommandLive.js"
import { type ReportRequest, ReportService, reportServiceConfigOf } from "../reporting/ReportService.js"
import { ReportSummary, summaryLine } from "../reports/ReportSummary.js"
import { askEmbeddedDaemon, CliFailure, configOption, daemonUrl, storeNamed, UsageError, withConfig } from "./AppRuntime.js"
import { periodFromFlags } from "../reports/ReportPeriod.js"
import { dbLayer } from "../app/DatabaseLive.js"

const text = (name: string, pseudoName: string, description: string) =>
  Options.text(name).pipe(Options.withPseudoName(pseudoName), Options.withDescription(description), Options.optional)

/** A report reads several APIs: the daemon may take minutes to answer. */
const DAEMON_REPORT_TIMEOUT = "10 minutes"

/**
 * A daemon on the embedded database holds it alone: it writes the report.
 * `None` when no daemon answers (the command then opens the database itself).
 */
const askDaemon = (app: AppConfig, request: ReportRequest) => {
  const params = new URLSearchParams(Object.entries(request).filter((e): e is [string, string] => e[1] !== undefined))
  const path = `/reports/run${params.size > 0 ? `?${params}` : ""}`
  return askEmbeddedDaemon(
    app,
    HttpClientRequest.post(daemonUrl(app, path)),
    Schema.Struct({ summary: ReportSummary }),
    DAEMON_REPORT_TIMEOUT
  ).pipe(
    Effect.map(Option.map((answer) => answer.summary))
  )
}

/** Writes the report in this process, on the configured database (the rate budget is shared with any daemon). */
const writeHere = (app: AppConfig, request: ReportRequest) =>
  Effect.zipRight(migrateToLatest, Effect.flatMap(ReportService, (reports) => reports.run(request))).pipe(
    Effect.map(({ summary }) => summary),
    Effect.provide(
      ReportService.Default(reportServiceConfigOf(app)).pipe(
        Layer.provideMerge(ExternalApisLive(app)),
        Layer.provideMerge(NodeHttpClient.layerUndici),
        Layer.provideMerge(dbLayer(app))
      )
    ),
    Effect.catchTags({
      ReportPeriodError: (error) => Effect.fail(new UsageError({ message: error.message })),
      UnknownReportStoreError: (error) => Effect.fail(new CliFailure({ message: error.message })),
      ReportFilesError: (error) => Effect.fail(new CliFailure({ message: error.message }))
    })
  )

export const renderSummary = (summary: ReportSummary, source: string): string =>
  [`${summaryLine(summary)} (${source})`, ...summary.files.map((f) => `  ${f.path}`)].join("\n")

/**
 * `podsync report [--from D] [--to D] [--store KEY]`: writes the
 * reconciliation report of a period (default: the previous day in
 * reports.timezone) under reports.dir and prints its summary and files.
 */
export const reportCommand = Command.make(
  "report",
  {
    config: configOption,
    from: text(
      "from",
      "D",
      "start of the period: a date (its midnight in reports.timezone) or an ISO-8601 date-time (default: the previous day)"
    ),
    to: text(
      "to",
      "D",
      "end of the period: a date (included, to its end) or an ISO-8601 date-time (excluded); default now when --from is given"
    ),
    store: text("store", "KEY", "only this store (its key; default: every store)")
  },
  ({ config, from, store, to }) =>
    withConfig(config, (app) =>
      Effect.gen(function*() {
        const request: ReportRequest = {
          from: Option.getOrUndefined(from),
          to: Option.getOrUndefined(to),
          store: Option.getOrUndefined(store)
        }
        if (request.store !== undefined) yield* storeNamed(app, request.store)
        // A period podsync cannot read is a usage mistake, said here before any daemon is asked.
        const period = periodFromFlags(request, yield* Clock.currentTimeMillis, app.reports.timezone)
        if (Either.isLeft(period)) {
          const { message } = period.left
          return yield* message.startsWith("reports.timezone") ? new CliFailure({ message }) : new UsageError({ message })
        }
        const fromDaemon = yield* askDaemon(app, request)
        const summary = Option.isSome(fromDaemon) ? fromDaemon.value : yield* writeHere(app, request)
        yield* Console.log(renderSummary(summary, Option.isSome(fromDaemon) ? "written by the running daemon" : "written here"))
      }))
).pipe(Command.withDescription("Write the reconciliation report of a period (default: yesterday) under reports.dir"))
