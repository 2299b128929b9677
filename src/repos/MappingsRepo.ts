import { Clock, Effect, Schema } from "effect"
import { Db } from "../db/Db.js"
import type { NormalizedLine } from "../domain/NormalizedOrder.js"
import { cellsOfRow, rowOfCells } from "../domain/MappingCells.js"
import { buildTable, type MappingTable } from "../domain/MappingTable.js"

/** A store's table as last loaded into `variant_mappings`. */
export interface LoadedMappings {
  readonly table: MappingTable
  readonly sourceFile: string
  readonly loadedAt: Date
}

/** What `podsync mappings suggest` learns from a store's recent orders. */
export type OrderLine = Pick<NormalizedLine, "sku" | "variantId" | "title" | "variantTitle">

// Kept well under PostgreSQL's 65535 bind parameters (16 per row).
const INSERT_BATCH = 500
const OrderLines = Schema.Struct({
  lines: Schema.Array(Schema.Struct({
    sku: Schema.optional(Schema.String),
    variantId: Schema.optional(Schema.String),
    title: Schema.String,
    variantTitle: Schema.optional(Schema.String)
  }))
})
const decodeLines = Schema.decodeUnknownOption(OrderLines)

/** `variant_mappings`: one store's rows are replaced as a whole, in one transaction. */
export class MappingsRepo extends Effect.Service<MappingsRepo>()("podsync/MappingsRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    /** Replaces a store's rows with `table`, keeping each row's line in `sourceFile`. */
    const replace = (storeKey: string, sourceFile: string, table: MappingTable) =>
      db.transaction(Effect.gen(function*() {
        const loadedAt = new Date(yield* Clock.currentTimeMillis)
        yield* db.use((k) => k.deleteFrom("variant_mappings").where("store_key", "=", storeKey).execute())
        const values = table.rows.map((row) => {
          const cells = cellsOfRow(row)
          const cell = (value: string) => (value === "" ? null : value)
          return {
            store_key: storeKey,
            row_no: row.line,
            store_variant_id: cell(cells.store_variant_id),
            store_sku: cell(cells.store_sku),
            pod_variant_id: cell(cells.pod_variant_id),
            pod_legacy_id: cell(cells.pod_legacy_id),
            print_front: cell(cells.print_front),
            print_back: cell(cells.print_back),
            print_pocket: cell(cells.print_pocket),
            print_left_sleeve: cell(cells.print_left_sleeve),
            print_right_sleeve: cell(cells.print_right_sleeve),
            print_whole: cell(cells.print_whole),
            barcode_url: cell(cells.barcode_url),
            ignore: row.ignore,
            source_file: sourceFile,
            loaded_at: loadedAt
          }
        })
        for (let i = 0; i < values.length; i += INSERT_BATCH) {
          const batch = values.slice(i, i + INSERT_BATCH)
          yield* db.use((k) => k.insertInto("variant_mappings").values(batch).execute())
        }
      }))

    /** The store's rows as a table; `undefined` when none were ever loaded. */
    const load = (storeKey: string) =>
      db.use((k) => k.selectFrom("variant_mappings").selectAll().where("store_key", "=", storeKey).orderBy("row_no").execute()).pipe(
        Effect.map((rows): LoadedMappings | undefined => {
          const first = rows[0]
          if (first === undefined) return undefined
          return {
            table: buildTable(rows.map((r) => rowOfCells(r.row_no, r, r.ignore))),
            sourceFile: first.source_file,
            loadedAt: first.loaded_at
          }
        })
      )

    /**
     * The distinct lines (by variant id, else SKU) of a store's most recent
     * orders, newest first: what its mapping file has to cover.
     */
    const recentOrderLines = (storeKey: string, orders = 500) =>
      db.use((k) =>
        k.selectFrom("store_orders").select("normalized").where("store_key", "=", storeKey)
          .orderBy("created_at", "desc").orderBy("id", "desc").limit(orders).execute()
      ).pipe(Effect.map((rows) => {
        const seen = new Map<string, OrderLine>()
        for (const row of rows) {
          const decoded = decodeLines(row.normalized)
          if (decoded._tag === "None") continue
          for (const line of decoded.value.lines) {
            const key = line.variantId ?? (line.sku !== undefined && line.sku.trim() !== "" ? `sku:${line.sku.trim()}` : undefined)
            if (key !== undefined && !seen.has(key)) seen.set(key, line)
          }
        }
        return [...seen.values()] as ReadonlyArray<OrderLine>
      }))

    return { replace, load, recentOrderLines }
  })
}) {}
