// List operations: paging (`paging.limit` default 20 max 100, `paging.page` from 1)
// and filters given as repeated query keys.
import type { Issues } from "./validation.js"
import type { Json, Paging, SimResponse } from "./wire.js"
import { success } from "./wire.js"

export const DEFAULT_LIMIT = 20
export const MAX_LIMIT = 100

export interface PageRequest {
  readonly limit: number
  readonly page: number
}

const readPositiveInt = (issues: Issues, query: URLSearchParams, key: string, fallback: number, max: number): number => {
  const raw = query.get(key)
  if (raw === null || raw === "" || raw === "0") return fallback
  if (!/^[0-9]+$/.test(raw) || Number(raw) > 2_147_483_647) {
    issues.add(key, "must be a non-negative int32")
    return fallback
  }
  return Math.min(Number(raw), max)
}

export const readPaging = (issues: Issues, query: URLSearchParams): PageRequest => ({
  limit: readPositiveInt(issues, query, "paging.limit", DEFAULT_LIMIT, MAX_LIMIT),
  page: readPositiveInt(issues, query, "paging.page", 1, 2_147_483_647)
})

/** One page of `items`; `total` is sometimes a string, as the spec allows (deterministic by seed and page). */
export const paginate = <A>(
  items: ReadonlyArray<A>,
  request: PageRequest,
  seed: number
): { readonly page: ReadonlyArray<A>; readonly paging: Paging } => {
  const start = (request.page - 1) * request.limit
  const total = items.length
  return {
    page: items.slice(start, start + request.limit),
    paging: {
      total: (seed + request.page) % 2 === 0 ? String(total) : total,
      total_page: Math.ceil(total / request.limit),
      page: request.page,
      limit: request.limit
    }
  }
}

/** Values of a repeated query key (also accepting `key[]` and comma-free single values). */
export const readArray = (issues: Issues, query: URLSearchParams, key: string, maxLength = 255): ReadonlyArray<string> | undefined => {
  const values = [...query.getAll(key), ...query.getAll(`${key}[]`)]
  if (values.length === 0) return undefined
  for (const value of values) {
    if (value.length < 1 || value.length > maxLength) issues.add(key, `each value must be 1 to ${maxLength} characters`)
  }
  return values
}

export const readEnumArray = (
  issues: Issues,
  query: URLSearchParams,
  key: string,
  allowed: ReadonlyArray<string>
): ReadonlyArray<string> | undefined => {
  const values = readArray(issues, query, key)
  if (values === undefined) return undefined
  for (const value of values) {
    if (!allowed.includes(value)) issues.add(key, `unknown value ${value}; expected one of ${allowed.join(", ")}`)
  }
  return values
}

/** `filter.created_at_min`: an ISO 8601 date-time. */
export const readCreatedAtMin = (issues: Issues, query: URLSearchParams): number | undefined => {
  const raw = query.get("filter.created_at_min")
  if (raw === null || raw === "") return undefined
  const ms = Date.parse(raw)
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(raw)) {
    issues.add("filter.created_at_min", "must be an ISO 8601 date-time")
    return undefined
  }
  return ms
}

export const matchesAny = (wanted: ReadonlyArray<string> | undefined, value: string): boolean =>
  wanted === undefined || wanted.includes(value)

/** The filters the draft and order lists share. */
export interface ListFilters {
  readonly paging: PageRequest
  readonly createdAtMin: number | undefined
  readonly methods: ReadonlyArray<string> | undefined
  readonly ids: ReadonlyArray<string> | undefined
  /** Filters only one list has (the order list's payment status), read before the statuses. */
  readonly extra: Readonly<Record<string, ReadonlyArray<string> | undefined>>
  readonly statuses: ReadonlyArray<string> | undefined
  readonly references: ReadonlyArray<string> | undefined
}

/**
 * Reads a list request's paging and filters in the order the service reports their issues;
 * `statuses` and each of `extra` are the values their filter allows.
 */
export const readListFilters = (
  issues: Issues,
  q: URLSearchParams,
  createdMethods: ReadonlyArray<string>,
  statuses: ReadonlyArray<string>,
  extra: Readonly<Record<string, ReadonlyArray<string>>> = {}
): ListFilters => {
  const paging = readPaging(issues, q)
  const createdAtMin = readCreatedAtMin(issues, q)
  const methods = readEnumArray(issues, q, "filter.created_methods", createdMethods)
  const ids = readArray(issues, q, "filter.order_ids", 100)
  const extraValues = Object.fromEntries(Object.entries(extra).map(([key, allowed]) => [key, readEnumArray(issues, q, key, allowed)]))
  return {
    paging,
    createdAtMin,
    methods,
    ids,
    extra: extraValues,
    statuses: readEnumArray(issues, q, "filter.statuses", statuses),
    references: readArray(issues, q, "filter.reference_ids", 255)
  }
}

/** What a listed record shows the shared filters; `status` carries its enum prefix. */
export interface Listed {
  readonly createdAt: number
  readonly createdMethod: string
  readonly id: string
  readonly status: string
  readonly referenceId: string | null
}

export const matchesFilters = (f: ListFilters, r: Listed): boolean =>
  (f.createdAtMin === undefined || r.createdAt >= f.createdAtMin) &&
  matchesAny(f.methods, r.createdMethod) &&
  matchesAny(f.ids, r.id) &&
  matchesAny(f.statuses, r.status) &&
  (f.references === undefined || (r.referenceId !== null && f.references.includes(r.referenceId)))

/** The answer to a list request: the records that matched, newest first, one page of them shown with `view`. */
export const listAnswer = <A>(matching: ReadonlyArray<A>, filters: ListFilters, seed: number, view: (record: A) => Json): SimResponse => {
  const { page, paging } = paginate([...matching].reverse(), filters.paging, seed)
  return success(page.map(view), paging)
}
