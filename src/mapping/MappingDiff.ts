import { cellsOfRow, type MappingCells } from "../domain/MappingCells.js"
import { MAPPING_COLUMNS, type MappingRow, type MappingTable } from "../domain/MappingTable.js"

/**
 * What an uploaded mapping file changes against the file in force, pure: rows are the same row
 * when they name the same store variant (else the same SKU), as the planner finds them.
 */

export interface RowChange {
  readonly before: MappingRow
  readonly after: MappingRow
  /** The columns whose cells differ. */
  readonly columns: ReadonlyArray<string>
}

export interface MappingDiff {
  readonly added: ReadonlyArray<MappingRow>
  readonly removed: ReadonlyArray<MappingRow>
  readonly changed: ReadonlyArray<RowChange>
  readonly unchanged: number
}

const keyOf = (row: MappingRow) =>
  row.storeVariantId !== undefined ? `v:${row.storeVariantId}` : row.storeSku !== undefined ? `s:${row.storeSku}` : `line:${row.line}`

/** The rows a table answers with, first row first (a later duplicate never answers a line). */
const answering = (table: MappingTable) => {
  const rows = new Map<string, MappingRow>()
  for (const row of table.rows) if (!rows.has(keyOf(row))) rows.set(keyOf(row), row)
  return rows
}

export const diffMappingTables = (inForce: MappingTable, uploaded: MappingTable): MappingDiff => {
  const before = answering(inForce)
  const after = answering(uploaded)
  const changed: Array<RowChange> = []
  let unchanged = 0
  for (const [key, row] of after) {
    const old = before.get(key)
    if (old === undefined) continue
    const [a, b]: [MappingCells, MappingCells] = [cellsOfRow(old), cellsOfRow(row)]
    const columns = MAPPING_COLUMNS.filter((c) => a[c] !== b[c])
    if (columns.length === 0) unchanged++
    else changed.push({ before: old, after: row, columns })
  }
  return {
    added: [...after].filter(([key]) => !before.has(key)).map(([, row]) => row),
    removed: [...before].filter(([key]) => !after.has(key)).map(([, row]) => row),
    changed,
    unchanged
  }
}
