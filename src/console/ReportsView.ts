import type { ListedReport } from "../reporting/ReportService.js"
import { html, type Html } from "./Html.js"

export interface ReportsInput {
  readonly reports: ReadonlyArray<ListedReport>
  readonly csrfToken: string
  readonly storeKeys: ReadonlyArray<string>
  readonly flash?: { readonly ok: boolean; readonly text: string } | undefined
}

/** The reports written, newest period first, each openable and downloadable; and "run a report now". */
export const reportsContent = ({ csrfToken, flash, reports, storeKeys }: ReportsInput): Html =>
  html`<h1>Reports</h1>
    ${
    flash === undefined
      ? null
      : html`<p class=${flash.ok ? "flash" : "flash refused"} role=${flash.ok ? "status" : "alert"}>${flash.text}</p>`
  }
    <form method="post" action="/console/reports/run" class="filters">
      <input type="hidden" name="_csrf" value=${csrfToken} />
      <label>Store <select name="store">
        <option value="">every store</option>
        ${storeKeys.map((s) => html`<option value=${s}>${s}</option>`)}
      </select></label>
      <label>From (optional) <input name="from" placeholder="2026-11-01" /></label>
      <label>To (optional) <input name="to" placeholder="2026-11-07" /></label>
      <button type="submit">Run a report now</button>
    </form>
    ${
    reports.length === 0 ? html`<p class="muted">No report written yet.</p>` : html`<table data-testid="reports">
      <thead><tr><th>period</th><th>store</th><th class="num">orders</th><th class="num">need a person</th><th class="num">drift findings</th><th>files</th><th class="hide-narrow">written</th></tr></thead>
      <tbody>${
      reports.map((r) =>
        html`<tr>
          <td>${r.summary?.label ?? `${r.from} – ${r.to}`}</td>
          <td>${r.store ?? "every store"}</td>
          <td class="num">${r.summary?.pulled ?? ""}</td>
          <td class=${(r.summary?.needsAPerson ?? 0) > 0 ? "num bad" : "num"}>${r.summary?.needsAPerson ?? ""}</td>
          <td class="num">${r.summary?.findings ?? ""}</td>
          <td><div class="actions">${
          (r.summary?.files ?? []).map((f) =>
            html`<a href=${`/console/reports/file/${encodeURIComponent(f.name)}`} download=${f.format === "html" ? undefined : f.name}>${
              f.format === "html" ? "open" : f.format.toUpperCase()
            }</a>`
          )
        }</div></td>
          <td class="hide-narrow muted">${r.createdAt.replace("T", " ").slice(0, 16)}</td>
        </tr>`
      )
    }</tbody>
    </table>`
  }`
