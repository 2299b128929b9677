/** Turns a page-at-a-time list operation into a Stream over every item of every page. */
import { Chunk, Effect, Option, Stream } from "effect"
import type { PagingQuery, PodPage } from "./schemas/Common.js"

/** Builds `filter.x` / `paging.x` query pairs; arrays become repeated keys. */
export const listQueryParams = (query: {
  readonly filter?: object
  readonly paging?: { readonly limit?: number; readonly page?: number }
}): ReadonlyArray<readonly [string, string]> => {
  const pairs: Array<readonly [string, string]> = []
  for (const [key, value] of Object.entries(query.filter ?? {})) {
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) pairs.push([`filter.${key}`, String(item)])
  }
  if (query.paging?.limit !== undefined) pairs.push(["paging.limit", String(query.paging.limit)])
  if (query.paging?.page !== undefined) pairs.push(["paging.page", String(query.paging.page)])
  return pairs
}

/** The service's largest page (the simulator caps `paging.limit` at 100 too). */
export const MAX_PAGE_LIMIT = 100

/**
 * Whether another page follows `page`: by `total_page` when the service sent
 * it, otherwise while pages come back full. An empty page always ends it.
 */
export const hasNextPage = (page: number, limit: number, result: PodPage<unknown>): boolean => {
  if (result.data.length === 0) return false
  const totalPages = result.paging?.total_page
  if (totalPages !== undefined) return page < totalPages
  return result.data.length >= limit
}

/**
 * Pages from `query.paging.page` (default 1) with `query.paging.limit`
 * (default 100) until the last one; each page is one request through the gate.
 */
export const streamAllPages = <Q extends { readonly paging?: PagingQuery }, A, E>(
  query: Q,
  fetchPage: (query: Q) => Effect.Effect<PodPage<A>, E>
): Stream.Stream<A, E> => {
  const limit = query.paging?.limit ?? MAX_PAGE_LIMIT
  const first = query.paging?.page ?? 1
  return Stream.paginateChunkEffect(first, (page) =>
    Effect.map(fetchPage({ ...query, paging: { limit, page } }), (result) =>
      [
        Chunk.fromIterable(result.data),
        hasNextPage(page, limit, result) ? Option.some(page + 1) : Option.none()
      ] as const))
}
