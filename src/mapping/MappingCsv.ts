import { parse } from "csv-parse/sync"
import { stringify } from "csv-stringify/sync"
import { SPREADSHEET_SAFE, unescapeFormula } from "../domain/SpreadsheetCell.js"
import { emptyCells, type MappingCells } from "../domain/MappingCells.js"
import {
  buildTable,
  type DesignSource,
  MAPPING_COLUMNS,
  type MappingIssue,
  type MappingRow,
  type MappingTable,
  normalizeVariantId,
  PRINT_COLUMNS,
  type PrintColumn,
  type PrintLocation
} from "../domain/MappingTable.js"

/**
 * The mapping CSV (contract: ARCHITECTURE.md), read and written. Parsing is
 * pure; every bad row is reported with its line and column.
 */
const ATTRIBUTE = /^\{\{\s*attr\s+(.+?)\s*\}\}$/

const parseDesign = (value: string): DesignSource | string => {
  const attribute = ATTRIBUTE.exec(value)
  if (attribute?.[1]) return { _tag: "Attribute", name: attribute[1] }
  if (/^https?:\/\/\S+$/i.test(value)) return { _tag: "Url", url: value }
  return `expected an http(s) URL or {{attr NAME}}, got "${value}"`
}

/** A column for people (`mappings suggest` writes its candidates there): read past, never loaded. */
export const NOTES_COLUMN = "notes"

/**
 * A line whose first character is `#` is a comment: `mappings suggest` writes the rows it could not
 * complete that way, so the file loads while they wait for a person. A cell that begins with `#`
 * in the first column is quoted (`"#1"`). Line numbers still count comment lines.
 */
export const COMMENT = "#"
const READ_OPTIONS = {
  relax_column_count: true,
  skip_empty_lines: true,
  bom: true,
  trim: true,
  comment: COMMENT,
  comment_no_infix: true
} as const

const blank = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim())

