import { parse } from "csv-parse/sync"
import { stringify } from "csv-stringify/sync"
import { type MappingCells } from "../domain/MappingCells.js"
import { MAPPING_COLUMNS, normalizeVariantId } from "../domain/MappingTable.js"
import { cellsOfCsv, COMMENT, NOTES_COLUMN } from "./MappingCsv.js"

/**
 * `podsync mappings suggest --merge`, pure: the store's file with the suggested rows added at its
 * end, in its own column order; a row that cannot load yet is added as a comment. The file's own
 * lines are left as they are (a column the new rows need is added to the header: shorter rows read
 * it as empty), and a line the file already answers gets no row, so nothing shadows a row it has.
 */

export interface Addition {
  readonly cells: MappingCells
  readonly note: string
  readonly complete: boolean
}

export interface Merged {
  readonly text: string
  readonly added: number
  readonly commented: number
  /** Additions left out: the file answers their variant or SKU already, with a row or a row commented out. */
  readonly skipped: number
}

const isComment = (line: string) => line.trimStart().startsWith(COMMENT)
const oneLine = (text: string) => text.replace(/\s*\r?\n\s*/g, " ")

const keysOf = (cells: Pick<MappingCells, "store_variant_id" | "store_sku">) => [
  ...(cells.store_variant_id.trim() === "" ? [] : [`v:${normalizeVariantId(cells.store_variant_id)}`]),
  ...(cells.store_sku.trim() === "" ? [] : [`s:${cells.store_sku.trim()}`])
]

/** A file with a CSV syntax error answers nothing here; the write's check refuses it with its line. */
const cellsOrNone = (text: string) => {
  try {
    return cellsOfCsv(text)
  } catch {
    return []
  }
}

export const mergeSuggestions = (text: string, additions: ReadonlyArray<Addition>): Merged => {
  const eol = text.includes("\r\n") ? "\r\n" : "\n"
  const lines = text === "" ? [] : text.split(/\r?\n/)
  const headerAt = lines.findIndex((l) => l.trim() !== "" && !isComment(l))
  const header = headerAt < 0
    ? []
    : ((parse(lines[headerAt] ?? "", { relax_column_count: true, trim: true, bom: true }) as Array<Array<string>>)[0] ?? [])
      .map((h) => h.toLowerCase())
  // Rows commented out wait for a person: they answer their lines as rows do.
  const commentedOut = lines.filter(isComment).map((l) => l.trimStart().slice(COMMENT.length).trim())
  const answered = new Set(
    headerAt < 0 ? [] : [
      ...cellsOrNone(text).flatMap(keysOf),
      ...cellsOrNone([lines[headerAt], ...commentedOut].join("\n")).flatMap(keysOf)
    ]
  )

  const kept = additions.filter((a) => {
    const keys = keysOf(a.cells)
    if (keys.length === 0 || keys.some((k) => answered.has(k))) return false
    keys.forEach((k) => answered.add(k))
    return true
  })
  const used = MAPPING_COLUMNS.filter((c) => kept.some((a) => a.cells[c] !== ""))
  const wanted = [...used, ...(kept.some((a) => a.note !== "") ? [NOTES_COLUMN] : [])]
  const missing = wanted.filter((c) => !header.includes(c))
  const columns = [...header, ...missing]
  const row = (a: Addition) => {
    const cells = columns.map((c) => (c === NOTES_COLUMN ? oneLine(a.note) : (a.cells as Record<string, string>)[c] ?? ""))
    const line = stringify([a.complete ? cells : cells.map(oneLine)], { quoted_match: /^#/, record_delimiter: eol }).slice(0, -eol.length)
    return a.complete ? line : `${COMMENT} ${line}`
  }
  const appended = kept.map((a) => ({ a, line: row(a) }))
  const headerLine = stringify([columns], { record_delimiter: eol }).slice(0, -eol.length)
  const body = headerAt < 0 ? [headerLine] : missing.length === 0 ? lines : lines.map((l, i) => (i === headerAt ? headerLine : l))
  // Keep the file's last line break (or its absence after the last line of the file's own).
  while (body.length > 0 && body[body.length - 1] === "") body.pop()
  const out = appended.length === 0 && missing.length === 0 ? text : `${[...body, ...appended.map((x) => x.line)].join(eol)}${eol}`
  return {
    text: out,
    added: appended.filter((x) => x.a.complete).length,
    commented: appended.filter((x) => !x.a.complete).length,
    skipped: additions.length - appended.length
  }
}
