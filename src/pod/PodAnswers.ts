/**
 * How to read what the POD service answered (pure): error bodies, Retry-After,
 * Node socket errors, schema failures, and whether a failure is ambiguous.
 */
import { Duration, Option, ParseResult, Schema } from "effect"
import { ErrorBody, RateLimitBody } from "./schemas/Common.js"

const MAX_KEPT_BODY = 256 * 1024
const MAX_KEPT_ISSUE = 8 * 1024

/** The raw body as kept in a decode error. */
export const keepBody = (text: string): string => (text.length > MAX_KEPT_BODY ? text.slice(0, MAX_KEPT_BODY) : text)

/** Node's socket error codes that mean the request never left this machine. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ERR_INVALID_URL"])
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET"])

export const causeText = (cause: unknown): string => {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code
    return typeof code === "string" ? `${code}: ${cause.message}` : cause.message
  }
  return String(cause)
}

/** What a Node socket error says about whether the request left this machine. */
export const transportReason = (cause: unknown): "connect" | "reset" | "other" => {
  const code = cause instanceof Error ? (cause as { code?: unknown }).code : undefined
  if (typeof code === "string" && NOT_SENT_CODES.has(code)) return "connect"
  if (typeof code === "string" && RESET_CODES.has(code)) return "reset"
  if (cause instanceof Error && /socket hang up|other side closed/i.test(cause.message)) return "reset"
  return "other"
}

/** Retry-After: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export const parseRetryAfter = (value: string | undefined, nowMillis: number): Option.Option<Duration.Duration> => {
  if (value === undefined) return Option.none()
  const text = value.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Option.some(Duration.seconds(Number(text)))
  // Parsing a date is not reading the clock: `now` comes from Clock.
  const at = Date.parse(text)
  return Number.isNaN(at) ? Option.none() : Option.some(Duration.millis(Math.max(0, at - nowMillis)))
}

/** Code, message and details of an error answer, whatever its body looks like. */
export const errorFields = <C extends object>(ctx: C, text: string) => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { ...ctx, code: "", message: text.slice(0, 500), details: [] as Array<{ field: string; issue: string }> }
  }
  const body = Schema.decodeUnknownOption(ErrorBody)(parsed)
  const rate = Schema.decodeUnknownOption(RateLimitBody)(parsed)
  const code = Option.flatMap(body, (b) => Option.fromNullable(b.code))
  const message = Option.orElse(
    Option.flatMap(body, (b) => Option.fromNullable(b.message)),
    () => Option.flatMap(rate, (r) => Option.fromNullable(r.error.message))
  )
  return {
    ...ctx,
    code: Option.match(code, { onNone: () => "", onSome: String }),
    message: Option.getOrElse(message, () => text.slice(0, 500)),
    details: Option.match(body, {
      onNone: () => [],
      onSome: (b) => (b.details ?? b.errors ?? []).map((d) => ({ field: d.field ?? "", issue: d.issue ?? "" }))
    })
  }
}

/**
 * One line per problem, `path: message`, short enough to store. The "or null"
 * alternative of optional fields is left out when a real problem is listed.
 */
export const describeParseError = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error).map(
    (issue) => `${issue.path.length === 0 ? "(body)" : issue.path.join(".")}: ${issue.message.slice(0, 300)}`
  )
  const real = issues.filter((line) => !/: Expected null, actual /.test(line))
  const lines = [...new Set(real.length > 0 ? real : issues)]
  return lines.slice(0, 50).join("\n").slice(0, MAX_KEPT_ISSUE)
}

/** Whether a failure leaves the request's effect at the service unknown. */
export const isAmbiguousFailure = (
  kind: "read" | "mutation",
  failure: { readonly _tag: "NoAnswer"; readonly reason: string } | {
    readonly _tag: "Answered"
    readonly status: number
    readonly unreadable: boolean
  }
): boolean => {
  if (kind === "read") return false
  if (failure._tag === "NoAnswer") return failure.reason !== "connect"
  if (failure.status >= 500) return true
  return failure.status >= 200 && failure.status < 300 && failure.unreadable
}
