import * as fs from "node:fs/promises"
import { parse } from "csv-parse/sync"
import { stringify } from "csv-stringify/sync"
import { Data, Effect } from "effect"
import { cellsOfRow, type MappingCells, type MappingColumn } from "../domain/MappingCells.js"
import { MAPPING_COLUMNS } from "../domain/MappingTable.js"
import { SPREADSHEET_SAFE, unescapeFormula } from "../domain/SpreadsheetCell.js"
import { describeIssues, parseMappingText } from "./MappingFile.js"

/**
 * Adds or changes a row of a store's mapping file, the file staying the source of truth: the row
 * is written in the file's own column order, the previous text kept as `<file>.bak`, the new text
 * written beside it and renamed over it (a reader never sees half a file). A row that would add
 * an issue to the file (a duplicate, a malformed id) is refused before anything is written.
 */
export class MappingWriteError extends Data.TaggedError("MappingWriteError")<{
  readonly file: string
  /** What went wrong, in the seller's words. */
  readonly reason: string
  /** The row as a CSV line, to paste by hand when the file cannot be written. */
  readonly line: string
  /** The line of the file an edit replaces (absent: a row added at the end). */
  readonly lineNumber?: number
  readonly cause?: unknown
}> {
  override get message() {
    return this.lineNumber === undefined
      ? `cannot add the row to ${this.file}: ${this.reason}`
      : `cannot change line ${this.lineNumber} of ${this.file}: ${this.reason}`
  }
}

const READ_ONLY_CODES = ["EACCES", "EROFS", "EPERM"]

