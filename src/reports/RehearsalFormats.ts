/**
 * The rehearsal report as CSV and HTML, pure, on the reconciliation report's
 * machinery: the same table pieces and stylesheet, amounts with their
 * currency's decimals, and spreadsheet-safe cells (buyer-written text such as
 * "=HYPERLINK(…)" is shown, never run).
 */
import { stringify } from "csv-stringify/sync"
import type * as Money from "../domain/Money.js"
import { SPREADSHEET_SAFE } from "../domain/SpreadsheetCell.js"
import { plainAmount } from "./MoneyText.js"
import type { RehearsalReport } from "./RehearsalReport.js"
import { STYLE, table } from "./ReportHtmlParts.js"
import { escapeHtml as e } from "./SvgCharts.js"

export const REHEARSAL_CSV_COLUMNS = [
  "section",
  "store",
  "reference_id",
  "order",
  "created_at",
  "outcome",
  "reason",
  "message",
  "shipping_method",
  "economy_as_standard",
  "currency",
  "paid",
  "pod_currency",
  "pod_cost",
  "margin",
  "margin_percent",
  "sku",
  "item",
  "units",
  "orders",
  "suggestion",
  "warnings"
] as const

type Row = Partial<Record<(typeof REHEARSAL_CSV_COLUMNS)[number], string>>

const amounts = (list: ReadonlyArray<Money.Money>) => list.map((m) => `${plainAmount(m)} ${m.currency}`).join(" + ")

export const rehearsalCsv = (report: RehearsalReport): string => {
  const store = report.storeKey
  const rows: Array<Row> = [
    ...report.orders.map((o): Row => ({
      section: "order",
      store,
      reference_id: o.referenceId,
      order: o.name,
      created_at: o.createdAt,
      outcome: o.outcome,
      reason: o.reason,
      message: o.quoteProblem === null ? o.message : `${o.message}; ${o.quoteProblem}`,
      shipping_method: o.shippingMethod ?? "",
      economy_as_standard: o.economyAsStandard ? "yes" : "",
      currency: o.paid?.currency ?? "",
      paid: o.paid === null ? "" : plainAmount(o.paid),
      pod_currency: o.podCost?.currency ?? "",
      pod_cost: o.podCost === null ? "" : plainAmount(o.podCost),
      margin: o.margin === null ? "" : `${plainAmount(o.margin)}${o.margin.currency === o.paid?.currency ? "" : ` ${o.margin.currency}`}`,
      margin_percent: o.marginPercent ?? "",
      sku: o.toMap.map((l) => l.sku).join(" "),
      warnings: o.warnings.join("; ")
    })),
    ...report.perSku.map((s): Row => ({
      section: "sku",
      store,
      sku: s.sku,
      item: s.title,
      units: String(s.units),
      orders: String(s.orders),
      pod_cost: amounts(s.podCost)
    })),
    ...report.perDay.map((d): Row => ({
      section: "day",
      store,
      created_at: d.day,
      orders: String(d.orders),
      outcome: `${d.drafted} drafted, ${d.held} held, ${d.skipped} skipped`,
      paid: amounts(d.paid),
      pod_cost: amounts(d.podCost)
    })),
    ...report.toMap.map((m): Row => ({
      section: "to_map",
      store,
      sku: m.sku,
      item: m.title,
      orders: String(m.orders),
      suggestion: m.suggestion
    }))
  ]
  return stringify(rows.map((row) => REHEARSAL_CSV_COLUMNS.map((column) => row[column] ?? "")), {
    header: true,
    columns: [...REHEARSAL_CSV_COLUMNS],
    ...SPREADSHEET_SAFE
  })
}

const money = (list: ReadonlyArray<Money.Money>) => (list.length === 0 ? "–" : e(amounts(list)))
const one = (m: Money.Money | null) => (m === null ? "–" : e(`${plainAmount(m)} ${m.currency}`))

const METHOD_WORDS: Readonly<Record<string, string>> = {
  METHOD_STANDARD: "Standard",
  METHOD_ECONOMY: "Economy",
  METHOD_GROUND: "Ground",
  METHOD_FAST_SHIP: "Fast Ship",
  METHOD_STAMP: "Stamp"
}

