import { orderStatuses, type StoredOrder } from "./model.js"

/**
 * `GET /wc/v3/orders` parameters, validated the way WordPress validates a REST collection request
 * (`rest_validate_request_arg`: 400 `rest_invalid_param` naming each bad parameter), and the query they
 * make (`WC_REST_CRUD_Controller::prepare_objects_query` over WP_Query):
 *
 * - `after`/`before`/`modified_after`/`modified_before` are exclusive (`>` / `<`) at second precision.
 * - `dates_are_gmt=true` compares with the GMT column, otherwise with the site's local-time column.
 * - The bound itself goes through `WP_Date_Query::build_mysql_datetime`: a bound without a zone designator
 *   is taken as written; a bound WITH one (`Z`, `+02:00`) is converted to the site's local time first, and
 *   that local wall time is then compared with whichever column was chosen. So `…Z` together with
 *   `dates_are_gmt=true` is off by the site's UTC offset (mode "wp-core", the default). Mode "absolute"
 *   honours designators, as an ideal server would; the simulator offers both (the behaviour is reported
 *   from reading WP core, not verified against every host).
 * - `orderby=date|modified` sorts by that date then ID (WooCommerce appends ID "for consistency with
 *   pagination"), in the same direction; `offset` overrides `page`.
 */

export type DateBoundMode = "wp-core" | "absolute"

const orderbyValues = ["date", "id", "include", "title", "slug", "modified"] as const
type Orderby = (typeof orderbyValues)[number]
// The statuses a list may ask for: any stored one (trash first), "any" and "auto-draft".
const statusValues: ReadonlyArray<string> = ["any", "trash", "auto-draft", ...orderStatuses.filter((status) => status !== "trash")]

export interface ListQuery {
  readonly page: number
  readonly perPage: number
  readonly offset: number | null
  readonly after: string | null
  readonly before: string | null
  readonly modifiedAfter: string | null
  readonly modifiedBefore: string | null
  readonly datesAreGmt: boolean
  readonly include: ReadonlyArray<number>
  readonly exclude: ReadonlyArray<number>
  readonly order: "asc" | "desc"
  readonly orderby: Orderby
  readonly statuses: ReadonlyArray<string>
  readonly search: string | null
  readonly customer: number | null
}

export interface ParamError {
  readonly message: string
  readonly code: string
}
export type ParamErrors = Record<string, ParamError>

const dateTime = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/

const wpList = (items: ReadonlyArray<string>): string =>
  items.length <= 2 ? items.join(" and ") : `${items.slice(0, -1).join(", ")}, and ${items[items.length - 1]}`

/** Values of an array parameter given as `a,b`, `name[]=a&name[]=b` or repeated. */
const arrayParam = (params: URLSearchParams, name: string): string[] | null => {
  const raw = [...params.getAll(name), ...params.getAll(`${name}[]`)]
  return raw.length === 0 ? null : raw.flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "")
}

export const parseListQuery = (params: URLSearchParams): ListQuery | ParamErrors => {
  const errors: ParamErrors = {}
  const integer = (name: string, fallback: number | null, min: number, max: number | null): number | null => {
    const raw = params.get(name)
    if (raw === null || raw === "") return fallback
    if (!/^-?\d+$/.test(raw.trim())) {
      errors[name] = { code: "rest_invalid_type", message: `${name} is not of type integer.` }
      return fallback
    }
    const value = Number(raw)
    if (value < min || (max !== null && value > max)) {
      errors[name] = {
        code: "rest_out_of_bounds",
        message: max === null
          ? `${name} must be greater than or equal to ${min}`
          : `${name} must be between ${min} (inclusive) and ${max} (inclusive)`
      }
    }
    return value
  }
  const date = (name: string): string | null => {
    const raw = params.get(name)
    if (raw === null || raw === "") return null
    if (!dateTime.test(raw)) errors[name] = { code: "rest_invalid_date", message: "Invalid date." }
    return raw
  }
  const oneOf = <T extends string>(name: string, allowed: ReadonlyArray<T>, fallback: T): T => {
    const raw = params.get(name)
    if (raw === null || raw === "") return fallback
    if (!(allowed as ReadonlyArray<string>).includes(raw)) {
      errors[name] = { code: "rest_not_in_enum", message: `${name} is not one of ${wpList(allowed)}.` }
      return fallback
    }
    return raw as T
  }
  const ids = (name: string): number[] => (arrayParam(params, name) ?? []).map(Number).filter((n) => Number.isInteger(n) && n > 0)

  const gmtRaw = params.get("dates_are_gmt")
  let datesAreGmt = false
  if (gmtRaw !== null && gmtRaw !== "") {
    if (["true", "1"].includes(gmtRaw)) datesAreGmt = true
    else if (!["false", "0"].includes(gmtRaw)) {
      errors.dates_are_gmt = { code: "rest_invalid_type", message: "dates_are_gmt is not of type boolean." }
    }
  }
  const statuses = arrayParam(params, "status") ?? ["any"]
  statuses.forEach((status, index) => {
    if (!statusValues.includes(status)) {
      errors.status = { code: "rest_not_in_enum", message: `status[${index}] is not one of ${wpList(statusValues)}.` }
    }
  })
  const query: ListQuery = {
    page: integer("page", 1, 1, null) ?? 1,
    perPage: integer("per_page", 10, 1, 100) ?? 10,
    offset: integer("offset", null, 0, null),
    after: date("after"),
    before: date("before"),
    modifiedAfter: date("modified_after"),
    modifiedBefore: date("modified_before"),
    datesAreGmt,
    include: ids("include"),
    exclude: ids("exclude"),
    order: oneOf("order", ["asc", "desc"] as const, "desc"),
    orderby: oneOf("orderby", orderbyValues, "date"),
    statuses,
    search: params.get("search"),
    customer: integer("customer", null, 0, null)
  }
  return Object.keys(errors).length > 0 ? errors : query
}

