/**
 * The one way this connector talks to a storefront: bearer token, paced by
 * the request gate, every answer turned into data or a typed `StoreError`.
 *
 * - 401/403: `StoreAuthError`.
 * - 429: nothing was done (contract §9), so any request, a POST included, is
 *   sent again after `Retry-After`; meanwhile no request of this connector
 *   leaves. A wait longer than a minute is not sat out inline: the pause
 *   stays in the gate and the call fails as unavailable, not ambiguous.
 * - Transport failures, timeouts and 5xx: reads are retried with backoff;
 *   a write fails `ambiguous` and is not retried here (the caller reads back
 *   first, and the Idempotency-Key makes a repeat harmless anyway).
 * - Every other status (2xx, 400, 404, 409, 422…) is handed to the caller,
 *   who knows what it means for its operation.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Clock, Duration, Effect, Either, Schedule, Schema } from "effect"
import { keepBody, StoreApiError, StoreAuthError, StoreResponseError, StoreUnavailableError, unavailableFor } from "../StoreErrors.js"
import type { StoreError } from "../StoreErrors.js"
import { DEFAULT_REQUEST_TIMEOUT, DEFAULT_REQUESTS_PER_SECOND, feedUrl, type JsonFeedConnectorConfig } from "./JsonFeedConfig.js"
import { makeRequestGate, type RequestGate } from "./JsonFeedGate.js"
import { JsonFeedErrorBody } from "./JsonFeedSchemas.js"

export interface FeedRequest {
  /** Name used in errors (`orders`, `order`, `fulfillments`, `fulfillmentCreate`). */
  readonly operation: string
  readonly method: "GET" | "POST"
  /** Below `<base>`, e.g. `/orders/ord_1/fulfillments`. */
  readonly path: string
  readonly query?: Readonly<Record<string, string | undefined>>
  readonly json?: unknown
  readonly idempotencyKey?: string
  /** A write: failures are ambiguous and are not retried here. */
  readonly write: boolean
}

export interface FeedAnswer {
  readonly status: number
  readonly body: string
}

export interface JsonFeedHttp {
  readonly send: (request: FeedRequest) => Effect.Effect<FeedAnswer, StoreError>
  readonly gate: RequestGate
}

const MAX_RATE_LIMITED_RETRIES = 10
/** Longest `Retry-After` sat out inside a call; a longer one fails the call (the gate still holds it). */
export const MAX_INLINE_WAIT_MILLIS = 60_000
const readRetries = Schedule.exponential("500 millis").pipe(Schedule.intersect(Schedule.recurs(4)))

/** `Retry-After` as seconds or an HTTP date, in millis from `nowMillis`; one second when absent or unreadable. */
export const retryAfterMillis = (header: string | undefined, nowMillis: number): number => {
  if (header === undefined || header.trim() === "") return 1000
  const text = header.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000)
  const at = Date.parse(text)
  return Number.isNaN(at) ? 1000 : Math.max(0, at - nowMillis)
}

/** The transport's own words (e.g. "ECONNRESET"), never the request (which carries the token). */
const causeText = (cause: unknown): string => {
  if (!(cause instanceof Error)) return "no detail"
  const code = (cause as { code?: unknown }).code
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : ""
  return `${typeof code === "string" ? `${code} ` : ""}${cause.message}${inner}`
}

/** The contract's error body (`{"error":{"code","message"}}`), when the answer has one. */
export const errorOf = (answer: FeedAnswer): { readonly code: string; readonly message: string } | undefined =>
  Either.match(Schema.decodeUnknownEither(Schema.parseJson(JsonFeedErrorBody))(answer.body), {
    onLeft: () => undefined,
    onRight: ({ error }) => ({ code: error.code, message: error.message ?? error.code })
  })

/** A status the operation does not expect: the storefront refused, in its own words. */
export const refusal = (storeKey: string, operation: string, answer: FeedAnswer): StoreApiError => {
  const error = errorOf(answer)
  return new StoreApiError({
    storeKey,
    operation,
    messages: [
      error === undefined ? `HTTP ${answer.status}: ${keepBody(answer.body)}` : `HTTP ${answer.status} ${error.code}: ${error.message}`
    ]
  })
}

/** The answer's JSON decoded by `schema`, or a `StoreResponseError` keeping the raw body. */
export const readJson = <A, I>(
  storeKey: string,
  request: Pick<FeedRequest, "operation" | "write">,
  answer: FeedAnswer,
  schema: Schema.Schema<A, I>
): Effect.Effect<A, StoreResponseError> =>
  Either.match(Schema.decodeUnknownEither(Schema.parseJson(schema))(answer.body), {
    onRight: Effect.succeed,
    onLeft: (error) =>
      Effect.fail(
        new StoreResponseError({
          storeKey,
          operation: request.operation,
          ambiguous: request.write,
          status: answer.status,
          body: keepBody(answer.body),
          detail: error.message
        })
      )
  })

