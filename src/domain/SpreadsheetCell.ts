/**
 * What makes a CSV cell safe to open in a spreadsheet, pure. A cell that begins with `=`, `+`,
 * `-`, `@`, a tab or a return (or their full-width forms) is a formula to Excel, LibreOffice and
 * Sheets: `=HYPERLINK("http://x","y")` in a buyer's name would run. Such a cell is written with a
 * `'` before it, as csv-stringify's `escape_formulas` does, except a plain number: a negative
 * amount (`-4.50`) stays a number a sheet can add up. podsync reads its own files (mapping CSVs)
 * back without the `'`.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/
const PLAIN_NUMBER = /^[-+]?\d+(?:\.\d+)?$/

export const escapeFormula = (cell: string): string => (FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell)

/** A cell as a person meant it: the `'` podsync put before a formula-like cell taken off. */
export const unescapeFormula = (cell: string): string => {
  const inner = cell.slice(1)
  return cell.startsWith("'") && FORMULA_START.test(inner) && !PLAIN_NUMBER.test(inner) ? inner : cell
}

/** csv-stringify options that write every string cell through `escapeFormula`. */
export const SPREADSHEET_SAFE = { cast: { string: escapeFormula } } as const
