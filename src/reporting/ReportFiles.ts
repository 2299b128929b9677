/**
 * Report files under `reports.dir`: rendered in each configured format and
 * written atomically (a temporary file renamed into place), so a reader never
 * sees half a report and writing the same period again simply replaces it.
 * The database keeps the same files (ReportsRepo.saveFiles), which is where
 * GET /reports/<name> and the console read them first: any replica serves any
 * report, whichever wrote it, with no volume shared between them.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Data, Effect, Option } from "effect"
import { reportCsv } from "../reports/ReportCsv.js"
import { reportHtml } from "../reports/ReportHtml.js"
import { rehearsalCsv, rehearsalHtml } from "../reports/RehearsalFormats.js"
import { type RehearsalReport, rehearsalStem } from "../reports/RehearsalReport.js"
import type { ReconciliationReport, ReportFormat, WrittenFile } from "../reports/ReportOutput.js"

export class ReportFilesError extends Data.TaggedError("ReportFilesError")<{ readonly dir: string; readonly cause: unknown }> {
  override get message(): string {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `cannot write the report under ${this.dir} (${reason}): check reports.dir and its permissions`
  }
}

/** Names the files a report may have; anything else is never served. */
export const REPORT_FILE_NAME = /^report-[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(html|csv|json)$/

export const CONTENT_TYPES: Record<ReportFormat, string> = {
  html: "text/html; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  json: "application/json; charset=utf-8"
}

export const renderReport = (report: ReconciliationReport, format: ReportFormat): string => {
  switch (format) {
    case "html":
      return reportHtml(report)
    case "csv":
      return reportCsv(report)
    case "json":
      return `${JSON.stringify(report, null, 2)}\n`
  }
}

const ORDER: ReadonlyArray<ReportFormat> = ["html", "csv", "json"]

/** A report file rendered, before it is written: what the database keeps too (`report_files`). */
export interface RenderedFile {
  readonly format: ReportFormat
  readonly name: string
  readonly body: string
}

/** The report in each configured format, in the order html, csv, json. */
export const renderReportFiles = (
  stem: string,
  report: ReconciliationReport,
  formats: ReadonlyArray<ReportFormat>
): ReadonlyArray<RenderedFile> =>
  ORDER.filter((f) => formats.includes(f)).map((format) => ({ format, name: `${stem}.${format}`, body: renderReport(report, format) }))

export const renderRehearsal = (report: RehearsalReport, format: ReportFormat): string => {
  switch (format) {
    case "html":
      return rehearsalHtml(report)
    case "csv":
      return rehearsalCsv(report)
    case "json":
      return `${JSON.stringify(report, null, 2)}\n`
  }
}

/** A rehearsal's report files, next to the reconciliation reports (served and listed like them). */
export const writeRehearsalFiles = (dir: string, report: RehearsalReport, formats: ReadonlyArray<ReportFormat>) => {
  const stem = rehearsalStem(report.storeKey, report.generatedAt)
  return writeRenderedFiles(
    dir,
    ORDER.filter((f) => formats.includes(f)).map((format) => ({ format, name: `${stem}.${format}`, body: renderRehearsal(report, format) }))
  )
}

/** Writes one file per format, each atomically (a temporary file renamed into place). */
export const writeRenderedFiles = (dir: string, rendered: ReadonlyArray<RenderedFile>) =>
  Effect.tryPromise({
    try: async () => {
      await fs.mkdir(dir, { recursive: true })
      const written: Array<WrittenFile> = []
      for (const { format, name, body } of rendered) {
        const target = path.join(dir, name)
        const temporary = path.join(dir, `.${name}.${process.pid}.tmp`)
        await fs.writeFile(temporary, body, "utf8")
        await fs.rename(temporary, target)
        written.push({ format, name, path: path.resolve(target) })
      }
      return written as ReadonlyArray<WrittenFile>
    },
    catch: (cause) => new ReportFilesError({ dir, cause })
  })

export const writeReportFiles = (dir: string, stem: string, report: ReconciliationReport, formats: ReadonlyArray<ReportFormat>) =>
  writeRenderedFiles(dir, renderReportFiles(stem, report, formats))

/** The format of a report file's name, if it is a report file's name (a plain name, no folder). */
export const reportFileFormat = (name: string): Option.Option<ReportFormat> => {
  const match = REPORT_FILE_NAME.exec(name)
  return match === null || path.basename(name) !== name ? Option.none() : Option.some(match[1] as ReportFormat)
}

/** A report file by name, if it is one and it exists under `dir`. */
export const readReportFile = (dir: string, name: string) =>
  Effect.gen(function*() {
    const format = reportFileFormat(name)
    if (Option.isNone(format)) return Option.none()
    const body = yield* Effect.tryPromise(() => fs.readFile(path.join(dir, name))).pipe(Effect.option)
    return Option.map(body, (bytes) => ({ format: format.value, contentType: CONTENT_TYPES[format.value], bytes: new Uint8Array(bytes) }))
  })