export const isParamErrors = (value: ListQuery | ParamErrors): value is ParamErrors => !("perPage" in value)

/**
 * A date bound and the column value it is compared with, both as "wall milliseconds" (a wall-clock
 * reading written as if it were UTC), per the mode described at the top.
 */
const comparison = (text: string, datesAreGmt: boolean, mode: DateBoundMode, gmtOffsetHours: number) => {
  const m = dateTime.exec(text)!
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]))
  const designator = m[8]
  const offsetMs = gmtOffsetHours * 3_600_000
  let designatorMs: number | null = null
  if (designator !== undefined) {
    const d = /^([+-])(\d{2}):?(\d{2})?$/.exec(designator)
    designatorMs = d === null ? 0 : (d[1] === "-" ? -1 : 1) * (Number(d[2]) * 3_600_000 + Number(d[3] ?? 0) * 60_000)
  }
  if (mode === "wp-core") {
    const bound = designatorMs === null ? wall : wall - designatorMs + offsetMs
    return { bound, column: (gmtMs: number) => (datesAreGmt ? gmtMs : gmtMs + offsetMs) }
  }
  const instant = designatorMs !== null ? wall - designatorMs : datesAreGmt ? wall : wall - offsetMs
  return { bound: instant, column: (gmtMs: number) => gmtMs }
}

export interface Selection {
  readonly rows: StoredOrder[]
  readonly total: number
  readonly totalPages: number
  readonly page: number
}

export const selectOrders = (
  orders: Iterable<StoredOrder>,
  q: ListQuery,
  options: { readonly mode: DateBoundMode; readonly gmtOffsetHours: number }
): Selection => {
  const bounds: Array<(o: StoredOrder) => boolean> = []
  const bound = (text: string | null, field: "createdAt" | "modifiedAt", direction: "after" | "before") => {
    if (text === null) return
    const { bound: value, column } = comparison(text, q.datesAreGmt, options.mode, options.gmtOffsetHours)
    bounds.push((o) => (direction === "after" ? column(o[field]) > value : column(o[field]) < value))
  }
  bound(q.after, "createdAt", "after")
  bound(q.before, "createdAt", "before")
  bound(q.modifiedAfter, "modifiedAt", "after")
  bound(q.modifiedBefore, "modifiedAt", "before")

  const wantsAny = q.statuses.includes("any")
  const search = q.search?.toLowerCase() ?? null
  const matching = [...orders].filter((o) => {
    if (wantsAny ? o.status === "trash" || o.status === "checkout-draft" : !q.statuses.includes(o.status)) return false
    if (q.include.length > 0 && !q.include.includes(o.id)) return false
    if (q.exclude.includes(o.id)) return false
    if (q.customer !== null && o.customerId !== q.customer) return false
    if (search !== null && search !== "") {
      const haystack = [String(o.id), o.number, o.billing.email ?? "", o.billing.first_name, o.billing.last_name].join(" ").toLowerCase()
      if (!haystack.includes(search)) return false
    }
    return bounds.every((test) => test(o))
  })
  const direction = q.order === "asc" ? 1 : -1
  const key = (o: StoredOrder): number =>
    q.orderby === "date" ? o.createdAt : q.orderby === "modified" ? o.modifiedAt : q.orderby === "include" ? q.include.indexOf(o.id) : o.id
  matching.sort((a, b) => direction * (key(a) - key(b) || a.id - b.id))
  const start = q.offset ?? (q.page - 1) * q.perPage
  return {
    rows: matching.slice(start, start + q.perPage),
    total: matching.length,
    totalPages: Math.ceil(matching.length / q.perPage),
    page: q.page
  }
}
