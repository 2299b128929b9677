import type { ListedReport } from "../reporting/ReportService.js"
import { html, type Html } from "./Html.js"
import { type SellerWords, sellerWordsOf } from "./SellerWords.js"

export interface ReportsInput {
  readonly reports: ReadonlyArray<ListedReport>
  readonly csrfToken: string
  readonly storeKeys: ReadonlyArray<string>
  readonly flash?: { readonly ok: boolean; readonly text: string } | undefined
  /** Store names, periods and times in the seller's words (default: store keys, UTC). */
  readonly words?: SellerWords
}

/** The reports written, newest period first, each openable and downloadable; and "run a report now". */
export const reportsContent = ({ csrfToken, flash, reports, storeKeys, words = sellerWordsOf() }: ReportsInput): Html =>
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
        ${storeKeys.map((s) => html`<option value=${s}>${words.store(s)}</option>`)}
      </select></label>
      <label>From (optional) <input name="from" placeholder="2026-11-01" /></label>
      <label>To (optional) <input name="to" placeholder="2026-11-07" /></label>
      <button type="submit">Run a report now</button>
    </form>
    ${
    reports.length === 0 ? html`<p class="muted">No report written yet.</p>` : html`<div class="table-wrap"><table data-testid="reports">
      <thead><tr><th>period</th><th>store</th><th class="num">orders</th><th class="num">need a person</th><th class="num">drift findings</th><th>files</th><th class="hide-narrow">written</th></tr></thead>
      <tbody>${
      reports.map((r) =>
        html`<tr>
          <td>${words.period(r.from, r.to)}</td>
          <td>${r.store === null ? "every store" : words.store(r.store)}</td>
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
          <td class="hide-narrow muted">${words.time(r.createdAt)}</td>
        </tr>`
      )
    }</tbody>
    </table></div>`
  }`
