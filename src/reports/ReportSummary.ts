/**
 * The short form of a report: kept in the `reports` row, answered by
 * GET /reports and POST /reports/run, printed by `podsync report`, and
 * written as the one log line of a run.
 */
import { Schema } from "effect"
import * as Money from "../domain/Money.js"
import type { WrittenFile } from "./ReportOutput.js"
import type { ReconciliationReport } from "./ReportOutput.js"

/** One margin: of a currency's orders, or of every order in the base currency. */
const MarginFigures = Schema.Struct({
  currency: Schema.String,
  orders: Schema.Number,
  revenue: Schema.String,
  podCost: Schema.String,
  margin: Schema.String,
  marginPercent: Schema.NullOr(Schema.String)
})

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
  margins: Schema.Array(MarginFigures),
  files: Schema.Array(Schema.Struct({ format: Schema.String, name: Schema.String, path: Schema.String })),
  // Added later: optional, so the summaries of reports written before still read.
  /** The margin of every order in the base currency of reports.exchangeRates. */
  marginInBase: Schema.optional(Schema.NullOr(MarginFigures)),
  /** How many orders of the money scope the margins cover: "margin covers 41 of 43 orders; 2 in JPY have no rate". */
  marginCoverage: Schema.optional(Schema.Struct({ orders: Schema.Number, ofOrders: Schema.Number, text: Schema.String })),
  /** The margins per store and currency (report.money.stores): what the console's overview adds up per day and week. */
  marginsByStore: Schema.optional(Schema.Array(Schema.Struct({ storeKey: Schema.String, ...MarginFigures.fields })))
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
    files: files.map((f) => ({ format: f.format, name: f.name, path: f.path })),
    marginInBase: report.money.inBase === null ? null : {
      currency: report.money.inBase.currency,
      orders: report.money.inBase.orders,
      revenue: Money.toDecimalString(report.money.inBase.revenue),
      podCost: Money.toDecimalString(report.money.inBase.podCost),
      margin: Money.toDecimalString(report.money.inBase.margin),
      marginPercent: report.money.inBase.marginPercent
    },
    marginCoverage: report.money.coverage,
    marginsByStore: report.money.stores.map((m) => ({
      storeKey: m.storeKey,
      currency: m.currency,
      orders: m.orders,
      revenue: Money.toDecimalString(m.revenue),
      podCost: Money.toDecimalString(m.podCost),
      margin: Money.toDecimalString(m.margin),
      marginPercent: m.marginPercent
    }))
  }
}

/** One line: what a seller reads first. */
export const summaryLine = (summary: ReportSummary): string => {
  const inBase = summary.marginInBase
  const margins = inBase !== undefined && inBase !== null && inBase.orders > 0
    ? [`margin ${inBase.margin} ${inBase.currency} in all currencies${inBase.marginPercent === null ? "" : ` (${inBase.marginPercent}%)`}`]
    : summary.margins.map((m) =>
      `margin ${m.margin} ${m.currency}${m.marginPercent === null ? "" : ` (${m.marginPercent}%)`} on ${m.orders} orders`
    )
  // Said when it adds something: a margin in one currency, or orders the margins leave out.
  const covered = summary.marginCoverage
  const coverage = covered !== undefined && margins.length > 0 &&
      (summary.margins.length > 1 || (inBase ?? null) !== null || covered.orders < covered.ofOrders)
    ? [covered.text]
    : []
  const kinds = Object.entries(summary.findingsByKind).map(([kind, n]) => `${n} ${kind}`).join(", ")
  return [
    `report ${summary.label} (${summary.store ?? "all stores"}, ${summary.timezone}): ${summary.pulled} orders pulled`,
    `${summary.needsAPerson} need a person`,
    `${summary.findings} drift findings${kinds === "" ? "" : ` (${kinds})`}${
      summary.driftComplete ? "" : " — incomplete, an API could not be read"
    }`,
    ...(margins.length === 0 ? ["no margin yet"] : margins),
    ...coverage
  ].join("; ")
}
