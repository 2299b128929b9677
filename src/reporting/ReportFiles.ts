/**
 * Report files under `reports.dir`: rendered in each configured format and
 * written atomically (a temporary file renamed into place), so a reader never
 * sees half a report and writing the same period again simply replaces it.
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

export const writeReportFiles = (dir: string, stem: string, report: ReconciliationReport, formats: ReadonlyArray<ReportFormat>) =>
  writeRenderedFiles(dir, stem, (format) => renderReport(report, format), formats)

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
export const writeRehearsalFiles = (dir: string, report: RehearsalReport, formats: ReadonlyArray<ReportFormat>) =>
  writeRenderedFiles(dir, rehearsalStem(report.storeKey, report.generatedAt), (format) => renderRehearsal(report, format), formats)

/** Writes one file per format, each atomically (a temporary file renamed into place). */
const writeRenderedFiles = (dir: string, stem: string, render: (format: ReportFormat) => string, formats: ReadonlyArray<ReportFormat>) =>
  Effect.tryPromise({
    try: async () => {
      await fs.mkdir(dir, { recursive: true })
      const written: Array<WrittenFile> = []
      for (const format of ORDER.filter((f) => formats.includes(f))) {
        const name = `${stem}.${format}`
        const target = path.join(dir, name)
        const temporary = path.join(dir, `.${name}.${process.pid}.tmp`)
        await fs.writeFile(temporary, render(format), "utf8")
        await fs.rename(temporary, target)
        written.push({ format, name, path: path.resolve(target) })
      }
      return written as ReadonlyArray<WrittenFile>
    },
    catch: (cause) => new ReportFilesError({ dir, cause })
  })

/** A report file by name, if it is one and it exists. */
export const readReportFile = (dir: string, name: string) =>
  Effect.gen(function*() {
    const match = REPORT_FILE_NAME.exec(name)
    if (match === null || path.basename(name) !== name) return Option.none()
    const format = match[1] as ReportFormat
    const body = yield* Effect.tryPromise(() => fs.readFile(path.join(dir, name))).pipe(Effect.option)
    return Option.map(body, (bytes) => ({ format, contentType: CONTENT_TYPES[format], bytes: new Uint8Array(bytes) }))
  })
