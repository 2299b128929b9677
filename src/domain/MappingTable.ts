/**
 * The variant-matching table (contract: ARCHITECTURE.md): one CSV per store
 * mapping store variants or SKUs to POD catalog variants and their designs.
 * The table's model; `mapping/MappingCsv.ts` parses the file into it.
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
  /** Said, but the file still loads whole and `check` passes (a duplicate row: the first one wins). */
  readonly warning?: boolean
}

export interface MappingTable {
  readonly rows: ReadonlyArray<MappingRow>
  readonly byVariantId: ReadonlyMap<string, MappingRow>
  readonly bySku: ReadonlyMap<string, MappingRow>
}

/** `gid://shopify/ProductVariant/123` and `123` name the same variant. */
export const normalizeVariantId = (id: string): string => {
  const trimmed = id.trim()
  const gid = /^gid:\/\/[^/]+\/[^/]+\/(.+)$/.exec(trimmed)
  return gid?.[1] ?? trimmed
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

/** A POD catalog variant as planning needs it (from the cached catalog). */
export interface CatalogEntry {
  readonly variantId: string
  readonly legacyId: number | undefined
  readonly name: string
  readonly stockLabel: string
}

/**
 * Looks a POD variant up in the catalog by the id a mapping row names, or by
 * its SKU (to tell a seller who typed a SKU where the variant id belongs which
 * variant it is); `undefined` for the whole lookup means "no catalog yet: skip the check".
 */
export type CatalogLookup = (key: NonNullable<MappingRow["pod"]> | { readonly sku: string }) => CatalogEntry | undefined

/** A store's mapping file that does not load whole: since when, and what is wrong with it. */
export interface MappingFileProblem {
  readonly storeKey: string
  readonly file: string
  readonly outcome: "partial" | "kept_previous" | "unreadable"
  readonly since: Date
  /** Rows of the table in force. */
  readonly rows: number
  /** Each issue as `file:line: column: message` (warnings left out). */
  readonly issues: ReadonlyArray<string>
}

/** One entry per file: a file several stores share is one file, its issues said once with every store that uses it. */
export const byMappingFile = <P extends Pick<MappingFileProblem, "storeKey" | "file" | "issues">>(
  problems: ReadonlyArray<P>
): ReadonlyArray<P & { readonly storeKeys: ReadonlyArray<string> }> => {
  const files = new Map<string, P & { storeKeys: Array<string> }>()
  for (const problem of problems) {
    const seen = files.get(problem.file)
    if (seen === undefined) files.set(problem.file, { ...problem, storeKeys: [problem.storeKey] })
    else seen.storeKeys.push(problem.storeKey)
  }
  return [...files.values()]
}

/** What to tell a seller who wrote a POD variant's SKU where its variant id belongs. */
export const skuTypedAsVariantId = (typed: string, variant: CatalogEntry): string =>
  `"${typed}" is not a POD variant id: that is the SKU of variant ${variant.variantId} (${variant.name}); write ${variant.variantId} in pod_variant_id`
