/**
 * What can go wrong talking to a store. Every error names the store and the
 * operation, and says whether the store may have acted on the request
 * (`ambiguous`): after an ambiguous failure of a write, the caller must read
 * the store back before writing again (the connectors' pushes do it anyway).
 */
import { Schema } from "effect"

/** Longest raw answer body kept in an error (enough to diagnose, bounded for storage). */
export const MAX_KEPT_BODY = 8_192

export const keepBody = (body: string): string =>
  body.length <= MAX_KEPT_BODY ? body : `${body.slice(0, MAX_KEPT_BODY)}… (${body.length} characters)`

/**
 * The store refused our credentials (401/403). Nothing is retried until the credentials are fixed.
 * `detail`: what the store said, or what to change, when more is known than the status.
 */
export class StoreAuthError extends Schema.TaggedError<StoreAuthError>()("StoreAuthError", {
  storeKey: Schema.String,
  operation: Schema.String,
  status: Schema.Number,
  detail: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `store ${this.storeKey}: ${this.operation} was refused with HTTP ${this.status}; ${
      this.detail ?? "check the access token and its scopes in the config"
    }`
  }
}

/** No usable answer: transport failure, timeout or a 5xx. The request may have been acted on when `ambiguous`. */
export class StoreUnavailableError extends Schema.TaggedError<StoreUnavailableError>()("StoreUnavailableError", {
  storeKey: Schema.String,
  operation: Schema.String,
  ambiguous: Schema.Boolean,
  status: Schema.optional(Schema.Number),
  detail: Schema.String
}) {
  override get message(): string {
    const what = this.status === undefined ? this.detail : `HTTP ${this.status}: ${this.detail}`
    return `store ${this.storeKey}: ${this.operation} failed (${what}); ${
      this.ambiguous ? "it may have taken effect, so read the store back before retrying" : "retry later"
    }`
  }
}

/** The `StoreUnavailableError`s of one call to a store; `status` only when an answer came. */
export const unavailableFor = (storeKey: string, operation: string, ambiguous: boolean) => (detail: string, status?: number) =>
  new StoreUnavailableError({ storeKey, operation, ambiguous, detail, ...(status === undefined ? {} : { status }) })

/** An answer we cannot read (not JSON, not the expected shape); the raw body is kept for diagnosis. */
export class StoreResponseError extends Schema.TaggedError<StoreResponseError>()("StoreResponseError", {
  storeKey: Schema.String,
  operation: Schema.String,
  ambiguous: Schema.Boolean,
  status: Schema.Number,
  body: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `store ${this.storeKey}: unreadable answer to ${this.operation} (HTTP ${this.status}: ${this.detail}); ${
      this.ambiguous ? "it may have taken effect, so read the store back before retrying" : "the body is kept in this error"
    }`
  }
}

/** The store understood the request and refused it (GraphQL errors, 4xx other than auth); retrying will not help. */
export class StoreApiError extends Schema.TaggedError<StoreApiError>()("StoreApiError", {
  storeKey: Schema.String,
  operation: Schema.String,
  messages: Schema.Array(Schema.String),
  /** The platform's error codes, where it gives them (Shopify's `extensions.code`: `MAX_COST_EXCEEDED`, `ACCESS_DENIED`). */
  codes: Schema.optional(Schema.Array(Schema.String))
}) {
  override get message(): string {
    return `store ${this.storeKey}: ${this.operation} was refused: ${this.messages.join("; ")}`
  }
}

export type StoreError = StoreAuthError | StoreUnavailableError | StoreResponseError | StoreApiError

/** True when the store may have acted on the failed request. */
export const isAmbiguous = (error: StoreError): boolean =>
  (error._tag === "StoreUnavailableError" || error._tag === "StoreResponseError") && error.ambiguous

export const WebhookRejection = Schema.Literal(
  "missing_signature",
  "bad_signature",
  "malformed_body",
  "wrong_shop",
  "missing_headers"
)
export type WebhookRejection = typeof WebhookRejection.Type

/** A webhook delivery we do not trust or cannot use; answer 401 (signature) or 400 (body), never process it. */
export class WebhookRejectedError extends Schema.TaggedError<WebhookRejectedError>()("WebhookRejectedError", {
  storeKey: Schema.String,
  reason: WebhookRejection,
  detail: Schema.String
}) {
  override get message(): string {
    return `store ${this.storeKey}: webhook rejected (${this.reason}): ${this.detail}`
  }
}
