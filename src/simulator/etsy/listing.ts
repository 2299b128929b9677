import { isCanceled, type StoredReceipt } from "./model.js"

/**
 * `getShopReceipts` query parameters (store-apis.md §3.2): time bounds in Unix seconds (≥ 946684800),
 * `limit` 1–100 (default 25), `offset` (default 0), `sort_on` created|updated|receipt_id (default
 * created), `sort_order` asc|ascending|desc|descending|up|down (default desc), the `was_*` booleans and
 * `legacy` (accepted, ignored). Ties of the sort key are broken by receipt_id in the same direction
 * (Etsy does not document its tie order; this one is stable).
 */

export interface ReceiptQuery {
  readonly minCreated: number | null
  readonly maxCreated: number | null
  readonly minLastModified: number | null
  readonly maxLastModified: number | null
  readonly limit: number
  readonly offset: number
  readonly sortOn: "created" | "updated" | "receipt_id"
  readonly ascending: boolean
  readonly wasPaid: boolean | null
  readonly wasShipped: boolean | null
  readonly wasDelivered: boolean | null
  readonly wasCanceled: boolean | null
}

const MIN_TIMESTAMP = 946684800

const integer = (params: URLSearchParams, name: string): number | null | string => {
  const raw = params.get(name)
  if (raw === null || raw === "") return null
  return /^\d+$/.test(raw) ? Number(raw) : `${name} must be an integer`
}

const bool = (params: URLSearchParams, name: string): boolean | null | string => {
  const raw = params.get(name)
  if (raw === null || raw === "") return null
  if (raw === "true" || raw === "1") return true
  if (raw === "false" || raw === "0") return false
  return `${name} must be a boolean`
}

/** The parsed query, or the 400 message Etsy would give. */
export const parseReceiptQuery = (params: URLSearchParams): ReceiptQuery | string => {
  const times: Record<string, number | null> = {}
  for (const name of ["min_created", "max_created", "min_last_modified", "max_last_modified"]) {
    const value = integer(params, name)
    if (typeof value === "string") return value
    if (value !== null && value < MIN_TIMESTAMP) return `${name} must be greater than or equal to ${MIN_TIMESTAMP}`
    times[name] = value
  }
  const limit = integer(params, "limit")
  if (typeof limit === "string") return limit
  if (limit !== null && (limit < 1 || limit > 100)) return "limit must be between 1 and 100"
  const offset = integer(params, "offset")
  if (typeof offset === "string") return offset
  const sortOn = params.get("sort_on") ?? "created"
  if (sortOn !== "created" && sortOn !== "updated" && sortOn !== "receipt_id") {
    return "sort_on must be one of created, updated, receipt_id"
  }
  const sortOrder = params.get("sort_order") ?? "desc"
  const orders: Record<string, boolean> = { asc: true, ascending: true, up: true, desc: false, descending: false, down: false }
  const ascending = orders[sortOrder]
  if (ascending === undefined) return "sort_order must be one of asc, ascending, desc, descending, up, down"
  const flags: Record<string, boolean | null> = {}
  for (const name of ["was_paid", "was_shipped", "was_delivered", "was_canceled", "legacy"]) {
    const value = bool(params, name)
    if (typeof value === "string") return value
    flags[name] = value
  }
  return {
    minCreated: times["min_created"] ?? null,
    maxCreated: times["max_created"] ?? null,
    minLastModified: times["min_last_modified"] ?? null,
    maxLastModified: times["max_last_modified"] ?? null,
    limit: limit ?? 25,
    offset: offset ?? 0,
    sortOn,
    ascending,
    wasPaid: flags["was_paid"] ?? null,
    wasShipped: flags["was_shipped"] ?? null,
    wasDelivered: flags["was_delivered"] ?? null,
    wasCanceled: flags["was_canceled"] ?? null
  }
}

const within = (value: number, min: number | null, max: number | null): boolean =>
  (min === null || value >= min) && (max === null || value <= max)

const flagMatches = (wanted: boolean | null, actual: boolean): boolean => wanted === null || wanted === actual

export const matches = (q: ReceiptQuery, r: StoredReceipt): boolean =>
  within(r.create_timestamp, q.minCreated, q.maxCreated) &&
  within(r.update_timestamp, q.minLastModified, q.maxLastModified) &&
  flagMatches(q.wasPaid, r.is_paid) &&
  flagMatches(q.wasShipped, r.is_shipped) &&
  // The simulator has no carrier feed: nothing is ever delivered.
  flagMatches(q.wasDelivered, false) &&
  flagMatches(q.wasCanceled, isCanceled(r))

const sortValue = (q: ReceiptQuery, r: StoredReceipt): number =>
  q.sortOn === "created" ? r.create_timestamp : q.sortOn === "updated" ? r.update_timestamp : r.receipt_id

/** The page of receipts the query asks for, and how many match in all (`count`). */
export const selectReceipts = (q: ReceiptQuery, receipts: Iterable<StoredReceipt>): { count: number; page: StoredReceipt[] } => {
  const direction = q.ascending ? 1 : -1
  const all = [...receipts]
    .filter((r) => matches(q, r))
    .sort((a, b) => direction * (sortValue(q, a) - sortValue(q, b) || a.receipt_id - b.receipt_id))
  return { count: all.length, page: all.slice(q.offset, q.offset + q.limit) }
}
