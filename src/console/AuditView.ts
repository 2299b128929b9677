import type { ConsoleAction, ConsoleActionsPage } from "../repos/ConsoleActionsRepo.js"
import { html } from "./Html.js"
import type { SellerWords } from "./SellerWords.js"

/**
 * The console's audit page (issue 34, "A team"): every action a person took in the console and
 * every one it refused them, newest first, 50 a page: who (and the role they had), what, on which
 * order or store's mappings, and when.
 */

export const AUDIT_PAGE_SIZE = 50

const OUTCOME_TEXT: Readonly<Record<string, string>> = { done: "done", already_done: "already done", refused: "refused" }

const subject = (action: ConsoleAction, words: SellerWords) =>
  action.referenceId !== null
    ? html`<a href=${`/console/order?ref=${encodeURIComponent(action.referenceId)}`}>${action.referenceId}</a>`
    : action.storeKey !== null && action.kind.startsWith("mapping_")
    ? html`<a href=${`/console/mappings?store=${encodeURIComponent(action.storeKey)}`}>mappings of ${words.store(action.storeKey)}</a>`
    : action.storeKey !== null
    ? words.store(action.storeKey)
    : "\u2013"

const row = (action: ConsoleAction, words: SellerWords) =>
  html`<tr data-kind=${action.kind} data-outcome=${action.outcome}>
    <td class="nowrap">${words.time(action.at)}</td>
    <td>${action.actor} <span class="muted">${action.role}</span></td>
    <td>${action.summary}</td>
    <td>${subject(action, words)}</td>
    <td class=${action.outcome === "refused" ? "refused" : ""}>${OUTCOME_TEXT[action.outcome] ?? action.outcome}</td>
  </tr>`

export const auditContent = (page: ConsoleActionsPage, words: SellerWords, older: boolean) =>
  html`
    <h1>Audit</h1>
    <p class="muted">Every action taken in the console, and every one refused to someone's role, newest first (times in ${words.timezone}).</p>
    ${
    page.actions.length === 0 ? html`<p class="muted">Nothing done in the console yet.</p>` : html`
      <div class="scroll"><table data-testid="audit">
        <thead><tr><th>When</th><th>Who</th><th>What</th><th>On</th><th>Outcome</th></tr></thead>
        <tbody>${page.actions.map((a) => row(a, words))}</tbody>
      </table></div>`
  }
    <nav class="pager" aria-label="pages">
      ${older ? html`<a href="/console/audit">Newest</a>` : null}
      ${page.next === undefined ? null : html`<a href=${`/console/audit?before=${page.next}`} rel="next">Older \u2192</a>`}
    </nav>`
