/**
 * The short form of a report: kept in the `reports` row, answered by
 * GET /reports and POST /reports/run, printed by `podsync report`, and
 * written as the one log line of a run.
 */
import { Schema } from "effect"
import * as Money from "../domain/Money.js"
import type { WrittenFile } from "./ReportOutput.js"
import type { ReconciliationReport } from "./ReportOutput.js"

export const ReportSummary = Schema.Struct({
  label: Schema.String,
  from: Schema.String,
  to: Schema.String,
  timezone: Schema.String,
  store: Schema.NullOr(Schema.String),
  generatedAt: Schema.String,
  pulled: Schema.Number,
  needsAPerson: Schema.Number,
  findings: Schema.Number,
  findingsByKind: Schema.Record({ key: Schema.String, value: Schema.Number }),
  driftComplete: Schema.Boolean,
  margins: Schema.Array(Schema.Struct({
    currency: Schema.String,
    orders: Schema.Number,
    revenue: Schema.String,
    podCost: Schema.String,
    margin: Schema.String,
    marginPercent: Schema.NullOr(Schema.String)
  })),
  files: Schema.Array(Schema.Struct({ format: Schema.String, name: Schema.String, path: Schema.String }))
})
export type ReportSummary = typeof ReportSummary.Type

export const summarize = (report: ReconciliationReport, files: ReadonlyArray<WrittenFile>): ReportSummary => {
  const byKind: Record<string, number> = {}
  for (const f of report.drift.findings) byKind[f.kind] = (byKind[f.kind] ?? 0) + 1
  return {
    label: report.period.label,
    from: report.period.from,
    to: report.period.to,
    timezone: report.period.timezone,
    store: report.store,
    generatedAt: report.generatedAt,
    pulled: report.overall.flow.pulled,
    needsAPerson: report.overall.needsAPerson,
    findings: report.drift.findings.length,
    findingsByKind: byKind,
    driftComplete: report.drift.complete,
    margins: report.overall.money.map((m) => ({
      currency: m.currency,
      orders: m.orders,
      revenue: Money.toDecimalString(m.revenue),
      podCost: Money.toDecimalString(m.podCost),
      margin: Money.toDecimalString(m.margin),
      marginPercent: m.marginPercent
    })),
    files: files.map((f) => ({ format: f.format, name: f.name, path: f.path }))
  }
}

/** One line: what a seller reads first. */
export const summaryLine = (summary: ReportSummary): string => {
  const margins = summary.margins.map((m) =>
    `margin ${m.margin} ${m.currency}${m.marginPercent === null ? "" : ` (${m.marginPercent}%)`} on ${m.orders} orders`
  )
  const kinds = Object.entries(summary.findingsByKind).map(([kind, n]) => `${n} ${kind}`).join(", ")
  return [
    `report ${summary.label} (${summary.store ?? "all stores"}, ${summary.timezone}): ${summary.pulled} orders pulled`,
    `${summary.needsAPerson} need a person`,
    `${summary.findings} drift findings${kinds === "" ? "" : ` (${kinds})`}${
      summary.driftComplete ? "" : " — incomplete, an API could not be read"
    }`,
    ...(margins.length === 0 ? ["no margin yet"] : margins)
  ].join("; ")
}
