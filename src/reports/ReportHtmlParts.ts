/**
 * The pieces every section of the HTML report is made of, pure: tables that
 * become label-and-value cards at phone width (each cell carries its column
 * name, shown only there), and the page's one stylesheet.
 */
import { escapeHtml as e } from "./SvgCharts.js"

/** Rows of already-escaped cells under escaped headers; `empty` when there is no row. */
export const table = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, empty = "Nothing here.") =>
  rows.length === 0
    ? `<p class="empty">${e(empty)}</p>`
    : `<div class="tw"><table><thead><tr>${headers.map((h) => `<th>${e(h)}</th>`).join("")}</tr></thead><tbody>${
      rows.map((r) =>
        `<tr>${
          r.map((c, i) => `<td><span class="cell-label">${e(headers[i] ?? "")}</span><div class="cell-value">${c}</div></td>`).join("")
        }</tr>`
      ).join("")
    }</tbody></table></div>`

/** A link to a page outside the report (a carrier's tracking page): opened by the reader, never loaded by the page. */
export const outsideLink = (href: string, text: string) => `<a href="${e(href)}" rel="noopener noreferrer" target="_blank">${e(text)}</a>`

/** Phones (390 px and up): no sideways scrolling; each table row becomes a card of "column: value" lines. */
const PHONE = `
@media (max-width:640px){
main{padding:14px 12px 32px}h1{font-size:19px}h2{font-size:17px}
.card{flex:1 1 140px;min-width:0}
table,thead,tbody,tr,th,td{display:block;width:auto}
thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
tr{border:1px solid #e3e6ec;border-radius:6px;margin:0 0 8px;padding:4px 8px}
td{border:0;padding:3px 0;display:grid;grid-template-columns:minmax(90px,38%) minmax(0,1fr);gap:8px}
.cell-label{display:block;color:#5b6475;font-weight:600}
pre{max-width:100%}
}`

/**
 * Wider screens: a word breaks only where it must not spill (so a short column, an age or an
 * order number, is never squeezed to a letter a line), headers stay on one line, and a table
 * wider than the page scrolls inside its own box.
 */
const DESKTOP = `
.tw{max-width:100%;overflow-x:auto}
@media (min-width:641px){table{overflow-wrap:break-word}th{white-space:nowrap}td code{white-space:nowrap}}`

export const STYLE = `
*,*::before,*::after{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;margin:0;background:#f5f6f8}
main{max-width:1100px;margin:0 auto;padding:24px 28px 48px;background:#fff;overflow-wrap:anywhere}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:2px solid #e3e6ec;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}h4{font-size:13px;margin:12px 0 4px;color:#444}
.meta{color:#5b6475;margin:0 0 16px}.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.card{border:1px solid #e3e6ec;border-radius:8px;padding:10px 14px;min-width:150px}.card b{display:block;font-size:22px}
.card small{display:block;color:#5b6475;margin-top:2px}.cell-label{display:none}
.empty-day{font-size:16px;background:#f0f2f6;border-radius:6px;padding:10px 14px}
table{border-collapse:collapse;width:100%;margin:6px 0 12px;font-size:13px}th,td{border-bottom:1px solid #eceef2;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f6;font-weight:600}code{font-size:12px}pre{font-size:11px;white-space:pre-wrap;margin:4px 0;max-width:420px}
.empty{color:#6b7385;font-style:italic}.warning{background:#fff4e0;border:1px solid #f0c36d;padding:8px 12px;border-radius:6px}
.loss{color:#b52b2b}.kind{font-weight:600}svg.chart{display:block;margin:8px 0 12px;max-width:100%;height:auto}
svg text{font-size:12px;fill:#1d2330}svg text.title{font-size:13px;font-weight:600}svg text.value{fill:#3d4455}
.notes li{margin:4px 0;color:#444}@media print{body{background:#fff}main{padding:0}}
${PHONE}
${DESKTOP}
`
