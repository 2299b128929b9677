/**
 * The console's would-be drafts (issue 37), pure: what a daemon in dry run recorded instead of
 * sending, newest first: each order's draft lines (the catalog's variant names), its shipping
 * method, a POD cost estimate from the catalog's prices when every line's is known (shipping not
 * included: the service prices it at the draft), and what the buyer paid the store.
 */
import { Option } from "effect"
import * as Money from "../domain/Money.js"
import { type CatalogPrice, decodeRecordedDraft, type RecordedDraft, type WouldSendRow } from "../repos/OrderListRepo.js"
import { html } from "./Html.js"
import type { SellerWords } from "./SellerWords.js"

/** The POD cost of a would-be draft's lines from the catalog's prices, per currency; undefined unless every line's price is known. */
export const costEstimate = (
  draft: RecordedDraft,
  variants: ReadonlyMap<string, CatalogPrice>
): ReadonlyArray<Money.Money> | undefined => {
  const sums = new Map<string, bigint>()
  for (const line of draft.body.data.line_items) {
    const price = line.variant_id === undefined ? undefined : variants.get(line.variant_id)?.price
    if (price === undefined) return undefined
    const amount = Money.multiply(price, line.quantity)
    sums.set(amount.currency, (sums.get(amount.currency) ?? 0n) + amount.totalNanos)
  }
  return [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([currency, nanos]) => Money.fromNanos(currency, nanos))
}

/** "METHOD_FAST_SHIP" → "fast ship". */
const shippingWords = (method: string | undefined) =>
  method === undefined ? "the store's default" : method.replace(/^METHOD_/, "").toLowerCase().replaceAll("_", " ")

const lineWords = (line: RecordedDraft["body"]["data"]["line_items"][number], variants: ReadonlyMap<string, CatalogPrice>) => {
  const id = line.variant_id ?? `legacy ${String(line.legacy_id ?? "?")}`
  const name = line.variant_id === undefined ? undefined : variants.get(line.variant_id)?.name
  return `${line.quantity} \u00d7 ${name === undefined || name === "" ? id : `${name} (${id})`}`
}

/** What a recorded request other than a draft would have done, in a line. */
const otherWords = (request: unknown): string => {
  const kind = typeof request === "object" && request !== null && "kind" in request ? request.kind : undefined
  if (kind === "tracking") return "would push its tracking to the store"
  if (kind === "draft_update") return "would update the draft's lines to the store's edit"
  return "would send a request (see its story)"
}

export const dryRunContent = (input: {
  readonly dryRun: boolean
  readonly rows: ReadonlyArray<WouldSendRow>
  readonly total: number
  readonly variants: ReadonlyMap<string, CatalogPrice>
  readonly words: SellerWords
}) => {
  const { rows, variants, words } = input
  return html`
    <h1>Would-be drafts</h1>
    <p>${
    input.dryRun
      ? "podsync runs dry: it pulls and plans every order, but sends nothing to the POD service or the stores. These are the drafts it would have created. Start it without --dry-run (or set pipeline.dryRun: false) and exactly these orders are drafted, once each."
      : "Dry run is off: these orders, recorded by a dry run, are drafted as podsync reaches them."
  }</p>
    ${rows.length < input.total ? html`<p class="muted">The newest ${rows.length} of ${input.total} are listed.</p>` : null}
    ${
    rows.length === 0
      ? html`<p class="muted">Nothing recorded yet.</p>`
      : html`<div class="table-wrap"><table class="would-be">
        <thead><tr><th>Order</th><th>Store</th><th>Recorded</th><th>Draft lines</th><th>Shipping</th>
          <th class="num">POD cost (estimate)</th><th class="num">Store total</th></tr></thead>
        <tbody>${
        rows.map((row) => {
          const draft = Option.getOrUndefined(decodeRecordedDraft(row.request))
          const estimate = draft === undefined ? undefined : costEstimate(draft, variants)
          return html`<tr>
            <td><a href=${`/console/order?ref=${encodeURIComponent(row.referenceId)}`}>${row.name ?? row.referenceId}</a>
              <div class="muted"><code>${row.referenceId}</code></div></td>
            <td>${words.store(row.storeKey)}</td>
            <td>${words.time(row.recordedAt)}</td>
            <td>${
            draft === undefined
              ? otherWords(row.request)
              : html`<ul class="lines">${draft.body.data.line_items.map((l) => html`<li>${lineWords(l, variants)}</li>`)}</ul>`
          }</td>
            <td>${draft === undefined ? "" : shippingWords(draft.body.data.shipping_method)}</td>
            <td class="num">${
            draft === undefined ?
              "" :
              estimate === undefined ?
              html`<span class="muted">not known</span>` :
              `${estimate.map((m) => Money.format(m)).join(" + ")} + shipping`
          }</td>
            <td class="num">${row.storeTotal === undefined ? "" : Money.format(row.storeTotal)}</td>
          </tr>`
        })
      }</tbody></table></div>`
  }`
}