/** The row as a line of the file with `header`'s columns. */
export const mappingLine = (header: ReadonlyArray<string>, cells: Partial<MappingCells>) =>
  stringify([header.map((column) => cells[column as MappingColumn] ?? "")], { quoted_match: /^#/, ...SPREADSHEET_SAFE })

const readText = (file: string, lineNumber?: number) =>
  Effect.tryPromise({
    try: () => fs.readFile(file, "utf8"),
    catch: (cause) =>
      new MappingWriteError({
        file,
        reason: "the file cannot be read",
        line: "",
        cause,
        ...(lineNumber === undefined ? {} : { lineNumber })
      })
  })

const headerOf = (text: string) => {
  const firstLine = text.split(/\r?\n/, 1)[0] ?? ""
  return (parse(firstLine, { relax_column_count: true }) as Array<Array<string>>)[0] ?? []
}

/** Cells given for columns the file does not have (an empty cell needs no column). */
const missingColumns = (header: ReadonlyArray<string>, cells: Partial<MappingCells>) =>
  Object.entries(cells).filter(([column, value]) => value !== "" && value !== undefined && !header.includes(column)).map(([c]) => c)

/**
 * Writes `text` over `file` with the previous text kept as `<file>.bak`; refused before anything is
 * written when it adds an issue the file did not have. `line` is the row to paste by hand when
 * the file cannot be written, and `paste` says where it goes.
 */
const writeOver = (
  file: string,
  before: string,
  text: string,
  line: string,
  paste: { readonly lineNumber?: number; readonly where: string }
) =>
  Effect.gen(function*() {
    const at = paste.lineNumber === undefined ? {} : { lineNumber: paste.lineNumber }
    const issuesBefore = describeIssues(parseMappingText(file, before))
    const added = describeIssues(parseMappingText(file, text)).filter((issue) => !issuesBefore.includes(issue))
    if (added.length > 0) return yield* new MappingWriteError({ file, reason: added.join("; "), line, ...at })
    const backup = `${file}.bak`
    const temporary = `${file}.${process.pid}.tmp`
    yield* Effect.tryPromise({
      try: async () => {
        await fs.writeFile(backup, before)
        await fs.writeFile(temporary, text)
        await fs.rename(temporary, file)
      },
      catch: (cause) => {
        const code = (cause as { readonly code?: unknown }).code
        return new MappingWriteError({
          file,
          reason: typeof code === "string" && READ_ONLY_CODES.includes(code)
            ? `the file (or its folder) is read-only here (a Kubernetes ConfigMap is): ${paste.where} by hand`
            : `the file could not be written (${String(code ?? cause)})`,
          line,
          ...at,
          cause
        })
      }
    })
    return backup
  })

/**
 * Writes a whole new text over a store's file (a merge of suggestions, an upload), with the same
 * backup, rename and refusal as a row edit. `before` is the text the new one was made from: a file
 * changed since is refused, never overwritten.
 */
export const rewriteMappingFile = (file: string, before: string, text: string, what: string) =>
  Effect.gen(function*() {
    const current = yield* readText(file).pipe(
      Effect.catchIf((e) => (e.cause as { code?: string } | undefined)?.code === "ENOENT", () => Effect.succeed(""))
    )
    if (current !== before) {
      return yield* new MappingWriteError({
        file,
        reason: `the file changed meanwhile: nothing was written; ${what} again from the file as it is now`,
        line: ""
      })
    }
    return yield* writeOver(file, before, text, "", { where: `make the change ${what} made` })
  })

/**
 * `before` with `rows` added at its end, each in the file's own column order (the text
 * `rewriteMappingFile` then writes); `missing` names the columns a row fills that the file lacks.
 */
export const withRowsAppended = (before: string, rows: ReadonlyArray<Partial<MappingCells>>) => {
  const header = headerOf(before)
  const lines = rows.map((cells) => mappingLine(header, cells))
  const missing = [...new Set(rows.flatMap((cells) => missingColumns(header, cells)))]
  return { text: `${before === "" || before.endsWith("\n") ? before : `${before}\n`}${lines.join("")}`, lines, missing }
}

export const appendMappingRow = (file: string, cells: Partial<MappingCells>) =>
  Effect.gen(function*() {
    const before = yield* readText(file)
    const header = headerOf(before)
    const line = mappingLine(header, cells)
    const missing = missingColumns(header, cells)
    if (missing.length > 0) return yield* new MappingWriteError({ file, reason: `the file has no column ${missing.join(", ")}`, line })
    const text = `${before === "" || before.endsWith("\n") ? before : `${before}\n`}${line}`
    const backup = yield* writeOver(file, before, text, line, { where: "add the row below to its source" })
    return { line, backup }
  })

const sameCells = (a: Partial<MappingCells>, b: Partial<MappingCells>) => MAPPING_COLUMNS.every((c) => (a[c] ?? "") === (b[c] ?? ""))

const describeCells = (cells: Partial<MappingCells>) =>
  MAPPING_COLUMNS.flatMap((c) => (cells[c] ?? "") === "" ? [] : [`${c}=${cells[c]}`]).join(", ") || "an empty row"

/**
 * Replaces the row on line `lineNumber` with `cells`, provided that line still holds the row the
 * caller saw (`expected`, as `cellsOfRow` gives it): a file edited meanwhile is refused with what
 * the line holds now, never overwritten. Columns the contract does not know keep their cells.
 */
export const replaceMappingRow = (
  file: string,
  lineNumber: number,
  expected: Partial<MappingCells>,
  cells: Partial<MappingCells>
) =>
  Effect.gen(function*() {
    const before = yield* readText(file, lineNumber)
    const header = headerOf(before)
    const line = mappingLine(header, cells)
    const refuse = (reason: string) => new MappingWriteError({ file, reason, line, lineNumber })
    const missing = missingColumns(header, cells)
    if (missing.length > 0) return yield* refuse(`the file has no column ${missing.join(", ")}`)
    const current = parseMappingText(file, before).table.rows.find((row) => row.line === lineNumber)
    if (current === undefined || !sameCells(cellsOfRow(current), expected)) {
      return yield* refuse(
        `the file changed meanwhile: line ${lineNumber} no longer holds the row you edited (${
          current === undefined ? "it holds no valid row now" : `it holds ${describeCells(cellsOfRow(current))}`
        }); nothing was written: open the page again and edit the row where it is now`
      )
    }
    // A row is one line of text unless a quoted cell holds a line break: such a row is edited by hand.
    const lines = before.split("\n")
    const physical = lines[lineNumber - 1] ?? ""
    const alone = parseMappingText(file, `${lines[0] ?? ""}\n${physical}\n`).table.rows[0]
    if (alone === undefined || !sameCells(cellsOfRow(alone), expected)) {
      return yield* refuse("the row spans several lines of the file: change it by hand")
    }
    const record = (parse(physical, { relax_column_count: true }) as Array<Array<string>>)[0] ?? []
    const kept = Object.fromEntries(header.map((column, i) => [column, unescapeFormula(record[i] ?? "")]))
    const whole = mappingLine(header, { ...kept, ...cells })
    const replacement = whole.replace(/\n$/, physical.endsWith("\r") ? "\r" : "")
    const text = [...lines.slice(0, lineNumber - 1), replacement, ...lines.slice(lineNumber)].join("\n")
    const backup = yield* writeOver(file, before, text, whole, {
      lineNumber,
      where: `replace line ${lineNumber} of its source with the row below`
    })
    return { line: whole, backup }
  })
