import { parse } from "csv-parse/sync"

/**
 * The variant-matching table (contract: ARCHITECTURE.md): one CSV per store
 * mapping store variants or SKUs to POD catalog variants and their designs.
 * Parsing is pure; every bad row is reported with its line and column.
 */
export const MAPPING_COLUMNS = [
  "store_variant_id",
  "store_sku",
  "pod_variant_id",
  "pod_legacy_id",
  "print_front",
  "print_back",
  "print_pocket",
  "print_left_sleeve",
  "print_right_sleeve",
  "print_whole",
  "barcode_url",
  "ignore"
] as const

export const PRINT_COLUMNS = {
  print_front: "PRINT_LOCATION_CODE_FRONT",
  print_back: "PRINT_LOCATION_CODE_BACK",
  print_pocket: "PRINT_LOCATION_CODE_POCKET",
  print_left_sleeve: "PRINT_LOCATION_CODE_LEFT_SLEEVE",
  print_right_sleeve: "PRINT_LOCATION_CODE_RIGHT_SLEEVE",
  print_whole: "PRINT_LOCATION_CODE_WHOLE"
} as const
export type PrintColumn = keyof typeof PRINT_COLUMNS
export type PrintLocation = (typeof PRINT_COLUMNS)[PrintColumn]

/** A design source: a fixed URL, or the value of a line item's custom attribute. */
export type DesignSource =
  | { readonly _tag: "Url"; readonly url: string }
  | { readonly _tag: "Attribute"; readonly name: string }

export interface MappingRow {
  /** 1-based line in the file (the header is line 1). */
  readonly line: number
  readonly storeVariantId: string | undefined
  readonly storeSku: string | undefined
  readonly pod: { readonly variantId: string } | { readonly legacyId: string } | undefined
  readonly prints: ReadonlyArray<{ readonly location: PrintLocation; readonly source: DesignSource }>
  readonly barcodeUrl: string | undefined
  readonly ignore: boolean
}

export interface MappingIssue {
  readonly line: number
  readonly column: string | undefined
  readonly message: string
}

export interface MappingTable {
  readonly rows: ReadonlyArray<MappingRow>
  readonly byVariantId: ReadonlyMap<string, MappingRow>
  readonly bySku: ReadonlyMap<string, MappingRow>
}

const ATTRIBUTE = /^\{\{\s*attr\s+(.+?)\s*\}\}$/

/** `gid://shopify/ProductVariant/123` and `123` name the same variant. */
export const normalizeVariantId = (id: string): string => {
  const trimmed = id.trim()
  const gid = /^gid:\/\/[^/]+\/[^/]+\/(.+)$/.exec(trimmed)
  return gid?.[1] ?? trimmed
}

const parseDesign = (value: string): DesignSource | string => {
  const attribute = ATTRIBUTE.exec(value)
  if (attribute?.[1]) return { _tag: "Attribute", name: attribute[1] }
  if (/^https?:\/\/\S+$/i.test(value)) return { _tag: "Url", url: value }
  return `expected an http(s) URL or {{attr NAME}}, got "${value}"`
}

const blank = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim())

export const parseMappingCsv = (text: string): { readonly table: MappingTable; readonly issues: ReadonlyArray<MappingIssue> } => {
  const issues: Array<MappingIssue> = []
  let parsed: Array<{ record: Array<string>; info: { lines: number } }>
  try {
    // `info` gives each record's own line: blank lines are skipped and quoted fields may span lines.
    parsed = parse(text, { relax_column_count: true, skip_empty_lines: true, bom: true, trim: true, info: true }) as unknown as typeof parsed
  } catch (error) {
    const line = (error as { lines?: number }).lines ?? 1
    return { table: buildTable([]), issues: [{ line, column: undefined, message: `CSV syntax: ${(error as Error).message}` }] }
  }
  const records = parsed.map((p) => p.record)
  const header = (records[0] ?? []).map((h) => h.toLowerCase())
  const missing = MAPPING_COLUMNS.filter((c) => !header.includes(c))
  const unknown = header.filter((h) => !(MAPPING_COLUMNS as ReadonlyArray<string>).includes(h))
  if (missing.length > 0) issues.push({ line: 1, column: undefined, message: `missing columns: ${missing.join(", ")}` })
  if (unknown.length > 0) issues.push({ line: 1, column: undefined, message: `unknown columns: ${unknown.join(", ")}` })
  if (missing.length > 0) return { table: buildTable([]), issues }

  const rows: Array<MappingRow> = []
  parsed.slice(1).forEach(({ info, record }) => {
    const line = info.lines
    const cell = (column: (typeof MAPPING_COLUMNS)[number]) => blank(record[header.indexOf(column)])
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
    if (podVariant !== undefined && podLegacy !== undefined) issue("pod_variant_id", "give exactly one of pod_variant_id and pod_legacy_id, not both")
    else if (podVariant !== undefined) pod = { variantId: podVariant }
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
    if (barcodeUrl !== undefined && !/^https?:\/\/\S+$/i.test(barcodeUrl)) issue("barcode_url", `expected an http(s) URL, got "${barcodeUrl}"`)

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
      issues.push({ line: row.line, column: "store_variant_id", message: `variant ${row.storeVariantId} is mapped again (first on line ${table.byVariantId.get(row.storeVariantId)?.line}); the first row wins` })
    } else if (row.storeVariantId === undefined && row.storeSku !== undefined && table.bySku.get(row.storeSku) !== row) {
      issues.push({ line: row.line, column: "store_sku", message: `SKU ${row.storeSku} is mapped again (first on line ${table.bySku.get(row.storeSku)?.line}); the first row wins` })
    }
  }
  return { table, issues }
}

export const buildTable = (rows: ReadonlyArray<MappingRow>): MappingTable => {
  const byVariantId = new Map<string, MappingRow>()
  const bySku = new Map<string, MappingRow>()
  for (const row of rows) {
    if (row.storeVariantId !== undefined && !byVariantId.has(row.storeVariantId)) byVariantId.set(row.storeVariantId, row)
    if (row.storeSku !== undefined && !bySku.has(row.storeSku)) bySku.set(row.storeSku, row)
  }
  return { rows, byVariantId, bySku }
}

/** The row for a line item: by its variant id first, then by its SKU. */
export const findRow = (table: MappingTable, line: { readonly variantId?: string | undefined; readonly sku?: string | undefined }) =>
  (line.variantId !== undefined ? table.byVariantId.get(normalizeVariantId(line.variantId)) : undefined) ??
    (line.sku !== undefined && line.sku.trim() !== "" ? table.bySku.get(line.sku.trim()) : undefined)