type Attempt =
  | { readonly _tag: "Answered"; readonly answer: FeedAnswer }
  | { readonly _tag: "RateLimited"; readonly waitMillis: number }

export const makeJsonFeedHttp = (config: JsonFeedConnectorConfig): Effect.Effect<JsonFeedHttp, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const gate = yield* makeRequestGate(config.requestsPerSecond ?? DEFAULT_REQUESTS_PER_SECOND)
    const timeout = Duration.decode(config.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
    const { storeKey } = config

    const attempt = (request: FeedRequest): Effect.Effect<Attempt, StoreError> =>
      Effect.gen(function*() {
        const unavailable = unavailableFor(storeKey, request.operation, request.write)
        const pausedFor = (yield* gate.nextSendAt) - (yield* Clock.currentTimeMillis)
        if (pausedFor > MAX_INLINE_WAIT_MILLIS) {
          // An earlier 429 asked for a long pause: fail now rather than hold this fiber for it.
          return yield* new StoreUnavailableError({
            storeKey,
            operation: request.operation,
            ambiguous: false,
            status: 429,
            detail: `rate limited for another ${Math.ceil(pausedFor / 1000)} s; nothing was sent`
          })
        }
        yield* gate.acquire
        const query = Object.entries(request.query ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined)
        let outgoing = HttpClientRequest.make(request.method)(feedUrl(config.baseUrl, request.path)).pipe(
          HttpClientRequest.bearerToken(config.token),
          HttpClientRequest.acceptJson,
          HttpClientRequest.setUrlParams(query)
        )
        if (request.idempotencyKey !== undefined) {
          outgoing = HttpClientRequest.setHeader(outgoing, "Idempotency-Key", request.idempotencyKey)
        }
        if (request.json !== undefined) outgoing = HttpClientRequest.bodyUnsafeJson(outgoing, request.json)
        const { status, body, retryAfter } = yield* client.execute(outgoing).pipe(
          Effect.flatMap((response) =>
            Effect.map(response.text, (text) => ({ status: response.status, body: text, retryAfter: response.headers["retry-after"] }))
          ),
          Effect.mapError((error) => unavailable(`${error.reason} error: ${error.description ?? causeText(error.cause)}`)),
          Effect.timeoutFail({ duration: timeout, onTimeout: () => unavailable(`no answer within ${Duration.format(timeout)}`) })
        )
        if (status === 401 || status === 403) return yield* new StoreAuthError({ storeKey, operation: request.operation, status })
        if (status === 429) {
          return { _tag: "RateLimited", waitMillis: retryAfterMillis(retryAfter, yield* Clock.currentTimeMillis) } as const
        }
        if (status >= 500) {
          const error = errorOf({ status, body })
          return yield* unavailable(error === undefined ? keepBody(body) : `${error.code}: ${error.message}`, status)
        }
        return { _tag: "Answered", answer: { status, body } } as const
      })

    const sendOnce = (request: FeedRequest, rateLimitedSoFar: number): Effect.Effect<FeedAnswer, StoreError> =>
      Effect.flatMap(attempt(request), (result) => {
        if (result._tag === "Answered") return Effect.succeed(result.answer)
        const giveUp = (detail: string) =>
          Effect.fail(new StoreUnavailableError({ storeKey, operation: request.operation, ambiguous: false, status: 429, detail }))
        // Every caller waits, not only this one: the gate holds the pause.
        return Effect.zipRight(
          gate.pauseFor(result.waitMillis),
          result.waitMillis > MAX_INLINE_WAIT_MILLIS
            ? giveUp(`rate limited for ${Math.ceil(result.waitMillis / 1000)} s (Retry-After); nothing was done`)
            : rateLimitedSoFar >= MAX_RATE_LIMITED_RETRIES
            ? giveUp(`still rate limited after ${MAX_RATE_LIMITED_RETRIES} waits; nothing was done`)
            : sendOnce(request, rateLimitedSoFar + 1)
        )
      })

    const send = (request: FeedRequest): Effect.Effect<FeedAnswer, StoreError> =>
      request.write
        ? sendOnce(request, 0)
        : sendOnce(request, 0).pipe(
          Effect.retry({ schedule: readRetries, while: (error) => error._tag === "StoreUnavailableError" && error.status !== 429 })
        )

    return { send, gate }
  })
