import {
  type DesignSource,
  MAPPING_COLUMNS,
  type MappingRow,
  type MappingTable,
  PRINT_COLUMNS,
  type PrintColumn,
  type PrintLocation
} from "./MappingTable.js"

/**
 * A mapping row as the cells of the contract's CSV columns: how rows are
 * stored in `variant_mappings`, written by `podsync mappings suggest`, and
 * named in messages. Pure; the inverse of what `parseMappingCsv` reads.
 */
export type MappingColumn = (typeof MAPPING_COLUMNS)[number]
export type MappingCells = Readonly<Record<MappingColumn, string>>

export const emptyCells: MappingCells = Object.fromEntries(MAPPING_COLUMNS.map((c) => [c, ""])) as MappingCells

const LOCATION_COLUMNS = Object.fromEntries(
  (Object.entries(PRINT_COLUMNS) as Array<[PrintColumn, PrintLocation]>).map(([column, location]) => [location, column])
) as Record<PrintLocation, PrintColumn>

export const designCell = (source: DesignSource): string => source._tag === "Url" ? source.url : `{{attr ${source.name}}}`

/** The inverse of `designCell`: cells were validated when the file was parsed. */
export const designOfCell = (cell: string): DesignSource => {
  const attribute = /^\{\{\s*attr\s+(.+?)\s*\}\}$/.exec(cell)
  return attribute?.[1] !== undefined ? { _tag: "Attribute", name: attribute[1] } : { _tag: "Url", url: cell }
}

export const cellsOfRow = (row: MappingRow): MappingCells => {
  const prints = Object.fromEntries(row.prints.map((p) => [LOCATION_COLUMNS[p.location], designCell(p.source)]))
  return {
    ...emptyCells,
    ...prints,
    store_variant_id: row.storeVariantId ?? "",
    store_sku: row.storeSku ?? "",
    pod_variant_id: row.pod !== undefined && "variantId" in row.pod ? row.pod.variantId : "",
    pod_legacy_id: row.pod !== undefined && "legacyId" in row.pod ? row.pod.legacyId : "",
    barcode_url: row.barcodeUrl ?? "",
    ignore: row.ignore ? "true" : ""
  }
}

const present = (cell: string | null | undefined) => (cell === null || cell === undefined || cell.trim() === "" ? undefined : cell.trim())

/** Rebuilds a row from stored cells (a row that was valid when it was loaded). */
export const rowOfCells = (
  line: number,
  cells: Partial<Record<Exclude<MappingColumn, "ignore">, string | null>>,
  ignore: boolean
): MappingRow => {
  const podVariant = present(cells.pod_variant_id)
  const podLegacy = present(cells.pod_legacy_id)
  const prints: Array<MappingRow["prints"][number]> = []
  for (const [column, location] of Object.entries(PRINT_COLUMNS) as Array<[PrintColumn, PrintLocation]>) {
    const cell = present(cells[column])
    if (cell !== undefined) prints.push({ location, source: designOfCell(cell) })
  }
  return {
    line,
    storeVariantId: present(cells.store_variant_id),
    storeSku: present(cells.store_sku),
    pod: podVariant !== undefined ? { variantId: podVariant } : podLegacy !== undefined ? { legacyId: podLegacy } : undefined,
    prints,
    barcodeUrl: present(cells.barcode_url),
    ignore
  }
}

/** Two tables hold the same rows (lines included: messages name them). */
export const sameRows = (a: MappingTable, b: MappingTable): boolean =>
  a.rows.length === b.rows.length &&
  a.rows.every((row, i) => {
    const other = b.rows[i]
    return other !== undefined && row.line === other.line && row.ignore === other.ignore &&
      JSON.stringify(cellsOfRow(row)) === JSON.stringify(cellsOfRow(other))
  })