export const parseMappingCsv = (text: string): { readonly table: MappingTable; readonly issues: ReadonlyArray<MappingIssue> } => {
  const issues: Array<MappingIssue> = []
  let parsed: Array<{ record: Array<string>; info: { lines: number } }>
  try {
    // `info` gives each record's own line: blank lines are skipped and quoted fields may span lines.
    parsed = parse(text, { ...READ_OPTIONS, info: true }) as unknown as typeof parsed
  } catch (error) {
    const line = (error as { lines?: number }).lines ?? 1
    return { table: buildTable([]), issues: [{ line, column: undefined, message: `CSV syntax: ${(error as Error).message}` }] }
  }
  const records = parsed.map((p) => p.record)
  const header = (records[0] ?? []).map((h) => h.toLowerCase())
  // Saved from a spreadsheet with semicolons: one column whose name holds the contract's names.
  if (header.length === 1 && (header[0] ?? "").includes(";") && MAPPING_COLUMNS.some((c) => (header[0] ?? "").includes(c))) {
    return {
      table: buildTable([]),
      issues: [{
        line: 1,
        column: undefined,
        message: "the file is separated by semicolons (;): save it as comma-separated CSV (in a spreadsheet: CSV UTF-8, comma)"
      }]
    }
  }
  // Only what a row cannot do without is required: a store id or SKU, a POD id (or ignore), a print.
  const has = (columns: ReadonlyArray<string>) => columns.some((c) => header.includes(c))
  const missing = [
    ...(has(["store_variant_id", "store_sku"]) ? [] : ["store_variant_id or store_sku"]),
    ...(has(["pod_variant_id", "pod_legacy_id", "ignore"]) ? [] : ["pod_variant_id or pod_legacy_id (or ignore)"]),
    ...(has(Object.keys(PRINT_COLUMNS)) || (header.includes("ignore") && !has(["pod_variant_id", "pod_legacy_id"]))
      ? []
      : ["a print column (print_front, print_back, …)"])
  ]
  const unknown = header.filter((h) => !(MAPPING_COLUMNS as ReadonlyArray<string>).includes(h) && h !== NOTES_COLUMN)
  if (missing.length > 0) issues.push({ line: 1, column: undefined, message: `missing columns: ${missing.join("; ")}` })
  if (unknown.length > 0) issues.push({ line: 1, column: undefined, message: `unknown columns: ${unknown.join(", ")}` })
  if (missing.length > 0) return { table: buildTable([]), issues }

  const rows: Array<MappingRow> = []
  parsed.slice(1).forEach(({ info, record }) => {
    const line = info.lines
    const cell = (
      column: (typeof MAPPING_COLUMNS)[number]
    ) => (header.includes(column) ? blank(unescapeFormula(record[header.indexOf(column)] ?? "")) : undefined)
    const rowIssues: Array<MappingIssue> = []
    const issue = (column: string | undefined, message: string) => rowIssues.push({ line, column, message })

    const ignoreCell = (cell("ignore") ?? "").toLowerCase()
    const ignore = ["true", "yes", "1"].includes(ignoreCell)
    if (ignoreCell !== "" && !ignore && !["false", "no", "0"].includes(ignoreCell)) {
      issue("ignore", `expected true/yes/1 or false/no/0, got "${cell("ignore")}"`)
    }
    const storeVariantId = cell("store_variant_id")
    const storeSku = cell("store_sku")
    if (storeVariantId === undefined && storeSku === undefined) issue(undefined, "give store_variant_id or store_sku")

    const podVariant = cell("pod_variant_id")
    const podLegacy = cell("pod_legacy_id")
    let pod: MappingRow["pod"]
    if (podVariant !== undefined && podLegacy !== undefined) {
      issue("pod_variant_id", "give exactly one of pod_variant_id and pod_legacy_id, not both")
    } else if (podVariant !== undefined) pod = { variantId: podVariant }
    else if (podLegacy !== undefined) {
      if (!/^\d+$/.test(podLegacy)) issue("pod_legacy_id", `expected a whole number, got "${podLegacy}"`)
      pod = { legacyId: podLegacy }
    } else if (!ignore) issue("pod_variant_id", "give pod_variant_id or pod_legacy_id (or set ignore=true)")

    const prints: Array<MappingRow["prints"][number]> = []
    for (const [column, location] of Object.entries(PRINT_COLUMNS) as Array<[PrintColumn, PrintLocation]>) {
      const value = cell(column)
      if (value === undefined) continue
      const source = parseDesign(value)
      if (typeof source === "string") issue(column, source)
      else prints.push({ location, source })
    }
    if (!ignore && !prints.some((p) => p.location === "PRINT_LOCATION_CODE_FRONT" || p.location === "PRINT_LOCATION_CODE_BACK")) {
      issue("print_front", "a POD item needs a front or a back design (print_front or print_back)")
    }
    const barcodeUrl = cell("barcode_url")
    if (barcodeUrl !== undefined && !/^https?:\/\/\S+$/i.test(barcodeUrl)) {
      issue("barcode_url", `expected an http(s) URL, got "${barcodeUrl}"`)
    }

    if (rowIssues.length > 0) issues.push(...rowIssues)
    else {
      rows.push({
        line,
        storeVariantId: storeVariantId === undefined ? undefined : normalizeVariantId(storeVariantId),
        storeSku,
        pod,
        prints,
        barcodeUrl,
        ignore
      })
    }
  })
  const table = buildTable(rows)
  for (const row of rows) {
    if (row.storeVariantId !== undefined && table.byVariantId.get(row.storeVariantId) !== row) {
      issues.push({
        line: row.line,
        column: "store_variant_id",
        message: `variant ${row.storeVariantId} is mapped again (first on line ${
          table.byVariantId.get(row.storeVariantId)?.line
        }); the first row wins`,
        warning: true
      })
    } else if (row.storeVariantId === undefined && row.storeSku !== undefined && table.bySku.get(row.storeSku) !== row) {
      issues.push({
        line: row.line,
        column: "store_sku",
        message: `SKU ${row.storeSku} is mapped again (first on line ${table.bySku.get(row.storeSku)?.line}); the first row wins`,
        warning: true
      })
    }
  }
  return { table, issues }
}

