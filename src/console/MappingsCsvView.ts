import { cellsOfRow } from "../domain/MappingCells.js"
import { MAPPING_COLUMNS, type MappingRow } from "../domain/MappingTable.js"
import type { MappingDiff } from "../mapping/MappingDiff.js"
import type { Addition } from "../mapping/MappingMerge.js"
import { html, type Html } from "./Html.js"

/** The Mappings page's file section (download, upload, suggestions) and the page that shows an upload against the file in force. */

/** At most this much text is taken from an upload (a file of tens of thousands of rows). */
export const MAX_UPLOAD_BYTES = 2 * 1024 * 1024

export interface FileSectionInput {
  readonly storeKey: string
  readonly file: string
  readonly csrfToken: string
  /** The other stores whose mapping file this is too. */
  readonly sharedWith: ReadonlyArray<string>
  /** What `podsync mappings suggest` would add (undefined: no catalog cached yet). */
  readonly additions: ReadonlyArray<Addition> | undefined
}

const q = (store: string) => `store=${encodeURIComponent(store)}`

const cellsText = (row: MappingRow) => {
  const cells = cellsOfRow(row)
  return MAPPING_COLUMNS.flatMap((c) => (cells[c] === "" ? [] : [`${c}=${cells[c]}`])).join(", ")
}

const additionsTable = (additions: ReadonlyArray<Addition>) =>
  html`<table data-testid="suggested">
    <thead><tr><th>store_variant_id</th><th>store_sku</th><th>pod_variant_id</th><th>print_front</th><th>print_back</th><th>what it needs</th></tr></thead>
    <tbody>${
    additions.map((a) =>
      html`<tr class=${
        a.complete ? undefined : "muted"
      }><td>${a.cells.store_variant_id}</td><td>${a.cells.store_sku}</td><td>${a.cells.pod_variant_id}</td>
        <td>${a.cells.print_front}</td><td>${a.cells.print_back}</td><td>${
        a.complete ? a.note : html`<strong>to complete:</strong> ${a.note}`
      }</td></tr>`
    )
  }</tbody></table>`

export const fileSection = (input: FileSectionInput): Html => {
  const complete = (input.additions ?? []).filter((a) => a.complete).length
  const toComplete = (input.additions ?? []).length - complete
  return html`<h2 id="file">The file</h2>
    ${
    input.sharedWith.length === 0
      ? null
      : html`<p class="muted">${input.file} is also the mapping file of ${input.sharedWith.join(", ")}: a change applies to each.</p>`
  }
    <p><a href=${`/console/mappings/file?${q(input.storeKey)}`} data-testid="download">Download ${input.file}</a></p>
    <form method="post" action="/console/mappings/upload" enctype="multipart/form-data" data-testid="upload">
      <input type="hidden" name="_csrf" value=${input.csrfToken} />
      <input type="hidden" name="store" value=${input.storeKey} />
      <label>A CSV file <input type="file" name="file" accept=".csv,text/csv" /></label>
      <label>or its text <textarea name="csv" rows="4" cols="80"></textarea></label>
      <button type="submit">Compare with the file in force</button>
    </form>
    <p class="muted">Nothing is written yet: the next page shows the rows added, removed and changed, and what podsync check says of each line.</p>
    <h2 id="suggestions">Suggested rows <span class="pill">${(input.additions ?? []).length}</span></h2>
    ${
    input.additions === undefined
      ? html`<p class="muted">No catalog is cached yet: suggestions come once the daemon has read it.</p>`
      : input.additions.length === 0
      ? html`<p class="muted">The file maps every line of the store's recent orders.</p>`
      : html`${additionsTable(input.additions)}
        <form method="post" action="/console/mappings/merge" class="filters" data-testid="merge">
          <input type="hidden" name="_csrf" value=${input.csrfToken} />
          <input type="hidden" name="store" value=${input.storeKey} />
          <button type="submit">Add ${complete} row(s) and ${toComplete} row(s) to complete to the file</button>
        </form>
        <p class="muted">Rows to complete are added as comments (lines starting with #): the file loads without them until a person adds what they need and removes the #.</p>`
  }
    <p><a href=${`/console/mappings/suggest.csv?${q(input.storeKey)}`}>Download the draft (podsync mappings suggest)</a></p>`
}

export interface UploadInput {
  readonly id: string
  readonly storeKey: string
  readonly file: string
  readonly name: string
  readonly csrfToken: string
  readonly diff: MappingDiff
  /** Problems that refuse the upload, each `name:line: column: problem`. */
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
  /** The file changed since the upload was compared with it. */
  readonly stale: boolean
}

const rowsList = (testId: string, rows: ReadonlyArray<MappingRow>) =>
  rows.length === 0
    ? html`<p class="muted">None.</p>`
    : html`<ul data-testid=${testId}>${rows.map((r) => html`<li>line ${r.line}: <code>${cellsText(r)}</code></li>`)}</ul>`

export const uploadContent = (input: UploadInput): Html =>
  html`<h1>Upload for ${input.storeKey}</h1>
    <p>${input.name}, compared with ${input.file} in force.</p>
    ${
    input.errors.length > 0
      ? html`<div class="flash refused" role="alert" data-testid="refused">Refused: nothing was written. Fix these lines and upload again.
        <ul>${input.errors.map((e) => html`<li><code>${e}</code></li>`)}</ul></div>`
      : input.stale
      ? html`<div class="flash refused" role="alert">${input.file} changed since this upload was compared with it: upload it again.</div>`
      : html`<form method="post" action="/console/mappings/upload/apply" class="filters" data-testid="apply">
        <input type="hidden" name="_csrf" value=${input.csrfToken} />
        <input type="hidden" name="id" value=${input.id} />
        <button type="submit">Write it over ${input.file}</button>
        <a href=${`/console/mappings?${q(input.storeKey)}`}>cancel</a>
      </form>`
  }
    ${
    input.warnings.length === 0
      ? null
      : html`<ul data-testid="warnings">${input.warnings.map((w) => html`<li><code>${w}</code></li>`)}</ul>`
  }
    <h2>Added <span class="pill">${input.diff.added.length}</span></h2>
    ${rowsList("added", input.diff.added)}
    <h2>Removed <span class="pill">${input.diff.removed.length}</span></h2>
    ${rowsList("removed", input.diff.removed)}
    <h2>Changed <span class="pill">${input.diff.changed.length}</span></h2>
    ${
    input.diff.changed.length === 0 ? html`<p class="muted">None.</p>` : html`<table data-testid="changed">
      <thead><tr><th>row</th><th>column</th><th>in force</th><th>uploaded</th></tr></thead>
      <tbody>${
      input.diff.changed.flatMap((change) => {
        const [a, b] = [cellsOfRow(change.before), cellsOfRow(change.after)]
        const name = b.store_variant_id || b.store_sku
        return change.columns.map((c) =>
          html`<tr><td>${name} (line ${change.before.line} \u2192 ${change.after.line})</td><td>${c}</td><td>${
            a[c as keyof typeof a]
          }</td><td>${b[c as keyof typeof b]}</td></tr>`
        )
      })
    }</tbody></table>`
  }
    <p class="muted">${input.diff.unchanged} row(s) unchanged.</p>`
