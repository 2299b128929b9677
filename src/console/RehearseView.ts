import type * as Money from "../domain/Money.js"
import { formatSeconds } from "../reports/RehearsalFormats.js"
import { plainAmount } from "../reports/MoneyText.js"
import { html, type Html } from "./Html.js"
import type { LatestRehearsal } from "./RehearsalRuns.js"
import { type SellerWords, sellerWordsOf } from "./SellerWords.js"

export interface RehearseInput {
  readonly csrfToken: string
  readonly storeKeys: ReadonlyArray<string>
  readonly latest: ReadonlyArray<LatestRehearsal>
  readonly flash?: { readonly ok: boolean; readonly text: string } | undefined
  readonly words?: SellerWords
}

const amounts = (list: ReadonlyArray<Money.Money>) =>
  list.length === 0 ? "nothing" : list.map((m) => `${plainAmount(m)} ${m.currency}`).join(" + ")

const fileLink = (f: { readonly format: string; readonly name: string }) =>
  html`<a href=${`/console/reports/file/${encodeURIComponent(f.name)}`} download=${f.format === "html" ? undefined : f.name}>${
    f.format === "html" ? "open the report" : f.format.toUpperCase()
  }</a>`

const latestOf = (entry: LatestRehearsal, words: SellerWords): Html => {
  const head = html`<h2>${words.store(entry.storeKey)}: the last ${entry.days} day(s)</h2>`
  switch (entry._tag) {
    case "Running":
      return html`<section data-testid="rehearsal">${head}<p class="muted">Running since ${
        words.time(new Date(entry.startedAt))
      }: reload this page to see the report.</p></section>`
    case "Failed":
      return html`<section data-testid="rehearsal">${head}<p class="flash refused" role="alert">It failed: ${entry.error}</p></section>`
    case "Done": {
      const r = entry.result.report
      return html`<section data-testid="rehearsal">${head}
        <p class="muted">Run ${words.time(new Date(r.generatedAt))}; nothing was written at the store or the POD service.</p>
        <div class="table-wrap"><table>
          <thead><tr><th class="num">orders</th><th class="num">would be drafted</th><th class="num">held</th><th class="num">skipped</th><th>POD cost</th><th>buyers paid</th><th>margin</th></tr></thead>
          <tbody><tr>
            <td class="num">${r.counts.orders}</td><td class="num">${r.counts.drafted}</td>
            <td class=${r.counts.held > 0 ? "num bad" : "num"}>${r.counts.held}</td><td class="num">${r.counts.skipped}</td>
            <td>${amounts(r.money.podCost)}</td><td>${amounts(r.money.paid)}</td><td>${amounts(r.money.margin)}</td>
          </tr></tbody>
        </table></div>
        ${
        r.held.length === 0 ?
          html`<p>No order would be held.</p>` :
          html`<h3>Held: what to do first</h3><ul>${r.held.map((g) => html`<li><b>${g.reason}</b> (${g.orders}): ${g.example}</li>`)}</ul>`
      }
        ${
        r.toMap.length === 0 ?
          null :
          html`<h3>SKUs to map</h3><ul>${
            r.toMap.map((m) => html`<li><code>${m.sku}</code> (${m.orders} order(s)): ${m.suggestion}</li>`)
          }</ul>`
      }
        ${r.skipped.length === 0 ? null : html`<p>Skipped: ${r.skipped.map((g) => `${g.reason} ${g.orders}`).join(", ")}.</p>`}
        ${r.economyAsStandard.length === 0 ? null : html`<p>${r.economyAsStandard.length} Economy order(s) would be sent as Standard.</p>`}
        ${r.warnings.length === 0 ? null : html`<p>${r.warnings.length} warning(s) the POD service would give.</p>`}
        <p>${r.api.quoteCalls} price quote(s) and ${r.api.coverageCalls} coverage call(s): at least ${
        formatSeconds(r.api.budgetSeconds)
      } under the POD budget; this run took ${formatSeconds(Math.round(r.api.elapsedMs / 1000))}.</p>
        <div class="actions">${entry.result.files.map(fileLink)}</div>
      </section>`
    }
  }
}

/** The go-live rehearsal page: the form (store, days) that starts one in the background, and each store's latest. */
export const rehearseContent = ({ csrfToken, flash, latest, storeKeys, words = sellerWordsOf() }: RehearseInput): Html =>
  html`<h1>Rehearse going live</h1>
    <p class="muted">Reads a store's recent orders without changing anything, runs them through today's mappings, catalog and shipping
      rules, and asks the POD service what each draft would cost. Nothing is created at the POD service or written at the store.</p>
    ${
    flash === undefined
      ? null
      : html`<p class=${flash.ok ? "flash" : "flash refused"} role=${flash.ok ? "status" : "alert"}>${flash.text}</p>`
  }
    <form method="post" action="/console/rehearse/run" class="filters">
      <input type="hidden" name="_csrf" value=${csrfToken} />
      <label>Store <select name="store">${storeKeys.map((s) => html`<option value=${s}>${words.store(s)}</option>`)}</select></label>
      <label>Days <input name="days" type="number" min="1" max="365" value="30" /></label>
      <button type="submit">Rehearse</button>
    </form>
    ${latest.length === 0 ? html`<p class="muted">No rehearsal yet.</p>` : latest.map((entry) => latestOf(entry, words))}`
