/**
 * The report as one self-contained HTML page, pure: inline CSS and inline
 * SVG charts, no script, nothing loaded from anywhere, so it opens offline,
 * in a mail attachment or printed. Every store-supplied text is escaped.
 */
import { marginCards, moneySection } from "./ReportHtmlMoney.js"
import { outsideLink, STYLE, table } from "./ReportHtmlParts.js"
import type { AttentionItem, FlowFigures, Finding, ReconciliationReport } from "./ReportOutput.js"
import { type Bar, CHART_COLORS, escapeHtml as e, horizontalBarChart } from "./SvgCharts.js"

/** A step time in the largest units that matter; below a second in milliseconds, never "0s". */
export const formatDuration = (exactSeconds: number | null): string => {
  if (exactSeconds === null) return "–"
  const millis = Math.round(exactSeconds * 1000)
  if (millis < 1000) return `${millis}ms`
  const tenths = Math.round(exactSeconds * 10) / 10
  if (tenths < 10 && !Number.isInteger(tenths)) return `${tenths.toFixed(1)}s`
  const seconds = Math.round(exactSeconds)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  const pair = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    small === 0 ? `${big}${bigUnit}` : `${big}${bigUnit} ${small}${smallUnit}`
  if (minutes < 60) return pair(minutes, "m", seconds % 60, "s")
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return pair(hours, "h", minutes % 60, "m")
  return pair(Math.floor(hours / 24), "d", hours % 24, "h")
}

const FLOW_STEPS: ReadonlyArray<readonly [keyof Omit<FlowFigures, "timings" | "storeOrdersCreated">, string]> = [
  ["pulled", "Pulled"],
  ["held", "Held"],
  ["drafted", "Drafted"],
  ["checkedOut", "Checked out"],
  ["inProduction", "In production"],
  ["shipped", "Shipped"],
  ["fulfilled", "Fulfilled in the store"],
  ["cancelled", "Cancelled"]
]

const flowChart = (flow: FlowFigures) => {
  const bars: Array<Bar> = [
    ...(flow.storeOrdersCreated === null
      ? []
      : [{ label: "Created in the store", value: flow.storeOrdersCreated, valueLabel: String(flow.storeOrdersCreated), color: "#8a9bb8" }]),
    ...FLOW_STEPS.map(([key, label]) => ({
      label,
      value: flow[key],
      valueLabel: String(flow[key]),
      color: key === "cancelled" || key === "held" ? CHART_COLORS.cost : CHART_COLORS.flow
    }))
  ]
  return horizontalBarChart("Orders through each step in the period", bars)
}

const flowSection = (report: ReconciliationReport) => {
  const rows = [
    ...report.perStore.map((s) => ({ name: s.storeKey, flow: s.flow })),
    ...(report.perStore.length > 1 ? [{ name: "all stores", flow: report.overall.flow }] : [])
  ]
  const counts = table(
    ["Store", "Created in the store", ...FLOW_STEPS.map(([, label]) => label)],
    rows.map((
      { name, flow }
    ) => [
      e(name),
      flow.storeOrdersCreated === null ? "not read" : String(flow.storeOrdersCreated),
      ...FLOW_STEPS.map(([key]) => String(flow[key]))
    ])
  )
  const timing = (
    label: string,
    t: FlowFigures["timings"]["pullToDraft"]
  ) => [e(label), String(t.count), formatDuration(t.p50Seconds), formatDuration(t.p95Seconds)]
  const timings = table(
    ["Store", "Step", "Orders", "p50", "p95"],
    rows.flatMap(({ name, flow }) => [
      [e(name), ...timing("pull → draft", flow.timings.pullToDraft)],
      [e(name), ...timing("draft → shipped", flow.timings.draftToShipped)],
      [e(name), ...timing("shipped → fulfilled in the store", flow.timings.shippedToFulfilled)]
    ])
  )
  return `<section id="flow"><h2>Flow</h2>${flowChart(report.overall.flow)}${counts}<h3>How long the steps took</h3>${timings}</section>`
}

const attentionRows = (items: ReadonlyArray<AttentionItem>) =>
  items.map((i) => [e(i.storeKey), `<code>${e(i.referenceId)}</code>`, e(i.name), `${i.ageHours} h`, e(i.detail)])

