import { byMappingFile } from "../domain/MappingTable.js"
import * as Money from "../domain/Money.js"
import { AWAITING_STORE_PAYMENT, hasDraft, isOrderState, NEEDS_A_PERSON } from "../domain/OrderState.js"
import type { StatusReport } from "../observability/StatusReport.js"
import type { MoneyByPeriod, PeriodMoney } from "../reports/MoneyByPeriod.js"
import { ageText, html, type Html } from "./Html.js"
import { type SellerWords, sellerWordsOf } from "./SellerWords.js"

/** Which orders the table by state and store counts: every one, or those pulled today or in the last 7 days. */
export type OverviewRange = "all" | "today" | "7d"
export const overviewRangeOf = (value: string | undefined): OverviewRange => (value === "today" || value === "7d" ? value : "all")
const RANGE_WORDS: Readonly<Record<OverviewRange, string>> = { all: "all", today: "pulled today", "7d": "pulled in the last 7 days" }
const RANGE_LINKS: Readonly<Record<OverviewRange, string>> = { all: "all", today: "today", "7d": "7 days" }

/** What the overview adds to the status report: the last report's drift findings, and the orders of the range. */
export interface OverviewExtras {
  readonly drift: { readonly findings: number; readonly label: string } | null
  readonly range?: OverviewRange
  /** The orders of the range by store and state; null or absent: every order (the status report's). */
  readonly recent?: ReadonlyArray<{ readonly storeKey: string; readonly state: string; readonly count: number }> | null
  /** Revenue, POD cost and margin of the daily reports, per day and week (absent: reports are not written here). */
  readonly money?: MoneyByPeriod | null
  /** Store names and times in the seller's words (default: store keys, UTC). */
  readonly words?: SellerWords
}