export const formatSeconds = (seconds: number) =>
  seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60 === 0 ? "" : `${seconds % 60} s`}`.trim()

/** The report's body (headings, cards, tables): the HTML file wraps it; the console shows it inside its own page. */
export const rehearsalSections = (report: RehearsalReport): string => {
  const c = report.counts
  const api = report.api
  return [
    `<p class="meta">Orders placed from ${e(report.from.slice(0, 16).replace("T", " "))} to ${
      e(report.to.slice(0, 16).replace("T", " "))
    } UTC, read from ${e(report.platform)} without changing anything; run ${e(report.generatedAt.slice(0, 19).replace("T", " "))} UTC.</p>`,
    `<div class="cards">${
      [
        ["Orders", c.orders, "placed in the window"],
        ["Would be drafted", c.drafted, `${report.money.quoted} priced by the POD service`],
        ["Would be held", c.held, "need you first"],
        ["Skipped", c.skipped, "cancelled, unpaid or fulfilled elsewhere"]
      ].map(([label, n, small]) => `<div class="card">${e(String(label))}<b>${n}</b><small>${e(String(small))}</small></div>`).join("")
    }</div>`,
    `<p>POD cost of the drafted orders: <b>${money(report.money.podCost)}</b>; their buyers paid ${money(report.money.paid)}; margin ${
      money(report.money.margin)
    }.${report.money.notQuoted > 0 ? ` ${report.money.notQuoted} drafted order(s) could not be priced (see the orders).` : ""}</p>`,
    "<h2>Held: what to do before going live</h2>",
    table(
      ["Reason", "Orders", "What to do (first order's words)", "Orders held"],
      report.held.map((g) => [`<code>${e(g.reason)}</code>`, String(g.orders), e(g.example), e(g.names.join(", "))]),
      "No order would be held."
    ),
    "<h3>SKUs to map</h3>",
    table(
      ["SKU", "Item", "Orders", "mappings suggest says"],
      report.toMap.map((m) => [`<code>${e(m.sku)}</code>`, e(m.title), String(m.orders), e(m.suggestion)]),
      "Every SKU sold is mapped."
    ),
    "<h2>Skipped</h2>",
    table(
      ["Reason", "Orders", "Why", "Orders"],
      report.skipped.map((g) => [`<code>${e(g.reason)}</code>`, String(g.orders), e(g.example), e(g.names.join(", "))]),
      "No order would be skipped."
    ),
    "<h2>Per day</h2>",
    table(
      ["Day", "Orders", "Drafted", "Held", "Skipped", "POD cost", "Buyers paid (drafted)"],
      report.perDay.map((
        d
      ) => [e(d.day), String(d.orders), String(d.drafted), String(d.held), String(d.skipped), money(d.podCost), money(d.paid)]),
      "No orders in the window."
    ),
    "<h2>Per SKU</h2>",
    table(
      ["SKU", "Item", "Units", "Orders", "POD cost (lines)"],
      report.perSku.map((s) => [`<code>${e(s.sku)}</code>`, e(s.title), String(s.units), String(s.orders), money(s.podCost)]),
      "Nothing would be drafted."
    ),
    "<h2>Shipping</h2>",
    table(
      ["Method", "Orders"],
      report.shipping.map((s) => [e(METHOD_WORDS[s.method] ?? s.method), String(s.orders)]),
      "Nothing would ship."
    ),
    "<h3>Economy orders sent as Standard</h3>",
    table(
      ["Order", "Why"],
      report.economyAsStandard.map((o) => [e(o.name), e(o.message)]),
      "None: every Economy order is covered."
    ),
    "<h2>What the POD service would warn about</h2>",
    table(["Order", "Warning"], report.warnings.map((w) => [e(w.name), e(w.warning)]), "No warnings."),
    "<h2>Orders</h2>",
    table(
      ["Order", "Placed", "Outcome", "Shipping", "Paid", "POD cost", "Margin", "Note"],
      report.orders.map((o) => [
        e(o.name),
        e(o.createdAt.slice(0, 10)),
        e(o.outcome === "drafted" ? "drafted" : `${o.outcome}: ${o.reason}`),
        e(o.shippingMethod === null ? "–" : METHOD_WORDS[o.shippingMethod] ?? o.shippingMethod),
        one(o.paid),
        one(o.podCost),
        o.margin === null ? "–" : `<span class="${o.margin.totalNanos < 0n ? "loss" : ""}">${one(o.margin)}</span>`,
        e([o.outcome === "drafted" ? "" : o.message, o.quoteProblem ?? ""].filter((t) => t !== "").join("; "))
      ]),
      "No orders in the window."
    ),
    "<h2>API use</h2>",
    `<p>${api.storePages} store page(s) read; ${api.coverageCalls} Economy coverage call(s) and ${api.quoteCalls} price quote(s) at the POD service. ` +
    `Under the shared budget (${api.budget.requests} requests per ${api.budget.windowSeconds} s) the POD calls take at least ${
      e(formatSeconds(api.budgetSeconds))
    }; this run took ${e(formatSeconds(Math.round(api.elapsedMs / 1000)))}.</p>`,
    ...(report.unreadable.length === 0 ? [] : [
      "<h3>Orders the store sent that could not be read</h3>",
      table(["Store order id", "Problem"], report.unreadable.map((u) => [e(u.storeOrderId), e(u.problem)]))
    ])
  ].join("\n")
}

export const rehearsalHtml = (report: RehearsalReport): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${
    e(report.title)
  }</title><style>${STYLE}</style></head><body><main><h1>${e(report.title)}</h1>\n${rehearsalSections(report)}\n</main></body></html>\n`