const attentionSection = (report: ReconciliationReport) => {
  const people = report.needsAPerson
  const headers = ["Store", "Reference", "Order", "Age", "Detail"]
  const held = people.held.map((g) =>
    `<h4>${e(g.storeKey)}: ${e(g.reason)} — ${g.count} order${g.count === 1 ? "" : "s"}, oldest ${g.oldestAgeHours} h</h4>${
      table(headers, attentionRows(g.orders))
    }`
  ).join("")
  return `<section id="needs-a-person"><h2>Needs a person (${report.overall.needsAPerson})</h2>` +
    `<h3>Held orders by reason</h3>${held || `<p class="empty">No held orders.</p>`}` +
    `<h3>Failed orders</h3>${table(headers, attentionRows(people.failed), "No failed orders.")}` +
    `<h3>Cancelled in the store after the draft (cancel at the POD service)</h3>${
      table(headers, attentionRows(people.cancelPending), "None.")
    }` +
    `<h3>On hold at the POD service</h3>${table(headers, attentionRows(people.podOnHold), "None.")}` +
    `<h3>Drafts not checked out after ${report.settings.notCheckedOutAfterHours} hours</h3>${
      table(headers, attentionRows(people.notCheckedOut), "None.")
    }` +
    `<h3>What the POD service warned about (drafts of the period; they went ahead)</h3>${
      table(headers, attentionRows(report.podWarnings), "None.")
    }` +
    `</section>`
}

const KIND_TITLES: Record<Finding["kind"], string> = {
  missing_draft: "No POD draft",
  orphan_at_pod: "Unknown at the stores",
  duplicate_at_pod: "Duplicate at the POD service",
  shipped_not_fulfilled: "Shipped, not fulfilled in the store",
  package_not_shown: "A box's tracking not shown to the buyer",
  cancelled_but_active_at_pod: "Cancelled in the store, active at the POD service",
  status_mismatch: "Status disagreement"
}

const driftSection = (report: ReconciliationReport) => {
  const rows = report.drift.findings.map((f) => [
    `<span class="kind ${f.kind}">${e(KIND_TITLES[f.kind])}</span>`,
    e(f.storeKey ?? ""),
    f.referenceId === null ? "" : `<code>${e(f.referenceId)}</code>`,
    e(f.summary),
    `<details><summary>evidence</summary><pre>${e(JSON.stringify(f.evidence, null, 2))}</pre></details>`,
    e(f.action)
  ])
  const warning = report.drift.complete ? "" : `<p class="warning">Incomplete: an API could not be read (see the notes below).</p>`
  return `<section id="drift"><h2>Drift ledger (${report.drift.findings.length})</h2>${warning}` +
    table(
      ["Finding", "Store", "Reference", "What", "Evidence", "Suggested action"],
      rows,
      "podsync, the stores and the POD service agree."
    ) + `</section>`
}

/** Nothing happened in the period: no order came, moved or shipped (orders waiting from before may still need a person). */
export const isEmptyPeriod = (report: ReconciliationReport): boolean => {
  const flow = report.overall.flow
  return (flow.storeOrdersCreated ?? 0) === 0 && FLOW_STEPS.every(([key]) => flow[key] === 0) && report.shipped.length === 0
}

export const NO_ORDERS = "No orders in this period."

const shippedSection = (report: ReconciliationReport) => {
  const rows = report.shipped.map((s) => [
    e(report.storeNames[s.storeKey] ?? s.storeKey),
    e(s.name),
    s.podOrderId === null ? "–" : `<code>${e(s.podOrderId)}</code>`,
    e(s.carrier ?? "–"),
    s.trackingUrl !== null ? outsideLink(s.trackingUrl, s.trackingNo ?? "track") : e(s.trackingNo ?? "–"),
    e(s.shippedAt)
  ])
  return `<section id="shipped"><h2>Shipped (${report.shipped.length})</h2>${
    table(["Store", "Order", "POD order", "Carrier", "Tracking", "Seen shipped"], rows, "Nothing shipped in this period.")
  }</section>`
}

export const reportHtml = (report: ReconciliationReport): string => {
  const empty = isEmptyPeriod(report)
  const stores = report.stores.map((key) => (report.storeNames[key] === key ? key : `${report.storeNames[key] ?? key} (${key})`))
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${e(report.title)}</title><style>${STYLE}</style></head>
<body><main>
<h1>${e(report.title)}</h1>
<p class="meta">Reconciliation report · ${e(report.period.from)} to ${e(report.period.to)} (${e(report.period.timezone)}) · stores: ${
    e(stores.join(", ") || "none")
  } · generated ${e(report.generatedAt)}</p>
${empty ? `<p class="empty-day">${NO_ORDERS}</p>` : ""}
<div class="cards">
<div class="card">Orders pulled<b>${report.overall.flow.pulled}</b></div>
<div class="card">Shipped<b>${report.overall.flow.shipped}</b></div>
<div class="card">Need a person<b>${report.overall.needsAPerson}</b></div>
<div class="card">Drift findings<b>${report.overall.findings}</b></div>
${marginCards(report)}
</div>
${report.drift.complete ? "" : `<p class="warning">${e(report.notes[report.notes.length - 1] ?? "")}</p>`}
${empty ? `<section id="flow"><h2>Flow</h2><p class="empty">${NO_ORDERS}</p></section>` : flowSection(report)}
${shippedSection(report)}
${attentionSection(report)}
${driftSection(report)}
${moneySection(report)}
<section id="notes"><h2>How to read this report</h2><ul class="notes">${report.notes.map((n) => `<li>${e(n)}</li>`).join("")}</ul></section>
</main></body></html>
`
}
