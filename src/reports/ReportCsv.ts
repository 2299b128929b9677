/**
 * The report as CSV, pure: one row per order that needs a person (held ones
 * included, one row each) and per drift finding. Evidence is compact JSON so
 * the cell stays machine-readable.
 */
import { stringify } from "csv-stringify/sync"
import type { AttentionItem, ReconciliationReport } from "./ReportOutput.js"

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
  "action"
] as const

const ATTENTION_ACTIONS = {
  held: "fix what holds it (the reason says what); podsync releases it by itself once fixed",
  failed: "read the error, fix the order or its mapping, then podsync explain the order to follow it",
  cancel_pending: "cancel the order at the POD service by hand (its API has no cancel call)",
  pod_on_hold: "see why the POD service holds it (the summary says, when podsync knows), and resolve it there",
  not_checked_out: "check out (pay for) the draft at the POD service, or delete it if it should not be produced",
  pod_warning: "nothing unless the warning matters to you: the draft went ahead; see it at the POD service"
} as const

type AttentionKind = keyof typeof ATTENTION_ACTIONS

const attentionRow = (kind: AttentionKind, reason: string, item: AttentionItem) => itemRow("needs_a_person", kind, reason, item)

/** An order's row in `section`, with what to do about `kind`. */
const itemRow = (section: string, kind: keyof typeof ATTENTION_ACTIONS, reason: string, item: AttentionItem) => [
  section,
  kind,
  reason,
  item.storeKey,
  item.referenceId,
  item.name,
  item.state,
  item.since,
  String(item.ageHours),
  item.detail,
  "",
  ATTENTION_ACTIONS[kind]
]

export const reportCsv = (report: ReconciliationReport): string => {
  const people = report.needsAPerson
  const rows: Array<ReadonlyArray<string>> = [
    ...people.held.flatMap((group) => group.orders.map((item) => attentionRow("held", group.reason, item))),
    ...people.failed.map((item) => attentionRow("failed", "", item)),
    ...people.cancelPending.map((item) => attentionRow("cancel_pending", "", item)),
    ...people.podOnHold.map((item) => attentionRow("pod_on_hold", item.reason ?? "", item)),
    ...people.notCheckedOut.map((item) => attentionRow("not_checked_out", "", item)),
    ...report.podWarnings.map((item) => itemRow("pod_warning", "pod_warning", "", item)),
    ...report.drift.findings.map((f) => [
      "drift",
      f.kind,
      "",
      f.storeKey ?? "",
      f.referenceId ?? "",
      "",
      "",
      "",
      "",
      f.summary,
      JSON.stringify(f.evidence),
      f.action
    ])
  ]
  return stringify(rows.map((r) => [...r]), { header: true, columns: [...CSV_COLUMNS] })
}
