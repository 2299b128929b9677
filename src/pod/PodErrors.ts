/**
 * Every way a POD API call can fail, as values the pipeline can store.
 *
 * Each error carries `ambiguous`: true when the service may have acted on the
 * request although we got no usable answer. It is decided per operation (see
 * `isAmbiguousFailure` in PodHttp.ts): only a mutation (draft create, labeled
 * draft create, line-item patch, approve, webhook create/delete, the v2 writes)
 * can be ambiguous, and only after a timeout, a reset after the request was
 * sent, a 5xx, or a 2xx whose body cannot be read. A 400, 401, 403, 404 or 429
 * never is: the service did not act. When `ambiguous` is true, the caller must
 * look the resource up (drafts by `filter.reference_ids`) before retrying.
 *
 * No error holds the request, its headers or its body: credentials never
 * reach an error, a log line or a stored record.
 */
import { Schema } from "effect"

const Context = {
  /** The client operation, e.g. "drafts.create". */
  operation: Schema.String,
  method: Schema.String,
  /** Path and query; the base URL and credentials are left out. */
  path: Schema.String,
  ambiguous: Schema.Boolean
}

const Detail = Schema.Struct({ field: Schema.String, issue: Schema.String })

/**
 * Status errors keep the spec's error body: `code` (e.g. INVALID_ARGUMENT,
 * "" when absent), `message` (the body text when it is not JSON) and
 * `details[]` (`field`, `issue`).
 */
const Body = { code: Schema.String, message: Schema.String, details: Schema.Array(Detail) }

/** 400: the request was refused as invalid; `details` name the fields. Fix the data, do not retry. */
export class PodBadRequestError extends Schema.TaggedError<PodBadRequestError>()("PodBadRequestError", { ...Context, ...Body }) {}

/** 401: missing or invalid credentials. Check pod.clientKey / pod.clientSecret and the header names. */
export class PodUnauthorizedError extends Schema.TaggedError<PodUnauthorizedError>()("PodUnauthorizedError", { ...Context, ...Body }) {}

/** 403: the credentials may not do this (e.g. a store of another team). */
export class PodForbiddenError extends Schema.TaggedError<PodForbiddenError>()("PodForbiddenError", { ...Context, ...Body }) {}

/** 404: no such resource. */
export class PodNotFoundError extends Schema.TaggedError<PodNotFoundError>()("PodNotFoundError", { ...Context, ...Body }) {}

/** 5xx: the service failed. Retry later; on a mutation, look before retrying (ambiguous). */
export class PodServerError
  extends Schema.TaggedError<PodServerError>()("PodServerError", { ...Context, status: Schema.Number, ...Body })
{}

/** A status the spec does not document (e.g. 409, 3xx). */
export class PodUnexpectedStatusError extends Schema.TaggedError<PodUnexpectedStatusError>()(
  "PodUnexpectedStatusError",
  { ...Context, status: Schema.Number, ...Body }
) {}

/**
 * 429: the caller is blocked. `retryAfterSeconds` is the parsed Retry-After
 * header (absent when the service sent none) and `blockedUntil` the moment it
 * announces; nothing should be sent on this credential before then.
 */
export class PodRateLimitedError extends Schema.TaggedError<PodRateLimitedError>()("PodRateLimitedError", {
  ...Context,
  message: Schema.String,
  retryAfterSeconds: Schema.optional(Schema.Number),
  blockedUntil: Schema.optional(Schema.DateTimeUtc)
}) {}

/** A 200 whose envelope says `status = error` (invalid delivery URL, duplicate webhook, not found, …). */
export class PodEnvelopeError extends Schema.TaggedError<PodEnvelopeError>()("PodEnvelopeError", {
  ...Context,
  httpStatus: Schema.Number,
  message: Schema.String
}) {}

/**
 * The answer could not be read (not JSON, or not the documented shape). The
 * raw body is kept (up to 256 KiB) for the record; `issue` says what was wrong.
 */
export class PodDecodeError extends Schema.TaggedError<PodDecodeError>()("PodDecodeError", {
  ...Context,
  httpStatus: Schema.Number,
  rawBody: Schema.String,
  issue: Schema.String
}) {}

/**
 * No answer: the connection failed or the request timed out.
 * `reason`: "connect" (refused / unreachable: never sent), "timeout",
 * "reset" (the connection closed after the request went out), "other".
 */
export class PodTransportError extends Schema.TaggedError<PodTransportError>()("PodTransportError", {
  ...Context,
  reason: Schema.Literal("connect", "timeout", "reset", "other"),
  cause: Schema.String
}) {}

/** The request broke a documented limit and was not sent; `issue` names the field. */
export class PodInvalidRequestError extends Schema.TaggedError<PodInvalidRequestError>()("PodInvalidRequestError", {
  ...Context,
  issue: Schema.String
}) {}

export const PodError = Schema.Union(
  PodBadRequestError,
  PodUnauthorizedError,
  PodForbiddenError,
  PodNotFoundError,
  PodServerError,
  PodUnexpectedStatusError,
  PodRateLimitedError,
  PodEnvelopeError,
  PodDecodeError,
  PodTransportError,
  PodInvalidRequestError
)
export type PodError = typeof PodError.Type

/** True when the service may have acted on the request: look before retrying it. */
export const isAmbiguous = (error: PodError): boolean => error.ambiguous

/** True when the same request may succeed later unchanged (after a wait or a look-up). */
export const isRetryable = (error: PodError): boolean => {
  switch (error._tag) {
    case "PodServerError":
    case "PodRateLimitedError":
    case "PodTransportError":
      return true
    case "PodDecodeError":
      return error.httpStatus >= 500 || error.ambiguous
    default:
      return false
  }
}
