import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import { Data, Effect } from "effect"
import { errorsOf, formatIssue } from "../mapping/MappingCsv.js"
import { type MappingIssue, type MappingTable } from "../domain/MappingTable.js"
import { parseMappingCsv } from "../mapping/MappingCsv.js"

/**
 * One store's mapping file on disk: read, parsed, and the rule for what a
 * file with issues loads (the previous good table, else its valid rows).
 */

export class MappingFileError extends Data.TaggedError("MappingFileError")<{
  readonly file: string
  readonly cause: unknown
}> {
  override get message() {
    const code = (this.cause as { code?: string } | undefined)?.code
    const reason = code === "ENOENT" ? "file not found" : this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `cannot read the mapping file ${this.file}: ${reason} (check stores[].mappings in the configuration)`
  }
}

export interface ParsedMappingFile {
  readonly file: string
  readonly table: MappingTable
  readonly issues: ReadonlyArray<MappingIssue>
  /** sha-256 of the text: an edit that changes nothing is not a reload. */
  readonly digest: string
}

export const parseMappingText = (file: string, text: string): ParsedMappingFile => {
  const { issues, table } = parseMappingCsv(text)
  return { file, table, issues, digest: createHash("sha256").update(text).digest("hex") }
}

export const readMappingFile = (file: string): Effect.Effect<ParsedMappingFile, MappingFileError> =>
  Effect.tryPromise({ try: () => fs.readFile(file, "utf8"), catch: (cause) => new MappingFileError({ file, cause }) }).pipe(
    Effect.map((text) => parseMappingText(file, text))
  )

/**
 * What identifies a version of the file without reading it: inode, size and
 * modification time in nanoseconds ("missing" when it is gone). Editors that
 * save by rename change the inode; in-place writes change size or mtime.
 */
export const fileStamp = (file: string): Effect.Effect<string> =>
  Effect.promise(() =>
    fs.stat(file, { bigint: true }).then(
      (s) => `${s.ino}:${s.size}:${s.mtimeNs}`,
      (error: { code?: string }) => `missing:${error.code ?? "unknown"}`
    )
  )

export type LoadOutcome =
  /** Every row is valid: the file is the table. */
  | "loaded"
  /** The file has issues and there was no earlier table: its valid rows are the table. */
  | "partial"
  /** The file has issues: the earlier table stays until the file is fixed. */
  | "kept_previous"

/** A file with issues never replaces a table that worked; a first load takes what is valid. */
export const chooseTable = (
  parsed: ParsedMappingFile,
  previous: MappingTable | undefined
): { readonly table: MappingTable; readonly outcome: LoadOutcome } =>
  errorsOf(parsed.issues).length === 0
    ? { table: parsed.table, outcome: "loaded" }
    : previous !== undefined
    ? { table: previous, outcome: "kept_previous" }
    : { table: parsed.table, outcome: "partial" }

export const describeIssues = (parsed: ParsedMappingFile): ReadonlyArray<string> =>
  parsed.issues.map((issue) => formatIssue(parsed.file, issue))

/** Logs every issue of a file, one line each, with its file, line and column. */
export const logIssues = (storeKey: string, parsed: ParsedMappingFile) =>
  Effect.forEach(parsed.issues, (issue) =>
    Effect.logWarning(`mapping file issue: ${formatIssue(parsed.file, issue)}`).pipe(
      Effect.annotateLogs({ store: storeKey, file: parsed.file, line: issue.line, column: issue.column ?? "" })
    ), { discard: true })
