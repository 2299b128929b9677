import { Context, Effect, Layer } from "effect"
import type { DbError } from "../db/Db.js"
import { MappingStore } from "./MappingStore.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import type { StoreSettings } from "../mapping/DraftPlan.js"
import type { CatalogLookup } from "../domain/MappingTable.js"
import { buildTable, type MappingTable } from "../domain/MappingTable.js"
import { MappingsRepo } from "../repos/MappingsRepo.js"
import { chooseTable, readMappingFile } from "./MappingFile.js"

/** What planning a draft needs besides the order: the store's mapping table, the catalog cache, the store's settings. */
export interface PlanningInputsShape {
  readonly tableFor: (storeKey: string) => Effect.Effect<MappingTable>
  /**
   * `undefined` while the catalog cache is empty: catalog checks are then left to the service.
   * A failed read fails (the stage gives its batch back), never poses as an empty cache.
   */
  readonly catalog: Effect.Effect<CatalogLookup | undefined, DbError>
  readonly settingsFor: (storeKey: string) => StoreSettings | undefined
}

export class PlanningInputs extends Context.Tag("podsync/PlanningInputs")<PlanningInputs, PlanningInputsShape>() {}

/** The planner's inputs from the mapping store and the catalog cache. */
export const PlanningInputsLive = (settings: ReadonlyArray<StoreSettings>) =>
  Layer.effect(
    PlanningInputs,
    Effect.gen(function*() {
      const mappings = yield* MappingStore
      const catalog = yield* CatalogRepo
      const byKey = new Map(settings.map((s) => [s.storeKey, s]))
      return PlanningInputs.of({
        tableFor: mappings.tableFor,
        catalog: catalog.lookup,
        settingsFor: (storeKey) => byKey.get(storeKey)
      })
    })
  )

/**
 * The planner's inputs as the daemon would have them, read without writing anything (a rehearsal
 * in a process of its own): each store's mapping file as it is now, a file with errors keeping the
 * table last loaded into variant_mappings exactly as the daemon's load keeps it; the catalog cache.
 */
export const PlanningInputsReadOnly = (settings: ReadonlyArray<StoreSettings>) =>
  Layer.effect(
    PlanningInputs,
    Effect.gen(function*() {
      const mappings = yield* MappingsRepo
      const catalog = yield* CatalogRepo
      const byKey = new Map(settings.map((s) => [s.storeKey, s]))
      const tableFor = (storeKey: string) =>
        Effect.gen(function*() {
          const loaded = yield* Effect.orDie(mappings.load(storeKey))
          const file = byKey.get(storeKey)?.mappingFile
          const previous = loaded !== undefined && loaded.sourceFile === file ? loaded.table : undefined
          if (file === undefined) return previous ?? buildTable([])
          const read = yield* Effect.either(readMappingFile(file))
          if (read._tag === "Left") {
            yield* Effect.logError(`${read.left.message}; the rehearsal uses the rows last loaded`)
            return previous ?? buildTable([])
          }
          return chooseTable(read.right, previous).table
        })
      return PlanningInputs.of({ tableFor, catalog: catalog.lookup, settingsFor: (storeKey) => byKey.get(storeKey) })
    })
  )
