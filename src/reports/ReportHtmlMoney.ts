/**
 * The money of the HTML report, pure: the margin cards at the top (each
 * saying how many orders it covers), the charts and the tables per store and
 * SKU, and the margin in one currency when `reports.exchangeRates` is set.
 */
import * as Money from "../domain/Money.js"
import { table } from "./ReportHtmlParts.js"
import type { MarginFigures, ReconciliationReport, StoreMoney } from "./ReportOutput.js"
import { type Bar, CHART_COLORS, escapeHtml as e, groupedBarChart } from "./SvgCharts.js"

export const money = (m: Money.Money) => Money.format(m, "en-US")
const chartValue = (m: Money.Money) => Number(m.totalNanos) / 1e9
const percentOf = (m: MarginFigures) => (m.marginPercent === null ? "" : `${m.marginPercent}% of ${money(m.revenue)}`)
const lossClass = (m: MarginFigures) => (Money.isNegative(m.margin) ? "loss" : "")

/** The cards at the top: one margin in the base currency when there is a rate table, else one per currency. */
export const marginCards = (report: ReconciliationReport): string => {
  const { inBase, coverage } = report.money
  if (coverage.ofOrders === 0) return ""
  if (inBase !== null) {
    return `<div class="card margin-card">Margin (all in ${e(inBase.currency)})<b class="${lossClass(inBase)}">${money(inBase.margin)}</b>${
      percentOf(inBase)
    }<small class="coverage">${e(coverage.text)}</small></div>`
  }
  const cards = report.overall.money.map((m) =>
    `<div class="card margin-card">Margin (${e(m.currency)})<b class="${lossClass(m)}">${money(m.margin)}</b>${
      percentOf(m)
    }<small>covers ${m.orders} of ${coverage.ofOrders} order${coverage.ofOrders === 1 ? "" : "s"}</small></div>`
  ).join("")
  return cards === "" ? `<div class="card margin-card">Margin<b>–</b><small class="coverage">${e(coverage.text)}</small></div>` : cards
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

const figureCells = (m: MarginFigures) => [
  money(m.revenue),
  money(m.podCost),
  `<span class="${lossClass(m)}">${money(m.margin)}</span>`,
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

const inBaseBlock = (report: ReconciliationReport) => {
  const inBase = report.money.inBase
  if (inBase === null) return ""
  const rows = [
    ...inBase.perStore.map((s) => [e(report.storeNames[s.storeKey] ?? s.storeKey), String(s.orders), ...figureCells(s)]),
    ...(inBase.perStore.length > 1 ? [["<strong>all stores</strong>", String(inBase.orders), ...figureCells(inBase)]] : [])
  ]
  const rates = Object.entries(inBase.rates).map(([currency, rate]) => `1 ${currency} = ${rate} ${inBase.currency}`).join(", ")
  return `<h3>All currencies in ${e(inBase.currency)}</h3><p class="coverage">${e(report.money.coverage.text)}. Rates: ${
    e(rates || "none")
  } (reports.exchangeRates).</p>${table(["Store", "Orders", "Revenue", "POD cost", "Margin", "Margin %"], rows)}`
}

export const moneySection = (report: ReconciliationReport) => {
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
    : `<h3>Left out of the margins in their own currency</h3>${
      table(["Store", "Reference", "Why"], m.excluded.map((x) => [e(x.storeKey), `<code>${e(x.referenceId)}</code>`, e(x.reason)]))
    }`
  return `<section id="money"><h2>Money</h2>${inBaseBlock(report)}${chart}${
    table(["Store", "Currency", "Orders", "Revenue", "POD cost", "Margin", "Margin %"], rows)
  }${m.stores.map(skuBlock).join("")}${excluded}</section>`
}
