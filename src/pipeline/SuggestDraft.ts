import * as fs from "node:fs/promises"
import { Effect, Stream } from "effect"
import { PodClient } from "../pod/PodClient.js"
import { variantSku } from "../pod/schemas/Catalog.js"
import { MAX_PAGE_LIMIT } from "../pod/PodPaging.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { MappingsRepo } from "../repos/MappingsRepo.js"
import { cellsOfCsv, draftCsv } from "../mapping/MappingCsv.js"
import { type Addition } from "../mapping/MappingMerge.js"
import { type MappingCells } from "../domain/MappingCells.js"
import { MappingFileError } from "./MappingFile.js"
import { type SuggestVariant, suggestMappings } from "../mapping/MappingSuggest.js"
import { parseMappingCsv } from "../mapping/MappingCsv.js"

/** What `podsync mappings suggest` prints: the draft CSV and what it could not match. */
export interface DraftSuggestion {
  readonly csv: string
  readonly rows: number
  /** Rows written commented out: they need a person (a design, a POD variant to choose). */
  readonly commented: number
  /** The rows for lines of orders the file does not map: what `--merge` adds to the file. */
  readonly additions: ReadonlyArray<Addition>
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
export const suggestDraft = (storeKey: string, file: string) => suggestDraftFrom(storeKey, file, catalogVariants)

/** The catalog cache alone (the console's suggestions: a page view asks the POD API nothing); empty until the daemon filled it. */
export const cachedCatalog = Effect.map(
  Effect.flatMap(CatalogRepo, (repo) => repo.entries),
  (entries) => ({ source: "cache" as const, variants: entries as ReadonlyArray<SuggestVariant> })
)

export const suggestDraftFrom = <E, R>(
  storeKey: string,
  file: string,
  catalogOf: Effect.Effect<{ readonly source: "cache" | "live"; readonly variants: ReadonlyArray<SuggestVariant> }, E, R>
) =>
  Effect.gen(function*() {
    const existing: ReadonlyArray<MappingCells> = yield* fileCells(file)
    const orderLines = yield* (yield* MappingsRepo).recentOrderLines(storeKey)
    const catalog = yield* catalogOf
    const lines = orderLines.map((l) => ({ storeVariantId: l.variantId, storeSku: l.sku, title: l.title, variantTitle: l.variantTitle }))
    const result = suggestMappings(existing, lines, catalog.variants)
    const drafted = result.rows.map((cells, i) => ({ cells, note: result.rowNotes[i] ?? "", complete: result.complete[i] ?? false }))
    return {
      csv: draftCsv(drafted),
      rows: result.rows.length,
      commented: drafted.filter((r) => !r.complete).length,
      additions: drafted.slice(result.fileRows),
      matched: result.matched,
      unmatched: result.unmatched,
      notes: result.notes,
      orderLines: orderLines.length,
      fileRows: existing.length,
      catalog: catalog.source
    } satisfies DraftSuggestion
  })
