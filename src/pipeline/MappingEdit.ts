import * as fs from "node:fs/promises"
import { parse } from "csv-parse/sync"
import { stringify } from "csv-stringify/sync"
import { Data, Effect } from "effect"
import type { MappingCells, MappingColumn } from "../domain/MappingCells.js"
import { describeIssues, parseMappingText } from "./MappingFile.js"

/**
 * Adds a row to a store's mapping file, the file staying the source of truth: the row is
 * written in the file's own column order, the previous text kept as `<file>.bak`, the new text
 * written beside it and renamed over it (a reader never sees half a file). A row that would add
 * an issue to the file (a duplicate, a malformed id) is refused before anything is written.
 */
export class MappingWriteError extends Data.TaggedError("MappingWriteError")<{
  readonly file: string
  /** What went wrong, in the seller's words. */
  readonly reason: string
  /** The row as a CSV line, to paste by hand when the file cannot be written. */
  readonly line: string
  readonly cause?: unknown
}> {
  override get message() {
    return `cannot add the row to ${this.file}: ${this.reason}`
  }
}

const READ_ONLY_CODES = ["EACCES", "EROFS", "EPERM"]

/** The row as a line of the file with `header`'s columns. */
export const mappingLine = (header: ReadonlyArray<string>, cells: Partial<MappingCells>) =>
  stringify([header.map((column) => cells[column as MappingColumn] ?? "")])

export const appendMappingRow = (file: string, cells: Partial<MappingCells>) =>
  Effect.gen(function*() {
    const before = yield* Effect.tryPromise({
      try: () => fs.readFile(file, "utf8"),
      catch: (cause) => new MappingWriteError({ file, reason: "the file cannot be read", line: "", cause })
    })
    const firstLine = before.split(/\r?\n/, 1)[0] ?? ""
    const header = (parse(firstLine, { relax_column_count: true }) as Array<Array<string>>)[0] ?? []
    const line = mappingLine(header, cells)
    const missing = Object.entries(cells).filter(([column, value]) => value !== "" && value !== undefined && !header.includes(column))
    if (missing.length > 0) {
      return yield* new MappingWriteError({ file, reason: `the file has no column ${missing.map(([c]) => c).join(", ")}`, line })
    }
    const text = `${before === "" || before.endsWith("\n") ? before : `${before}\n`}${line}`
    const issuesBefore = describeIssues(parseMappingText(file, before))
    const added = describeIssues(parseMappingText(file, text)).filter((issue) => !issuesBefore.includes(issue))
    if (added.length > 0) return yield* new MappingWriteError({ file, reason: added.join("; "), line })
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
            ? "the file (or its folder) is read-only here (a Kubernetes ConfigMap is): add the row below to its source by hand"
            : `the file could not be written (${String(code ?? cause)})`,
          line,
          cause
        })
      }
    })
    return { line, backup }
  })
