/**
 * What a day's report tells a person without being opened, pure: one `report.drift` alert when the
 * report found drift, and the optional `report.summary` (alerts.dailySummary). Each is keyed by
 * the period, so writing the day's report again (the catch-up at start, `podsync report` for the
 * same day) never alerts twice. The link is a path under the daemon's address (the sender adds
 * alerts.linkBaseUrl): the HTML report in the console, or the console's list of reports.
 */
import type { ReconciliationReport, WrittenFile } from "./ReportOutput.js"
import type { ReportSummary } from "./ReportSummary.js"
import { summaryLine } from "./ReportSummary.js"

export interface ReportAlert {
  readonly dedupKey: string
  readonly kind: "report.drift" | "report.summary"
  readonly data: {
    readonly title: string
    readonly detail: string
    readonly action: string | null
    readonly link: string
    readonly period: string
  }
}

/** How many findings an alert lists one by one; the report has them all. */
const LISTED_FINDINGS = 5

const linkOf = (files: ReadonlyArray<WrittenFile>): string => {
  const page = files.find((f) => f.format === "html")
  return page === undefined ? "/console/reports" : `/console/reports/file/${encodeURIComponent(page.name)}`
}

export const reportAlerts = (
  report: ReconciliationReport,
  summary: ReportSummary,
  files: ReadonlyArray<WrittenFile>,
  options: { readonly dailySummary: boolean }
): ReadonlyArray<ReportAlert> => {
  const period = `${report.period.from}/${report.period.to}`
  const day = report.period.words
  const link = linkOf(files)
  const findings = report.drift.findings
  const drift: ReadonlyArray<ReportAlert> = findings.length === 0 ? [] : [{
    dedupKey: `report:drift:${period}`,
    kind: "report.drift",
    data: {
      title: `The report of ${day} found ${findings.length} drift finding${findings.length === 1 ? "" : "s"}`,
      detail: [
        ...findings.slice(0, LISTED_FINDINGS).map((f) => `${f.referenceId ?? f.storeKey ?? "podsync"}: ${f.summary}`),
        ...(findings.length > LISTED_FINDINGS ? [`… and ${findings.length - LISTED_FINDINGS} more in the report`] : []),
        ...(report.drift.complete ? [] : ["The drift ledger is incomplete: an API could not be read while the report was written."])
      ].join("\n"),
      action: findings.length === 1 && findings[0] !== undefined
        ? findings[0].action
        : "open the report's drift ledger: each finding says what shows it and what to do",
      link,
      period
    }
  }]
  const daily: ReadonlyArray<ReportAlert> = !options.dailySummary ? [] : [{
    dedupKey: `report:summary:${period}`,
    kind: "report.summary",
    data: {
      title: `${day}: ${summary.pulled} orders pulled, ${summary.needsAPerson} need a person, ${summary.findings} drift findings`,
      detail: summaryLine(summary),
      action: null,
      link,
      period
    }
  }]
  return [...drift, ...daily]
}
