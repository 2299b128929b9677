// Wire-level types and response builders shared by the simulator's handlers.
// The simulator defines its own wire types: it is a peer of the daemon, not a mock.

import { type Json, omitZeroValues } from "./protoJson.js"

export type { Json } from "./protoJson.js"

export interface SimResponse {
  readonly status: number
  readonly body: Json
  readonly headers?: Readonly<Record<string, string>>
  /** When set, `body` is ignored and this raw text is sent (used for gateway errors). */
  readonly rawText?: { readonly contentType: string; readonly text: string }
}

export interface FieldIssue {
  readonly field: string
  readonly issue: string
}

export interface Paging {
  readonly total: number | string
  readonly total_page: number
  readonly page: number
  readonly limit: number
}

/**
 * A v3 success envelope as the real service writes it: protobuf JSON, so zero
 * values are left out (an empty list answer has no `data`). `extra` adds
 * top-level fields such as a draft create's `warnings`.
 */
export const success = (data: Json, paging?: Paging, extra: Readonly<Record<string, Json>> = {}): SimResponse => ({
  status: 200,
  body: omitZeroValues({ status: "success", message: "OK", data, ...(paging === undefined ? {} : { paging: { ...paging } }), ...extra })
})

/** An error carried in a 200 envelope (duplicate webhook, …): protobuf JSON has no `data` then. */
export const envelopeError = (message: string): SimResponse => ({
  status: 200,
  body: { status: "error", message }
})

/** The spec's error body: `{ code, message, details? }`. */
export const errorBody = (
  status: number,
  code: string,
  message: string,
  details?: ReadonlyArray<FieldIssue>
): SimResponse => ({
  status,
  body: details === undefined || details.length === 0
    ? { code, message }
    : { code, message, details: details.map((d) => ({ field: d.field, issue: d.issue })) }
})

export const invalidArgument = (issues: ReadonlyArray<FieldIssue>): SimResponse => {
  const first = issues[0]
  const message = first === undefined ? "invalid request" : `invalid ${first.field}: ${first.issue}`
  return errorBody(400, "INVALID_ARGUMENT", message, issues)
}

export const notFound = (what: string, field: string, id: string): SimResponse =>
  errorBody(404, "NOT_FOUND", `${what} not found`, [{ field, issue: `no ${what} with id ${id}` }])

export const RATE_LIMIT_MESSAGE = "Rate limit exceeded. Please retry later."

export const tooManyRequests = (retryAfterSeconds: number): SimResponse => ({
  status: 429,
  body: { error: { code: 429, message: RATE_LIMIT_MESSAGE } },
  headers: { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) }
})

export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

export const iso = (ms: number): string => new Date(ms).toISOString()