const DAY_WORDS = new Intl.DateTimeFormat("en-GB", { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" })
const dayText = (day: string) => DAY_WORDS.format(new Date(`${day}T00:00:00Z`))

/** One period's rows: each store's figures (a row per currency), then every store's per currency, the POD spend. */
const periodRows = (period: PeriodMoney, label: string, words: SellerWords) => {
  const rows = [
    ...period.stores.map((s) => ({ who: s.storeKey === "" ? "every store" : words.store(s.storeKey), figures: s, total: false })),
    ...(period.stores.length > 1 ? period.total.map((t) => ({ who: "all stores", figures: t, total: true })) : [])
  ]
  if (rows.length === 0) {
    return html`<tr><th scope="row">${label}</th><td colspan="4" class="muted">no order with a POD order</td></tr>`
  }
  return rows.map(({ figures, total, who }, i) =>
    html`<tr class=${total ? "total" : ""}>${
      i === 0 ? html`<th scope="row" rowspan=${rows.length}>${label}</th>` : null
    }<td>${who}</td><td class="num">${Money.format(figures.revenue)}</td><td class="num">${Money.format(figures.podCost)}</td><td class=${
      Money.isNegative(figures.margin) ? "num bad" : "num"
    }>${Money.format(figures.margin)}${
      figures.marginPercent === null ? null : html`<div class="muted">${figures.marginPercent}%</div>`
    }</td></tr>`
  )
}

const moneyTable = (
  caption: string,
  periods: ReadonlyArray<PeriodMoney>,
  labelOf: (p: PeriodMoney) => string,
  testId: string,
  words: SellerWords
) =>
  html`<div class="table-wrap"><table class="money" data-testid=${testId}>
    <caption>${caption}</caption>
    <thead><tr><th scope="col"></th><th scope="col">store</th><th scope="col" class="num">revenue</th><th scope="col" class="num">POD cost</th><th scope="col" class="num">margin</th></tr></thead>
    <tbody>${periods.map((p) => periodRows(p, labelOf(p), words))}</tbody>
  </table></div>`

/** Revenue, POD cost and margin per day and week, each currency apart: the daily reports' own figures. */
const moneyPart = (money: MoneyByPeriod | null | undefined, words: SellerWords): Html | null =>
  money === undefined || money === null ? null : html`<h2>Money</h2>
    ${
    money.days.length === 0
      ? html`<p class="muted" data-testid="money">No daily report yet: revenue, POD cost and margin come from each day's report.</p>`
      : html`<p class="muted" data-testid="money">From the daily reports: orders pulled that day that the POD service has as orders, the store's total against the POD order's; amounts in different currencies are never added together. The rows "all stores" are the POD spend.</p>
    <div class="money-tables">
      ${moneyTable("Per day", money.days, (p) => dayText(p.start), "money-days", words)}
      ${
        moneyTable(
          "Per week",
          money.weeks,
          (p) => `week of ${dayText(p.start)}${p.days < 7 ? ` (${p.days} of 7 days)` : ""}`,
          "money-weeks",
          words
        )
      }
    </div>`
  }`

const sum = (report: StatusReport, keep: (state: string) => boolean) =>
  report.orders.filter((o) => keep(o.state)).reduce((n, o) => n + o.count, 0)

const step = (label: string, count: number, side: ReadonlyArray<{ readonly label: string; readonly count: number }>) =>
  html`<div class="card step">
    <div class="n">${count}</div><div class="l">${label}</div>
    ${side.filter((s) => s.count > 0).map((s) => html`<a class="side" href="/console/queue">${s.count} ${s.label}</a>`)}
  </div>`

/** What the alert channels did: counts, and each alert a channel could not take after its retries. */
const alertsPart = (alerts: StatusReport["alerts"], words: SellerWords): Html | null =>
  alerts === undefined ? null : html`<h2>Alerts</h2>
    <p data-testid="alerts">${alerts.sent} sent, ${alerts.pending} waiting, <span class=${
    alerts.failed.length > 0 ? "bad" : ""
  }>${alerts.failed.length} failed</span></p>
    ${
    alerts.failed.length === 0 ? null : html`<table>
      <thead><tr><th>channel</th><th>alert</th><th>order</th><th>attempts</th><th>last error</th><th>at</th></tr></thead>
      <tbody>${
      alerts.failed.map((f) =>
        html`<tr><td>${f.channel}</td><td>${f.kind}${f.reason === null ? "" : ` (${f.reason})`}</td><td>${
          f.referenceId === null ? "–" : html`<a href=${`/console/order?ref=${encodeURIComponent(f.referenceId)}`}>${f.referenceId}</a>`
        }</td><td class="num">${f.attempts}</td><td class="bad">${f.lastError ?? "no error recorded"}</td><td>${words.time(f.at)}</td></tr>`
      )
    }</tbody>
    </table>`
  }`

/** The live part of the overview: re-fetched every few seconds by htmx (GET /console/live). */
export const overviewLive = (report: StatusReport, extras: OverviewExtras): Html => {
  const count = (state: string) => sum(report, (s) => s === state)
  // An order held unpaid waits for the buyer, not a person: counted apart.
  const awaitingPayment = (report.held ?? []).filter((h) => h.reason === AWAITING_STORE_PAYMENT).reduce((n, h) => n + h.count, 0)
  const needing = sum(report, (s) => (NEEDS_A_PERSON as ReadonlyArray<string>).includes(s)) - awaitingPayment
  const range = extras.range ?? "all"
  const table = extras.recent ?? report.orders
  const states = [...new Set(table.map((o) => o.state))]
  const stores = [...new Set([...table.map((o) => o.storeKey), ...report.pulls.map((p) => p.storeKey)])].sort()
  const troubleOf = (storeKey: string) =>
    [...(report.unreachable ?? []), ...(report.refused ?? [])].filter((t) => t.dependency === `store:${storeKey}`)
  const budget = report.budget
  const words = extras.words ?? sellerWordsOf()
  return html`<section id="live" hx-get=${`/console/live${
    range === "all" ? "" : `?range=${range}`
  }`} hx-trigger="every 5s" hx-swap="outerHTML">
    <div class="cards">
      <a class="card attention" href="/console/queue"><div class="n" data-testid="needs-a-person">${needing}</div><div class="l">need a person</div></a>
${
    awaitingPayment === 0
      ? null
      : html`<a class="card" href=${`/console/queue?reason=held:${AWAITING_STORE_PAYMENT}`}><div class="n" data-testid="awaiting-payment">${awaitingPayment}</div><div class="l">wait for payment at the store</div></a>`
  }
      <div class="card"><div class="n">${sum(report, () => true)}</div><div class="l">orders stored</div></div>
      <div class="card"><div class="n" data-testid="drift">${extras.drift?.findings ?? "–"}</div><div class="l">drift findings${
    extras.drift ? ` (${extras.drift.label})` : " (no report yet)"
  }</div></div>
      <div class="card"><div class="n">${budget ? `${budget.inUse}/${budget.limit}` : "–"}</div><div class="l">POD budget in use${
    budget ? ` per ${budget.windowSeconds} s` : ""
  }</div></div>
    </div>

    ${moneyPart(extras.money, words)}

    <h2>Pipeline</h2>
    <div class="flow">
      ${step("pulled", sum(report, () => true), [{ label: "held", count: count("held") }])}
      <span class="arrow">\u2192</span>
      ${
    step("drafted", sum(report, (s) => isOrderState(s) && hasDraft(s)), [
      { label: "failed", count: count("failed") },
      { label: "cancel pending", count: count("cancel_pending") },
      { label: "on hold at POD", count: count("pod_on_hold") }
    ])
  }
      <span class="arrow">\u2192</span>
      ${step("shipped", count("shipped") + count("fulfilled"), [])}
      <span class="arrow">\u2192</span>
      ${step("fulfilled", count("fulfilled"), [])}
    </div>

    <h2>Orders by state and store <span class="muted">(${RANGE_WORDS[range]})</span></h2>
    <p class="filters" data-testid="range">${
    (["all", "today", "7d"] as const).map((r) =>
      r === range
        ? html`<strong>${RANGE_LINKS[r]}</strong> `
        : html`<a href=${r === "all" ? "/console" : `/console?range=${r}`}>${RANGE_LINKS[r]}</a> `
    )
  }</p>
    <div class="table-wrap"><table>
      <thead><tr><th>store</th>${states.map((s) => html`<th class="num">${s.replaceAll("_", " ")}</th>`)}</tr></thead>
      <tbody>${
    stores.map((storeKey) =>
      html`<tr><td>${words.store(storeKey)}</td>${
        states.map((state) => {
          const n = table.find((o) => o.storeKey === storeKey && o.state === state)?.count ?? 0
          const attention = n > 0 && (NEEDS_A_PERSON as ReadonlyArray<string>).includes(state)
          return html`<td class=${attention ? "num bad" : "num"}>${n}</td>`
        })
      }</tr>`
    )
  }</tbody>
    </table></div>

    <h2>Stores</h2>
    <table>
      <thead><tr><th>store</th><th>last pull</th><th>last error</th></tr></thead>
      <tbody>${
    report.pulls.map((p) =>
      html`<tr><td>${words.store(p.storeKey)}</td><td>${
        p.lastPullAt === null ? "never" : `${ageText(p.ageSeconds ?? 0)} ago`
      }</td><td class=${troubleOf(p.storeKey).length > 0 ? "bad" : "muted"}>${
        troubleOf(p.storeKey).map((t) => "lastError" in t ? t.lastError : t.answer).join("; ") || "none"
      }</td></tr>`
    )
  }</tbody>
    </table>

    <h2>POD budget</h2>
    ${
    budget === null ? html`<p class="muted">not known to this process</p>` : html`<table>
      <tbody>
        <tr><th>slots in use</th><td class="num">${budget.inUse} of ${budget.limit} per ${budget.windowSeconds} s (${budget.inFlight} in flight)</td></tr>
        <tr><th>waiting (urgent / normal / background)</th><td class="num">${
      budget.waiting ? `${budget.waiting.urgent} / ${budget.waiting.normal} / ${budget.waiting.background}` : "–"
    }</td></tr>
        <tr><th>paused</th><td class="num">${budget.pausedUntil === null ? "no" : `until ${words.time(budget.pausedUntil)}`}</td></tr>
        <tr><th>sent / answered 429 since start</th><td class="num">${budget.sent ?? "–"} / ${budget.rateLimited ?? "–"}</td></tr>
      </tbody>
    </table>`
  }
    ${alertsPart(report.alerts, words)}
    <p class="muted">As of ${words.time(report.generatedAt)} (${words.timezone}); updates every 5 s.</p>
  </section>`
}

export const overviewContent = (report: StatusReport, extras: OverviewExtras): Html =>
  html`<h1>Overview</h1>${
    byMappingFile(report.mappingFiles ?? []).map((m) =>
      html`<p class="flash refused">Mapping file ${m.file} of ${m.storeKeys.join(", ")} does not load whole: ${m.issues.join("; ")}</p>`
    )
  }${overviewLive(report, extras)}`
