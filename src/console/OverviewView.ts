import { hasDraft, isOrderState, NEEDS_A_PERSON } from "../domain/OrderState.js"
import type { StatusReport } from "../observability/StatusReport.js"
import { ageText, html, type Html } from "./Html.js"

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
}

const sum = (report: StatusReport, keep: (state: string) => boolean) =>
  report.orders.filter((o) => keep(o.state)).reduce((n, o) => n + o.count, 0)

const step = (label: string, count: number, side: ReadonlyArray<{ readonly label: string; readonly count: number }>) =>
  html`<div class="card step">
    <div class="n">${count}</div><div class="l">${label}</div>
    ${side.filter((s) => s.count > 0).map((s) => html`<a class="side" href="/console/queue">${s.count} ${s.label}</a>`)}
  </div>`

/** What the alert channels did: counts, and each alert a channel could not take after its retries. */
const alertsPart = (alerts: StatusReport["alerts"]): Html | null =>
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
        }</td><td class="num">${f.attempts}</td><td class="bad">${f.lastError ?? "no error recorded"}</td><td>${f.at}</td></tr>`
      )
    }</tbody>
    </table>`
  }`

/** The live part of the overview: re-fetched every few seconds by htmx (GET /console/live). */
export const overviewLive = (report: StatusReport, extras: OverviewExtras): Html => {
  const count = (state: string) => sum(report, (s) => s === state)
  const needing = sum(report, (s) => (NEEDS_A_PERSON as ReadonlyArray<string>).includes(s))
  const range = extras.range ?? "all"
  const table = extras.recent ?? report.orders
  const states = [...new Set(table.map((o) => o.state))]
  const stores = [...new Set([...table.map((o) => o.storeKey), ...report.pulls.map((p) => p.storeKey)])].sort()
  const troubleOf = (storeKey: string) =>
    [...(report.unreachable ?? []), ...(report.refused ?? [])].filter((t) => t.dependency === `store:${storeKey}`)
  const budget = report.budget
  return html`<section id="live" hx-get=${`/console/live${
    range === "all" ? "" : `?range=${range}`
  }`} hx-trigger="every 5s" hx-swap="outerHTML">
    <div class="cards">
      <a class="card attention" href="/console/queue"><div class="n" data-testid="needs-a-person">${needing}</div><div class="l">need a person</div></a>
      <div class="card"><div class="n">${sum(report, () => true)}</div><div class="l">orders stored</div></div>
      <div class="card"><div class="n" data-testid="drift">${extras.drift?.findings ?? "–"}</div><div class="l">drift findings${
    extras.drift ? ` (${extras.drift.label})` : " (no report yet)"
  }</div></div>
      <div class="card"><div class="n">${budget ? `${budget.inUse}/${budget.limit}` : "–"}</div><div class="l">POD budget in use${
    budget ? ` per ${budget.windowSeconds} s` : ""
  }</div></div>
    </div>

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
    <table>
      <thead><tr><th>store</th>${states.map((s) => html`<th class="num">${s.replaceAll("_", " ")}</th>`)}</tr></thead>
      <tbody>${
    stores.map((storeKey) =>
      html`<tr><td>${storeKey}</td>${
        states.map((state) => {
          const n = table.find((o) => o.storeKey === storeKey && o.state === state)?.count ?? 0
          const attention = n > 0 && (NEEDS_A_PERSON as ReadonlyArray<string>).includes(state)
          return html`<td class=${attention ? "num bad" : "num"}>${n}</td>`
        })
      }</tr>`
    )
  }</tbody>
    </table>

    <h2>Stores</h2>
    <table>
      <thead><tr><th>store</th><th>last pull</th><th>last error</th></tr></thead>
      <tbody>${
    report.pulls.map((p) =>
      html`<tr><td>${p.storeKey}</td><td>${p.lastPullAt === null ? "never" : `${ageText(p.ageSeconds ?? 0)} ago`}</td><td class=${
        troubleOf(p.storeKey).length > 0 ? "bad" : "muted"
      }>${troubleOf(p.storeKey).map((t) => "lastError" in t ? t.lastError : t.answer).join("; ") || "none"}</td></tr>`
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
        <tr><th>paused</th><td class="num">${budget.pausedUntil === null ? "no" : `until ${budget.pausedUntil}`}</td></tr>
        <tr><th>sent / answered 429 since start</th><td class="num">${budget.sent ?? "–"} / ${budget.rateLimited ?? "–"}</td></tr>
      </tbody>
    </table>`
  }
    ${alertsPart(report.alerts)}
    <p class="muted">As of ${report.generatedAt}; updates every 5 s.</p>
  </section>`
}

export const overviewContent = (report: StatusReport, extras: OverviewExtras): Html =>
  html`<h1>Overview</h1>${
    (report.mappingFiles ?? []).map((m) =>
      html`<p class="flash refused">Mapping file ${m.file} of ${m.storeKey} does not load whole: ${m.issues.join("; ")}</p>`
    )
  }${overviewLive(report, extras)}`
