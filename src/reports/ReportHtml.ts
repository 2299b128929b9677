/**
 * The report as one self-contained HTML page, pure: inline CSS and inline
 * SVG charts, no script, nothing loaded from anywhere, so it opens offline,
 * in a mail attachment or printed. Every store-supplied text is escaped.
 */
import * as Money from "../domain/Money.js"
import type { AttentionItem, FlowFigures, Finding, MarginFigures, ReconciliationReport, StoreMoney } from "./ReportOutput.js"
import { type Bar, CHART_COLORS, escapeHtml as e, groupedBarChart, horizontalBarChart } from "./SvgCharts.js"

const money = (m: Money.Money) => Money.format(m, "en-US")
const chartValue = (m: Money.Money) => Number(m.totalNanos) / 1e9

export const formatDuration = (seconds: number | null): string => {
  if (seconds === null) return "–"
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  const pair = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    small === 0 ? `${big}${bigUnit}` : `${big}${bigUnit} ${small}${smallUnit}`
  if (minutes < 60) return pair(minutes, "m", seconds % 60, "s")
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return pair(hours, "h", minutes % 60, "m")
  return pair(Math.floor(hours / 24), "d", hours % 24, "h")
}

const table = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, empty = "Nothing here.") =>
  rows.length === 0
    ? `<p class="empty">${e(empty)}</p>`
    : `<table><thead><tr>${headers.map((h) => `<th>${e(h)}</th>`).join("")}</tr></thead><tbody>${
      rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")
    }</tbody></table>`

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

const marginBars = (m: MarginFigures): ReadonlyArray<Bar> => [
  { label: "revenue", value: chartValue(m.revenue), valueLabel: money(m.revenue), color: CHART_COLORS.revenue },
  { label: "POD cost", value: chartValue(m.podCost), valueLabel: money(m.podCost), color: CHART_COLORS.cost },
  {
    label: "margin",
    value: chartValue(m.margin),
    valueLabel: `${money(m.margin)}${m.marginPercent === null ? "" : ` (${m.marginPercent}%)`}`,
    color: Money.isNegative(m.margin) ? CHART_COLORS.loss : CHART_COLORS.margin
  }
]

const figureCells = (
  m: MarginFigures
) => [
  money(m.revenue),
  money(m.podCost),
  `<span class="${Money.isNegative(m.margin) ? "loss" : ""}">${money(m.margin)}</span>`,
  m.marginPercent === null ? "–" : `${m.marginPercent}%`
]

const skuBlock = (store: StoreMoney) => {
  const top = [...store.bySku].sort((a, b) => Number(b.revenue.totalNanos - a.revenue.totalNanos)).slice(0, 12)
  const chart = groupedBarChart(
    `${store.storeKey} (${store.currency}): margin per SKU${store.bySku.length > top.length ? `, top ${top.length} by revenue` : ""}`,
    top.map((s) => ({ label: s.sku, bars: marginBars(s) }))
  )
  const rows = store.bySku.map((s) => [`<code>${e(s.sku)}</code>`, e(s.title), String(s.units), ...figureCells(s)])
  return `<h3>${e(store.storeKey)} per SKU (${e(store.currency)})</h3>${chart}${
    table(["SKU", "Item", "Units", "Revenue", "POD cost", "Margin", "Margin %"], rows)
  }`
}

const moneySection = (report: ReconciliationReport) => {
  const m = report.money
  if (m.stores.length === 0 && m.excluded.length === 0) {
    return `<section id="money"><h2>Money</h2><p class="empty">No order of the period has a POD order yet.</p></section>`
  }
  // One chart per currency: bar lengths in different currencies do not compare.
  const currencies = [...new Set(m.stores.map((s) => s.currency))]
  const chart = currencies.map((currency) =>
    groupedBarChart(
      `Revenue, POD cost and margin per store (${currency})`,
      m.stores.filter((s) => s.currency === currency).map((s) => ({ label: s.storeKey, bars: marginBars(s) }))
    )
  ).join("")
  const rows = [
    ...m.stores.map((s) => [e(s.storeKey), e(s.currency), String(s.orders), ...figureCells(s)]),
    ...(m.stores.length > 1
      ? m.overall.map((o) => ["<strong>all stores</strong>", e(o.currency), String(o.orders), ...figureCells(o)])
      : [])
  ]
  const excluded = m.excluded.length === 0
    ? ""
    : `<h3>Left out of the margins</h3>${
      table(["Store", "Reference", "Why"], m.excluded.map((x) => [e(x.storeKey), `<code>${e(x.referenceId)}</code>`, e(x.reason)]))
    }`
  return `<section id="money"><h2>Money</h2>${chart}${
    table(["Store", "Currency", "Orders", "Revenue", "POD cost", "Margin", "Margin %"], rows)
  }${m.stores.map(skuBlock).join("")}${excluded}</section>`
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;margin:0;background:#f5f6f8}
main{max-width:1100px;margin:0 auto;padding:24px 28px 48px;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:2px solid #e3e6ec;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}h4{font-size:13px;margin:12px 0 4px;color:#444}
.meta{color:#5b6475;margin:0 0 16px}.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.card{border:1px solid #e3e6ec;border-radius:8px;padding:10px 14px;min-width:150px}.card b{display:block;font-size:22px}
table{border-collapse:collapse;width:100%;margin:6px 0 12px;font-size:13px}th,td{border-bottom:1px solid #eceef2;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f6;font-weight:600}code{font-size:12px}pre{font-size:11px;white-space:pre-wrap;margin:4px 0;max-width:420px}
.empty{color:#6b7385;font-style:italic}.warning{background:#fff4e0;border:1px solid #f0c36d;padding:8px 12px;border-radius:6px}
.loss{color:#b52b2b}.kind{font-weight:600;white-space:nowrap}svg.chart{display:block;margin:8px 0 12px;max-width:100%;height:auto}
svg text{font-size:12px;fill:#1d2330}svg text.title{font-size:13px;font-weight:600}svg text.value{fill:#3d4455}
.notes li{margin:4px 0;color:#444}@media print{body{background:#fff}main{padding:0}}
`

export const reportHtml = (report: ReconciliationReport): string => {
  const title = `podsync reconciliation report — ${report.period.label}${report.store === null ? "" : ` — ${report.store}`}`
  const margins = report.overall.money.map((m) =>
    `<div class="card">Margin (${e(m.currency)})<b class="${Money.isNegative(m.margin) ? "loss" : ""}">${money(m.margin)}</b>${
      m.marginPercent === null ? "" : `${m.marginPercent}% of ${money(m.revenue)}`
    }</div>`
  ).join("")
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${e(title)}</title><style>${STYLE}</style></head>
<body><main>
<h1>${e(title)}</h1>
<p class="meta">${e(report.period.from)} to ${e(report.period.to)} (${e(report.period.timezone)}) · stores: ${
    e(report.stores.join(", ") || "none")
  } · generated ${e(report.generatedAt)}</p>
<div class="cards">
<div class="card">Orders pulled<b>${report.overall.flow.pulled}</b></div>
<div class="card">Need a person<b>${report.overall.needsAPerson}</b></div>
<div class="card">Drift findings<b>${report.overall.findings}</b></div>
${margins}
</div>
${report.drift.complete ? "" : `<p class="warning">${e(report.notes[report.notes.length - 1] ?? "")}</p>`}
${flowSection(report)}
${attentionSection(report)}
${driftSection(report)}
${moneySection(report)}
<section id="notes"><h2>How to read this report</h2><ul class="notes">${report.notes.map((n) => `<li>${e(n)}</li>`).join("")}</ul></section>
</main></body></html>
`
}
