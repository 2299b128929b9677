import { GraphQLError } from "graphql"

/**
 * Relay connections as Shopify serves them. A cursor is base64 of `{"last_id":…,"last_value":…}` (the
 * shape Shopify's own cursors decode to): it names a position in the sort order, not an index, so it
 * stays valid while the list changes; an item edited during a walk simply moves in the order.
 */

export interface PageArgs {
  readonly first?: number | null
  readonly after?: string | null
  readonly last?: number | null
  readonly before?: string | null
  readonly reverse?: boolean | null
}

export interface Connection<A> {
  readonly edges: ReadonlyArray<{ readonly cursor: string; readonly node: A }>
  readonly nodes: ReadonlyArray<A>
  readonly pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }
}

export const maxPageSize = 250

type SortValue = number | string

export const encodeCursor = (id: number, value: SortValue): string =>
  Buffer.from(JSON.stringify({ last_id: id, last_value: value })).toString("base64")

const decodeCursor = (cursor: string): { id: number; value: SortValue } => {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, "base64").toString("utf8"))
    if (typeof decoded === "object" && decoded !== null && "last_id" in decoded && "last_value" in decoded) {
      const { last_id, last_value } = decoded
      if (typeof last_id === "number" && (typeof last_value === "number" || typeof last_value === "string")) {
        return { id: last_id, value: last_value }
      }
    }
  } catch {
    // falls through to the GraphQL error below
  }
  throw new GraphQLError("Invalid cursor for current pagination sort.", { extensions: { code: "BAD_REQUEST" } })
}

const checkSizes = (args: PageArgs): void => {
  const first = args.first ?? null
  const last = args.last ?? null
  if (first === null && last === null) {
    throw new GraphQLError("you must provide one of first or last", { extensions: { code: "BAD_REQUEST" } })
  }
  for (const [name, size] of [["first", first], ["last", last]] as const) {
    if (size !== null && (size < 0 || size > maxPageSize)) {
      throw new GraphQLError(`The ${name} argument must be between 0 and ${maxPageSize}.`, {
        extensions: { code: "BAD_REQUEST", argumentName: name }
      })
    }
  }
}

/**
 * Pages `items` sorted by (sortValue, id), ascending unless `reverse`. `items` need not be sorted.
 */
export const paginate = <A>(
  items: ReadonlyArray<A>,
  args: PageArgs,
  key: (item: A) => { readonly id: number; readonly value: SortValue }
): Connection<A> => {
  checkSizes(args)
  const direction = args.reverse ? -1 : 1
  const compareKeys = (a: { id: number; value: SortValue }, b: { id: number; value: SortValue }): number => {
    const byValue = a.value < b.value ? -1 : a.value > b.value ? 1 : 0
    return direction * (byValue !== 0 ? byValue : a.id - b.id)
  }
  const sorted = items.map((item) => ({ item, key: key(item) })).sort((a, b) => compareKeys(a.key, b.key))
  let start = 0
  let end = sorted.length
  if (args.after) {
    const after = decodeCursor(args.after)
    while (start < end && compareKeys(sorted[start]!.key, after) <= 0) start++
  }
  if (args.before) {
    const before = decodeCursor(args.before)
    while (end > start && compareKeys(sorted[end - 1]!.key, before) >= 0) end--
  }
  if (args.first !== undefined && args.first !== null) end = Math.min(end, start + args.first)
  if (args.last !== undefined && args.last !== null) start = Math.max(start, end - args.last)
  const page = sorted.slice(start, end)
  const edges = page.map(({ item, key: k }) => ({ cursor: encodeCursor(k.id, k.value), node: item }))
  return {
    edges,
    nodes: page.map((p) => p.item),
    pageInfo: {
      hasNextPage: end < sorted.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null
    }
  }
}

/** Paging for nested lists kept in their natural order (line items, fulfillment orders, …). */
export const paginateById = <A extends { readonly id: number }>(items: ReadonlyArray<A>, args: PageArgs): Connection<A> =>
  paginate(items, args, (item) => ({ id: item.id, value: item.id }))
