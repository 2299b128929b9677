import { cellsOfRow, type MappingCells } from "../domain/MappingCells.js"
import { MAPPING_COLUMNS, type MappingTable } from "../domain/MappingTable.js"
import type { LineSuggestion } from "../mapping/MappingSuggest.js"
import { html, type Html } from "./Html.js"

export interface WaitingLine {
  readonly sku: string
  readonly variantId: string
  readonly title: string | null
  readonly orders: number
  /** What `podsync mappings suggest` would write for it (absent: no catalog cached yet). */
  readonly suggestion?: LineSuggestion | undefined
}

export interface Prefill {
  readonly sku?: string | undefined
  readonly variantId?: string | undefined
  readonly podVariantId?: string | undefined
  readonly printFront?: string | undefined
}

export interface Flash {
  readonly ok: boolean
  readonly text: string
  /** The row to paste by hand when the file cannot be written. */
  readonly line?: string | undefined
}

export interface MappingsInput {
  readonly storeKeys: ReadonlyArray<string>
  readonly storeKey: string | undefined
  readonly file: string | undefined
  readonly table: MappingTable | undefined
  readonly waiting: ReadonlyArray<WaitingLine>
  /** Whether the catalog cache holds anything to suggest from and check against. */
  readonly catalogCached: boolean
  /** What `podsync check` says of the file, one "file:line: problem" each (absent: no store). */
  readonly lint: ReadonlyArray<string> | undefined
  readonly problems: ReadonlyArray<string>
  readonly csrfToken: string
  readonly prefill: Prefill
  /**
   * The row whose edit form is open: the cells in its inputs, and the row the line holds (`shown`,
   * what a change is checked against; the cells themselves when absent). A refused change reopens
   * with what was typed.
   */
  readonly editing?: { readonly line: number; readonly cells: MappingCells; readonly shown?: MappingCells } | undefined
  readonly flash?: Flash | undefined
  /** Download, upload and the suggested rows (`MappingsCsvView`). */
  readonly fileSection?: Html | undefined
}

const SHOWN_ROWS = 500

const pageUrl = (params: Record<string, string | undefined>, anchor: string) =>
  `/console/mappings?${
    Object.entries(params).flatMap(([k, v]) => (v === undefined || v === "" ? [] : [`${k}=${encodeURIComponent(v)}`])).join("&")
  }#${anchor}`

const suggestionCell = (suggestion: LineSuggestion | undefined): Html =>
  suggestion === undefined
    ? html`<span class="muted">no catalog cached yet</span>`
    : html`${suggestion.podVariantId === undefined ? null : html`<code>${suggestion.podVariantId}</code> `}<span
      class=${suggestion.podVariantId === undefined ? "muted" : undefined}>${suggestion.note}</span>`

const waitingTable = (input: MappingsInput): Html =>
  input.waiting.length === 0 ?
    html`<p class="muted">No held order waits on a mapping row.</p>` :
    html`<div class="table-wrap"><table data-testid="waiting">
      <thead><tr><th>SKU</th><th>variant id</th><th>item</th><th class="num">orders</th><th>suggested POD variant</th><th></th></tr></thead>
      <tbody>${
      input.waiting.map((w) =>
        html`<tr><td>${w.sku}</td><td>${w.variantId}</td><td>${w.title ?? ""}</td><td class="num">${w.orders}</td>
          <td data-testid="suggestion">${suggestionCell(w.suggestion)}</td>
          <td><a href=${
          pageUrl({ store: input.storeKey, sku: w.sku, variant: w.variantId, pod: w.suggestion?.podVariantId }, "add")
        }>map it</a></td></tr>`
      )
    }</tbody></table></div>`

const lintList = (input: MappingsInput): Html => {
  const lint = input.lint ?? []
  return html`<h2 id="check">What podsync check says of ${input.file ?? "the file"} <span class=${
    lint.length === 0 ? "pill" : "pill warn"
  }>${lint.length}</span></h2>
    ${input.catalogCached ? null : html`<p class="muted">No catalog is cached yet: the POD variants are not checked against it.</p>`}
    ${
    lint.length === 0
      ? html`<p class="muted">No problem found.</p>`
      : html`<ul data-testid="lint">${lint.map((line) => html`<li><code>${line}</code></li>`)}</ul>`
  }`
}

