import { Chunk, Effect, Stream } from "effect"
import { PodClient } from "../pod/PodClient.js"
import { MAX_PAGE_LIMIT } from "../pod/PodPaging.js"
import { type CatalogVariant, variantSku } from "../pod/schemas/Catalog.js"
import { type CatalogEntry, type CatalogLookup, skuTypedAsVariantId } from "../domain/MappingTable.js"
import type { MappingTable } from "../domain/MappingTable.js"

/**
 * `podsync check` against the live catalog: every POD variant a mapping row
 * names must exist, and should be orderable. Discontinued or unknown is an
 * error (its orders would be held for good); out of stock is a warning (they
 * wait and are released when it is back).
 */

export interface CatalogProblem {
  readonly severity: "error" | "warning"
  /** `file:line: column: message`. */
  readonly text: string
}

const entryOf = (v: CatalogVariant): CatalogEntry => ({
  variantId: v.variant_id,
  legacyId: v.legacy_variant_id,
  name: [v.product?.product_name, v.name].filter((p) => p !== undefined && p !== "").join(", ") || v.variant_id,
  stockLabel: v.stock_label ?? ""
})

/** Judges each mapped row of a file against a catalog lookup. Pure. */
export const lintAgainstCatalog = (file: string, table: MappingTable, lookup: CatalogLookup): ReadonlyArray<CatalogProblem> =>
  table.rows.flatMap((row): ReadonlyArray<CatalogProblem> => {
    if (row.ignore || row.pod === undefined) return []
    const [column, name] = "variantId" in row.pod
      ? ["pod_variant_id", `POD variant ${row.pod.variantId}`]
      : ["pod_legacy_id", `POD legacy variant ${row.pod.legacyId}`]
    const at = `${file}:${row.line}: ${column}:`
    const entry = lookup(row.pod)
    if (entry === undefined) {
      const skuOf = "variantId" in row.pod ? lookup({ sku: row.pod.variantId }) : undefined
      return [{
        severity: "error",
        text: skuOf !== undefined && "variantId" in row.pod
          ? `${at} ${skuTypedAsVariantId(row.pod.variantId, skuOf)}`
          : `${at} ${name} is not in the POD catalog: map the item to a variant that exists`
      }]
    }
    if (/DISCONTINUED$/.test(entry.stockLabel)) {
      return [{ severity: "error", text: `${at} ${name} (${entry.name}) is discontinued: map the item to another POD variant` }]
    }
    if (/OUT_OF_STOCK(_5D)?$/.test(entry.stockLabel)) {
      const when = entry.stockLabel.endsWith("_5D") ? " (expected back within 5 days)" : ""
      return [{ severity: "warning", text: `${at} ${name} (${entry.name}) is out of stock${when}: its orders wait until it is back` }]
    }
    return []
  })

/** A problem as `podsync check` prints it (and the console lists it). */
export const describeCatalogProblem = (problem: CatalogProblem) => `${problem.severity === "warning" ? "warning: " : ""}${problem.text}`

const chunks = <A>(items: ReadonlyArray<A>, size: number) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

/** Fetches just the POD variants the tables name (100 ids a request) and returns them as a lookup. */
export const liveLookupFor = (tables: ReadonlyArray<MappingTable>) =>
  Effect.gen(function*() {
    const pod = yield* PodClient
    const pods = tables.flatMap((t) => t.rows.flatMap((r) => (r.pod === undefined || r.ignore ? [] : [r.pod])))
    const ids = [...new Set(pods.flatMap((p) => ("variantId" in p ? [p.variantId] : [])))]
    // The API takes int32 legacy ids; a larger one cannot exist.
    const legacy = [...new Set(pods.flatMap((p) => ("legacyId" in p ? [Number(p.legacyId)] : [])))]
      .filter((n) => Number.isSafeInteger(n) && n > 0 && n <= 2_147_483_647)
    const fetch = (filter: NonNullable<NonNullable<Parameters<typeof pod.streamCatalogVariants>[0]>["filter"]>) =>
      pod.streamCatalogVariants({ filter, paging: { limit: MAX_PAGE_LIMIT } }, { lane: "background" }).pipe(Stream.runCollect)
    const found = [
      ...(yield* Effect.forEach(chunks(ids, 100), (batch) => fetch({ variant_ids: batch }))),
      ...(yield* Effect.forEach(chunks(legacy, 100), (batch) => fetch({ legacy_variant_ids: batch })))
    ].flatMap((chunk) => Chunk.toReadonlyArray(chunk))
    // A variant id the catalog does not have may be a SKU typed in the wrong column: look those up by SKU.
    const foundIds = new Set(found.map((v) => v.variant_id))
    const bySkuFound = (yield* Effect.forEach(chunks(ids.filter((id) => !foundIds.has(id)), 100), (batch) => fetch({ skus: batch })))
      .flatMap((chunk) => Chunk.toReadonlyArray(chunk))
    const byId = new Map(found.map((v) => [v.variant_id, entryOf(v)]))
    const byLegacy = new Map(found.flatMap((v) => (v.legacy_variant_id === undefined ? [] : [[v.legacy_variant_id, entryOf(v)] as const])))
    const bySku = new Map(
      [...found, ...bySkuFound].flatMap((v) => {
        const sku = variantSku(v)
        return sku === undefined ? [] : [[sku.toLowerCase(), entryOf(v)] as const]
      })
    )
    const lookup: CatalogLookup = (key) =>
      "variantId" in key
        ? byId.get(key.variantId)
        : "legacyId" in key
        ? byLegacy.get(Number(key.legacyId))
        : bySku.get(key.sku.toLowerCase())
    return { lookup, variants: ids.length + legacy.length }
  })
