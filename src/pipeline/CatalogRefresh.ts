import { Clock, Effect, Stream } from "effect"
import { PodClient } from "../pod/PodClient.js"
import { MAX_PAGE_LIMIT } from "../pod/PodPaging.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { PipelineTriggers } from "./PipelineTriggers.js"

export interface CatalogRefreshSummary {
  readonly variants: number
  readonly added: number
  readonly stockChanged: number
  readonly removed: number
}

/**
 * Refreshes the cached POD catalog: every variant, page by page in the
 * background lane of the rate budget, upserted as it comes. Only a complete
 * pass removes variants the service stopped listing. When anything a held
 * order may wait on changed (stock back, a new or a removed variant), held
 * orders are re-planned. The daemon runs it at start and on `schedules.catalog`.
 */
export const refreshCatalog = Effect.gen(function*() {
  const pod = yield* PodClient
  const repo = yield* CatalogRepo
  const triggers = yield* PipelineTriggers
  const at = new Date(yield* Clock.currentTimeMillis)
  const totals = yield* pod.streamCatalogVariants({ paging: { limit: MAX_PAGE_LIMIT } }, { lane: "background" }).pipe(
    Stream.grouped(MAX_PAGE_LIMIT),
    Stream.mapEffect((page) => Effect.map(repo.upsert([...page], at), (upserted) => ({ ...upserted, variants: page.length }))),
    Stream.runFold({ variants: 0, added: 0, stockChanged: 0 }, (sum, page) => ({
      variants: sum.variants + page.variants,
      added: sum.added + page.added,
      stockChanged: sum.stockChanged + page.stockChanged
    }))
  )
  // An empty answer is more likely a fault than a catalog with nothing in it: keep the cache.
  const removed = totals.variants === 0 ? 0 : yield* repo.pruneOlderThan(at)
  yield* repo.reloadSnapshot
  const summary: CatalogRefreshSummary = { ...totals, removed }
  yield* Effect.logInfo("POD catalog refreshed").pipe(Effect.annotateLogs({ ...summary }))
  if (summary.added + summary.stockChanged + summary.removed > 0) yield* triggers.replanHeld()
  return summary
}).pipe(Effect.withLogSpan("catalog.refresh"))