const editForm = (input: MappingsInput, editing: NonNullable<MappingsInput["editing"]>): Html =>
  html`<h2 id="edit">Change line ${editing.line} of ${input.file ?? "the mapping file"}</h2>
    <form method="post" action="/console/mappings/edit" class="filters" data-testid="edit-row">
      <input type="hidden" name="_csrf" value=${input.csrfToken} />
      <input type="hidden" name="store" value=${input.storeKey} />
      <input type="hidden" name="line" value=${String(editing.line)} />
      ${MAPPING_COLUMNS.map((c) => html`<input type="hidden" name=${`old_${c}`} value=${(editing.shown ?? editing.cells)[c]} />`)}
      ${MAPPING_COLUMNS.map((c) => html`<label>${c} <input name=${c} value=${editing.cells[c]} /></label>`)}
      <button type="submit">Change the row</button>
      <a href=${pageUrl({ store: input.storeKey }, "rows")}>cancel</a>
    </form>
    <p class="muted">If the file changed since this page was shown and line ${editing.line} no longer holds this row, nothing is written.</p>`

/** A store's mapping rows in force, the SKUs held orders wait on, what check says of the file, and forms that add or change a row. */
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
    ${waitingTable(input)}
    ${
      input.waiting.length === 0
        ? null
        : html`<p><a href=${`/console/mappings/products?store=${
          encodeURIComponent(input.storeKey ?? "")
        }`} data-testid="by-product">Map a product's variants in one step</a> <span class="muted">(a POD product picked from the catalog, its variants matched by size and colour)</span></p>`
    }
    ${input.editing === undefined ? null : editForm(input, input.editing)}
    <h2 id="add">Add a row to ${input.file ?? "the mapping file"}</h2>
    <form method="post" action="/console/mappings/add" class="filters" data-testid="add-row">
      <input type="hidden" name="_csrf" value=${input.csrfToken} />
      <input type="hidden" name="store" value=${input.storeKey} />
      <label>store_sku <input name="store_sku" value=${input.prefill.sku ?? ""} /></label>
      <label>store_variant_id <input name="store_variant_id" value=${input.prefill.variantId ?? ""} /></label>
      <label>pod_variant_id <input name="pod_variant_id" placeholder="GM0002010011" value=${input.prefill.podVariantId ?? ""} /></label>
      <label>print_front <input name="print_front" placeholder="{{attr design_front}}" value=${input.prefill.printFront ?? ""} /></label>
      <button type="submit">Add the row</button>
    </form>
    <p class="muted">The file stays the source of truth: the row is added to it (the previous version kept as .bak) and the held orders are re-planned. The suggestions are those of <code>podsync mappings suggest</code>, from the cached catalog.</p>
    ${input.fileSection ?? null}
    ${lintList(input)}
    <h2 id="rows">Rows in force <span class="pill">${rows.length}</span></h2>
    <div class="table-wrap"><table data-testid="rows">
      <thead><tr><th>line</th><th>store_variant_id</th><th>store_sku</th><th>pod_variant_id</th><th class="hide-narrow">print_front</th><th>ignore</th><th></th></tr></thead>
      <tbody>${
      rows.slice(0, SHOWN_ROWS).map((row) => {
        const cells = cellsOfRow(row)
        return html`<tr data-line=${
          String(row.line)
        }><td>${row.line}</td><td>${cells.store_variant_id}</td><td>${cells.store_sku}</td><td>${cells.pod_variant_id}</td>
          <td class="hide-narrow">${cells.print_front}</td><td>${cells.ignore}</td>
          <td><a href=${pageUrl({ store: input.storeKey, edit: String(row.line) }, "edit")}>edit</a></td></tr>`
      })
    }</tbody>
    </table></div>
    ${rows.length > SHOWN_ROWS ? html`<p class="muted">The first ${SHOWN_ROWS} of ${rows.length} rows.</p>` : null}`
  }`
}
