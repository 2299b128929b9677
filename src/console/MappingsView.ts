import { cellsOfRow } from "../domain/MappingCells.js"
import type { MappingTable } from "../domain/MappingTable.js"
import { html, type Html } from "./Html.js"

export interface WaitingLine {
  readonly sku: string
  readonly variantId: string
  readonly title: string | null
  readonly orders: number
}

export interface MappingsInput {
  readonly storeKeys: ReadonlyArray<string>
  readonly storeKey: string | undefined
  readonly file: string | undefined
  readonly table: MappingTable | undefined
  readonly waiting: ReadonlyArray<WaitingLine>
  readonly problems: ReadonlyArray<string>
  readonly csrfToken: string
  readonly prefill: { readonly sku?: string | undefined; readonly variantId?: string | undefined }
  readonly flash?: { readonly ok: boolean; readonly text: string; readonly line?: string } | undefined
}

const SHOWN_ROWS = 500

/** A store's mapping rows in force, the SKUs held orders wait on, and a form that adds a row to the store's file. */
export const mappingsContent = (input: MappingsInput): Html => {
  const rows = input.table?.rows ?? []
  return html`<h1>Mappings</h1>
    ${
    input.flash === undefined ?
      null :
      html`<div class=${input.flash.ok ? "flash" : "flash refused"} role=${input.flash.ok ? "status" : "alert"}>
      ${input.flash.text}${input.flash.line ? html`<pre data-testid="paste">${input.flash.line}</pre>` : null}</div>`
  }
    <form method="get" action="/console/mappings" class="filters">
      <label>Store <select name="store">
        ${input.storeKeys.map((s) => html`<option value=${s} selected=${s === input.storeKey}>${s}</option>`)}
      </select></label>
      <button type="submit" class="secondary">Show</button>
    </form>
    ${input.problems.map((p) => html`<p class="flash refused">${p}</p>`)}
    ${
    input.storeKey === undefined ? null : html`
    <h2>Waiting on a row <span class="pill warn">${input.waiting.reduce((n, w) => n + w.orders, 0)} orders</span></h2>
    ${
      input.waiting.length === 0 ? html`<p class="muted">No held order waits on a mapping row.</p>` : html`<table data-testid="waiting">
      <thead><tr><th>SKU</th><th>variant id</th><th>item</th><th class="num">orders</th><th></th></tr></thead>
      <tbody>${
        input.waiting.map((w) =>
          html`<tr><td>${w.sku}</td><td>${w.variantId}</td><td>${w.title ?? ""}</td><td class="num">${w.orders}</td>
          <td><a href=${`/console/mappings?store=${encodeURIComponent(input.storeKey ?? "")}&sku=${encodeURIComponent(w.sku)}&variant=${
            encodeURIComponent(w.variantId)
          }#add`}>map it</a></td></tr>`
        )
      }</tbody></table>`
    }
    <h2 id="add">Add a row to ${input.file ?? "the mapping file"}</h2>
    <form method="post" action="/console/mappings/add" class="filters" data-testid="add-row">
      <input type="hidden" name="_csrf" value=${input.csrfToken} />
      <input type="hidden" name="store" value=${input.storeKey} />
      <label>store_sku <input name="store_sku" value=${input.prefill.sku ?? ""} /></label>
      <label>store_variant_id <input name="store_variant_id" value=${input.prefill.variantId ?? ""} /></label>
      <label>pod_variant_id <input name="pod_variant_id" placeholder="GM0002010011" /></label>
      <label>print_front <input name="print_front" placeholder="{{attr design_front}}" /></label>
      <button type="submit">Add the row</button>
    </form>
    <p class="muted">The file stays the source of truth: the row is added to it (the previous version kept as .bak) and the held orders are re-planned. <code>podsync mappings suggest</code> proposes POD variants from the catalog.</p>
    <h2>Rows in force <span class="pill">${rows.length}</span></h2>
    <table data-testid="rows">
      <thead><tr><th>line</th><th>store_variant_id</th><th>store_sku</th><th>pod_variant_id</th><th class="hide-narrow">print_front</th><th>ignore</th></tr></thead>
      <tbody>${
      rows.slice(0, SHOWN_ROWS).map((row) => {
        const cells = cellsOfRow(row)
        return html`<tr><td>${row.line}</td><td>${cells.store_variant_id}</td><td>${cells.store_sku}</td><td>${cells.pod_variant_id}</td>
          <td class="hide-narrow">${cells.print_front}</td><td>${cells.ignore}</td></tr>`
      })
    }</tbody>
    </table>
    ${rows.length > SHOWN_ROWS ? html`<p class="muted">The first ${SHOWN_ROWS} of ${rows.length} rows.</p>` : null}`
  }`
}
