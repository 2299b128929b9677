/**
 * The report as CSV, pure: one row per order that needs a person (held ones
 * included, one row each) and per drift finding; then the money a
 * spreadsheet user expects (a row per order and per SKU, amounts with their
 * currency's decimals) and a row per package shipped. Evidence is compact
 * JSON so the cell stays machine-readable. Columns are only ever added, at
 * the end: a sheet built on the first ones keeps working.
 */
import { stringify } from "csv-stringify/sync"
import { SPREADSHEET_SAFE } from "../domain/SpreadsheetCell.js"
import type * as Money from "../domain/Money.js"
import { plainAmount } from "./MoneyText.js"
import type { AttentionItem, OrderMoney, ReconciliationReport } from "./ReportOutput.js"

export const CSV_COLUMNS = [
  "section",
  "kind",
  "reason",
  "store",
  "reference_id",
  "order",
  "state",
  "since",
  "age_hours",
  "summary",
  "evidence",
  "action",
  "currency",
  "revenue",
  "pod_cost",
  "margin",
  "margin_percent",
  "sku",
  "item",
  "units",
  "pod_order_id",
  "carrier",
  "tracking_no",
  "tracking_url",
  "base_currency",
  "revenue_in_base",
  "pod_cost_in_base",
  "margin_in_base"
] as const

type Column = (typeof CSV_COLUMNS)[number]
type Row = Partial<Record<Column, string>>

const ATTENTION_ACTIONS = {
  held: "fix what holds it (the reason says what); podsync releases it by itself once fixed",
  failed: "read the error, fix the order or its mapping, then podsync explain the order to follow it",
  cancel_pending: "cancel the order at the POD service by hand (its API has no cancel call)",
  pod_on_hold: "see why the POD service holds it (the summary says, when podsync knows), and resolve it there",
  not_checked_out: "check out (pay for) the draft at the POD service, or delete it if it should not be produced",
  pod_warning: "nothing unless the warning matters to you: the draft went ahead; see it at the POD service"
} as const

type AttentionKind = keyof typeof ATTENTION_ACTIONS

/** An order's row in `section`, with what to do about `kind`. */
const itemRow = (section: string, kind: AttentionKind, reason: string, item: AttentionItem): Row => ({
  section,
  kind,
  reason,
  store: item.storeKey,
  reference_id: item.referenceId,
  order: item.name,
  state: item.state,
  since: item.since,
  age_hours: String(item.ageHours),
  summary: item.detail,
  action: ATTENTION_ACTIONS[kind]
})

const attentionRow = (kind: AttentionKind, reason: string, item: AttentionItem) => itemRow("needs_a_person", kind, reason, item)

const amount = (m: Money.Money | null | undefined) => (m === null || m === undefined ? "" : plainAmount(m))

/** The amounts of one money row, all in `currency`: an amount in another currency is left blank (the reason says why). */
const amountsIn = (currency: string, figures: { revenue: Money.Money | null; podCost: Money.Money | null; margin: Money.Money | null }) => {
  const inCurrency = (m: Money.Money | null) => (m !== null && m.currency === currency ? plainAmount(m) : "")
  return { currency, revenue: inCurrency(figures.revenue), pod_cost: inCurrency(figures.podCost), margin: inCurrency(figures.margin) }
}

const orderMoneyRow = (order: OrderMoney, baseCurrency: string | null): Row => ({
  section: "money_order",
  kind: order.leftOut === null ? "order" : "left_out",
  reason: [order.leftOut, order.noRateFor.length === 0 ? null : `no exchange rate for ${order.noRateFor.join(" and ")}`]
    .filter((r) => r !== null).join("; "),
  store: order.storeKey,
  reference_id: order.referenceId,
  order: order.name,
  ...amountsIn(order.revenue?.currency ?? order.podCost?.currency ?? "", order),
  margin_percent: order.marginPercent ?? "",
  pod_order_id: order.podOrderIds.join(" "),
  ...(baseCurrency === null ? {} : {
    base_currency: baseCurrency,
    revenue_in_base: amount(order.inBase?.revenue),
    pod_cost_in_base: amount(order.inBase?.podCost),
    margin_in_base: amount(order.inBase?.margin)
  })
})

const moneyRows = (report: ReconciliationReport): ReadonlyArray<Row> => {
  const base = report.money.inBase?.currency ?? null
  return [
    ...report.money.orders.map((order) => orderMoneyRow(order, base)),
    ...report.money.stores.flatMap((store) =>
      store.bySku.map((sku): Row => ({
        section: "money_sku",
        kind: "sku",
        store: store.storeKey,
        ...amountsIn(store.currency, sku),
        margin_percent: sku.marginPercent ?? "",
        sku: sku.sku,
        item: sku.title,
        units: String(sku.units)
      }))
    )
  ]
}

export const reportCsv = (report: ReconciliationReport): string => {
  const people = report.needsAPerson
  const rows: Array<Row> = [
    ...people.held.flatMap((group) => group.orders.map((item) => attentionRow("held", group.reason, item))),
    ...people.failed.map((item) => attentionRow("failed", "", item)),
    ...people.cancelPending.map((item) => attentionRow("cancel_pending", "", item)),
    ...people.podOnHold.map((item) => attentionRow("pod_on_hold", item.reason ?? "", item)),
    ...people.notCheckedOut.map((item) => attentionRow("not_checked_out", "", item)),
    ...report.podWarnings.map((item) => itemRow("pod_warning", "pod_warning", "", item)),
    ...report.drift.findings.map((f): Row => ({
      section: "drift",
      kind: f.kind,
      store: f.storeKey ?? "",
      reference_id: f.referenceId ?? "",
      summary: f.summary,
      evidence: JSON.stringify(f.evidence),
      action: f.action
    })),
    ...moneyRows(report),
    ...report.shipped.map((s): Row => ({
      section: "shipped",
      kind: "package",
      store: s.storeKey,
      reference_id: s.referenceId,
      order: s.name,
      since: s.shippedAt,
      pod_order_id: s.podOrderId ?? "",
      carrier: s.carrier ?? "",
      tracking_no: s.trackingNo ?? "",
      tracking_url: s.trackingUrl ?? ""
    }))
  ]
  return stringify(rows.map((row) => CSV_COLUMNS.map((column) => row[column] ?? "")), {
    header: true,
    columns: [...CSV_COLUMNS],
    // Buyer-written text (names, notes) opens in a spreadsheet: "=HYPERLINK(…)" is shown, not run.
    ...SPREADSHEET_SAFE
  })
}
