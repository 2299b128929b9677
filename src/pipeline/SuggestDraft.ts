import * as fs from "node:fs/promises"
import { Effect, Stream } from "effect"
import { PodClient } from "../pod/PodClient.js"
import { variantSku } from "../pod/schemas/Catalog.js"
import { MAX_PAGE_LIMIT } from "../pod/PodPaging.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { MappingsRepo } from "../repos/MappingsRepo.js"
import { cellsOfCsv, mappingCsv } from "../mapping/MappingCsv.js"
import { type MappingCells } from "../domain/MappingCells.js"
import { MappingFileError } from "./MappingFile.js"
import { type SuggestVariant, suggestMappings } from "../mapping/MappingSuggest.js"
import { parseMappingCsv } from "../mapping/MappingCsv.js"

/** What `podsync mappings suggest` prints: the draft CSV and what it could not match. */
export interface DraftSuggestion {
  readonly csv: string
  readonly rows: number
  readonly matched: number
  readonly unmatched: ReadonlyArray<string>
  readonly notes: ReadonlyArray<string>
  /** Where the lines came from, and the catalog. */
  readonly orderLines: number
  readonly fileRows: number
  readonly catalog: "cache" | "live"
}

/** The file's rows as cells; a missing file is a store without rows yet. */
const fileCells = (file: string) =>
  Effect.tryPromise({ try: () => fs.readFile(file, "utf8"), catch: (cause) => new MappingFileError({ file, cause }) }).pipe(
    Effect.catchIf((error) => (error.cause as { code?: string }).code === "ENOENT", () => Effect.succeed("")),
    Effect.flatMap((text) =>
      Effect.try({
        try: () => (text.trim() === "" ? [] : cellsOfCsv(text)),
        catch: () => {
          const syntax = parseMappingCsv(text).issues[0]
          return new MappingFileError({ file, cause: new Error(`line ${syntax?.line ?? 1}: ${syntax?.message ?? "not a CSV file"}`) })
        }
      })
    )
  )

/** The catalog from the cache, or straight from the POD API while the cache is empty. */
const catalogVariants = Effect.gen(function*() {
  const cached = yield* (yield* CatalogRepo).entries
  if (cached.length > 0) return { source: "cache" as const, variants: cached as ReadonlyArray<SuggestVariant> }
  const pod = yield* PodClient
  const live = yield* pod.streamCatalogVariants({ paging: { limit: MAX_PAGE_LIMIT } }, { lane: "background" }).pipe(Stream.runCollect)
  const variants = [...live].map((v): SuggestVariant => ({
    variantId: v.variant_id,
    sku: variantSku(v),
    color: v.color,
    size: v.size,
    productId: v.product?.product_id,
    productName: v.product?.product_name,
    stockLabel: v.stock_label ?? ""
  }))
  return { source: "live" as const, variants }
})

/**
 * A draft mapping table for one store: the rows of its file, completed, and
 * the lines of its recent orders the file does not cover yet.
 */
export const suggestDraft = (storeKey: string, file: string) =>
  Effect.gen(function*() {
    const existing: ReadonlyArray<MappingCells> = yield* fileCells(file)
    const orderLines = yield* (yield* MappingsRepo).recentOrderLines(storeKey)
    const catalog = yield* catalogVariants
    const lines = orderLines.map((l) => ({ storeVariantId: l.variantId, storeSku: l.sku, title: l.title, variantTitle: l.variantTitle }))
    const result = suggestMappings(existing, lines, catalog.variants)
    return {
      csv: mappingCsv(result.rows, result.rowNotes),
      rows: result.rows.length,
      matched: result.matched,
      unmatched: result.unmatched,
      notes: result.notes,
      orderLines: orderLines.length,
      fileRows: existing.length,
      catalog: catalog.source
    } satisfies DraftSuggestion
  })