/**
 * Every record of a mapping file as cells, valid or not (a draft row without
 * a POD id is still a row to complete); unknown columns are dropped. Throws
 * on a CSV syntax error, which `parseMappingCsv` reports with its line.
 */
export const cellsOfCsv = (text: string): ReadonlyArray<MappingCells> => {
  const records = parse(text, {
    ...READ_OPTIONS,
    columns: (header: Array<string>) => header.map((h) => h.trim().toLowerCase())
  }) as Array<Record<string, string | undefined>>
  return records.map((record) => ({
    ...emptyCells,
    ...Object.fromEntries(MAPPING_COLUMNS.map((c) => [c, unescapeFormula(record[c] ?? "")]))
  }))
}

/**
 * A mapping CSV with the contract header; with `notes` (one per record), a
 * last `notes` column for the person completing the file (loading ignores it).
 */
export const mappingCsv = (records: ReadonlyArray<MappingCells>, notes?: ReadonlyArray<string>): string =>
  stringify(
    records.map((r, i) => [...MAPPING_COLUMNS.map((c) => r[c]), ...(notes === undefined ? [] : [notes[i] ?? ""])]),
    // Notes carry store product titles, which a spreadsheet would run if they began like a formula.
    {
      header: true,
      columns: [...MAPPING_COLUMNS, ...(notes === undefined ? [] : [NOTES_COLUMN])],
      quoted_match: /^#/,
      ...SPREADSHEET_SAFE
    }
  )

/** `config/mappings/acme.csv:3: pod_variant_id: give exactly one …`: the file, line and column of an issue. */
export const formatIssue = (file: string, issue: MappingIssue): string =>
  `${issue.warning === true ? "warning: " : ""}${file}:${issue.line}: ${
    issue.column !== undefined ? `${issue.column}: ` : ""
  }${issue.message}`

/** The issues that keep a file from loading whole (a warning does not). */
export const errorsOf = (issues: ReadonlyArray<MappingIssue>): ReadonlyArray<MappingIssue> => issues.filter((i) => i.warning !== true)

/** What keeps one row from loading, in the parser's words (nothing: the row loads). */
export const problemsOfCells = (cells: MappingCells): ReadonlyArray<string> =>
  errorsOf(parseMappingCsv(mappingCsv([cells])).issues).map((i) => i.message)

const oneLine = (text: string) => text.replace(/\s*\r?\n\s*/g, " ")

/**
 * The draft `mappings suggest` writes: the contract header and `notes`, the rows it completed as
 * rows, and the rows it could not complete as comments (their notes say what to add), so the file
 * loads as it is and a person completes the rest by removing the `#`. A comment is one line: its
 * cells' line breaks become spaces.
 */
export const draftCsv = (
  rows: ReadonlyArray<{ readonly cells: MappingCells; readonly note: string; readonly complete: boolean }>
): string => {
  const line = (cells: ReadonlyArray<string>) => stringify([cells], { quoted_match: /^#/ })
  const out = [line([...MAPPING_COLUMNS, NOTES_COLUMN])]
  if (rows.some((r) => !r.complete)) {
    out.push(
      `${COMMENT} Lines starting with ${COMMENT} are rows podsync could not complete: add what their notes ask, then remove the ${COMMENT}.\n`
    )
  }
  for (const row of rows) {
    const cells = [...MAPPING_COLUMNS.map((c) => row.cells[c]), oneLine(row.note)]
    out.push(row.complete ? line(cells) : `${COMMENT} ${line(cells.map(oneLine))}`)
  }
  return out.join("")
}
