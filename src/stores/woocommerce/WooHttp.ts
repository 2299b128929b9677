/**
 * The one way this connector talks to a WooCommerce store: a request to `<url>/wp-json/…` with the
 * consumer key as HTTP Basic credentials (or in the query string: `authentication`, WooConfig.ts),
 * paced by the store's polite bucket (WooPacing.ts), turned into an answer or a typed `StoreError`.
 *
 * - 401 "Consumer key is missing" (or a refusal as if no key was sent) to a request whose key was in
 *   the `Authorization` header: the host stripped the header. With `authentication: auto` the request
 *   goes again at once with the key in the query string, and so does every later one (logged once);
 *   with `header`, it is a `StoreAuthError` saying so. A request with the key in the query string is
 *   never traced (the span would hold the URL) and its URL is never logged.
 * - 401/403: `StoreAuthError` with WooCommerce's words (nothing is retried until the key is fixed).
 * - 429: the store did not act; the bucket holds every request (of every replica sharing it) for
 *   Retry-After (or a backoff), then the request goes again, reads and writes alike. Each refusal is
 *   reported to `onThrottled`.
 * - 503: the bucket holds as for 429; a read goes again, a write fails as ambiguous (a host may answer
 *   503 after WordPress ran) and the caller reads back before writing again.
 * - Other 5xx, transport failures, timeouts: reads are retried with backoff; writes fail as ambiguous.
 * - Any other status comes back to the caller, who knows which 4xx it expects (404 for a missing order,
 *   `rest_no_route` for a missing extension).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Clock, Duration, Effect, Either, Redacted, Ref, Schema } from "effect"
import { keepBody, StoreApiError, StoreAuthError, type StoreError, StoreResponseError, StoreUnavailableError } from "../StoreErrors.js"
import {
  DEFAULT_MIN_REQUEST_INTERVAL_MS,
  DEFAULT_REQUEST_TIMEOUT,
  restRoot,
  urlProblem,
  type WooAuthentication,
  type WooCommerceConnectorConfig
} from "./WooConfig.js"
import type { CredentialRefusal } from "../StoreConnector.js"
import { type BucketGate, budgetUnavailable, makeBucketGate, recordInBucket } from "../BucketGate.js"
import { inMemoryStoreBuckets } from "../InMemoryStoreBucket.js"
import { backoffMillis, politeShape, retryAfterMillis, wooCredential } from "./WooPacing.js"

export interface WooRequest {
  /** Name used in errors (e.g. `orders.update`). */
  readonly name: string
  readonly method: "GET" | "POST" | "PUT" | "DELETE"
  /** Path under `/wp-json`, e.g. `/wc/v3/orders/4021`. */
  readonly path: string
  readonly query?: ReadonlyArray<readonly [string, string]>
  readonly body?: unknown
  /** A write: a failure after it may have reached the store is ambiguous, and it is not resent then. */
  readonly write: boolean
}

export interface WooAnswer {
  readonly status: number
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface WooHttp {
  readonly send: (request: WooRequest) => Effect.Effect<WooAnswer, StoreError>
  readonly gate: BucketGate
  /** Where the key travels now: `query` once the host was found to strip the header (or so configured). */
  readonly credentialsIn: Effect.Effect<"header" | "query">
}

/** Transport failures and 5xx other than 503, per request, before a read gives up. */
const MAX_READ_RETRIES = 4
/** 429/503 answers, per request, before giving up. */
const MAX_REFUSALS = 8

const WooErrorBody = Schema.parseJson(Schema.Struct({ code: Schema.String, message: Schema.String }))

/** True for WooCommerce's 404 for an id it does not know (`woocommerce_rest_shop_order_invalid_id`, …). */
export const isUnknownId = (answer: WooAnswer): boolean =>
  answer.status === 404 && (wooErrorOf(answer)?.code.endsWith("invalid_id") ?? false)

/** WooCommerce's `{code, message}` error body, when the answer is one. */
export const wooErrorOf = (answer: WooAnswer): { readonly code: string; readonly message: string } | undefined =>
  Either.getOrUndefined(Schema.decodeUnknownEither(WooErrorBody)(answer.body))

const retryAfterText = (header: string | undefined): string => (header === undefined ? "" : `, Retry-After: ${header}`)

/**
 * Whether a 401 says the store saw no key at all: "Consumer key is missing" (store-apis.md §0), or the
 * permission check's refusal of an anonymous request (`woocommerce_rest_cannot_*` is answered 401 only
 * to a request that is not logged in). To a request that sent the key in the `Authorization` header,
 * either means the host stripped the header.
 */
export const sawNoKey = (answer: WooAnswer): boolean => {
  if (answer.status !== 401) return false
  const error = wooErrorOf(answer)
  return error !== undefined && (/consumer key is missing/i.test(error.message) || error.code.startsWith("woocommerce_rest_cannot_"))
}

/**
 * For the daemon's health: a 401 that says the store saw no key does not refuse the key when the
 * connector may move it to the query string (`auto`): it does so and sends the request again.
 */
export const wooCredentialRefusal = (authentication: WooAuthentication): CredentialRefusal => (answer) =>
  !(authentication === "auto" && sawNoKey({ status: answer.status, headers: {}, body: answer.body }))

/** Query parameters that carry the key: never logged, never traced. */
const KEY_PARAMS = ["consumer_key", "consumer_secret"]

/** The transport's own words (e.g. "ECONNRESET"), never the request (which carries the key). */
const causeText = (cause: unknown): string => {
  if (!(cause instanceof Error)) return "no detail"
  const code = (cause as { code?: unknown }).code
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : ""
  return `${typeof code === "string" ? `${code} ` : ""}${cause.message}${inner}`
}

/**
 * A 2xx answer's body decoded with `schema`; any other answer becomes `StoreApiError` with the
 * store's code and message. An unreadable 2xx body is a `StoreResponseError` (ambiguous for a write).
 */
export const decodeAnswer = <A, I>(
  storeKey: string,
  request: WooRequest,
  answer: WooAnswer,
  schema: Schema.Schema<A, I>
): Effect.Effect<A, StoreError> => {
  if (answer.status < 200 || answer.status >= 300) {
    const error = wooErrorOf(answer)
    const message = error !== undefined
      ? `HTTP ${answer.status} ${error.code}: ${error.message}`
      : answer.status === 404
      ? "HTTP 404 without a WordPress answer: is the REST API reachable at <url>/wp-json (pretty permalinks on, no plugin blocking it)?"
      : `HTTP ${answer.status}: ${keepBody(answer.body)}`
    return Effect.fail(new StoreApiError({ storeKey, operation: request.name, messages: [message] }))
  }
  return Either.match(Schema.decodeUnknownEither(Schema.parseJson(schema))(answer.body), {
    onRight: Effect.succeed,
    onLeft: (error) =>
      Effect.fail(
        new StoreResponseError({
          storeKey,
          operation: request.name,
          ambiguous: request.write,
          status: answer.status,
          body: keepBody(answer.body),
          detail: error.message
        })
      )
  })
}

export const makeWooHttp = (config: WooCommerceConnectorConfig): Effect.Effect<WooHttp, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    // A request carrying the key in its query string is not traced: a span keeps the full URL.
    const client = HttpClient.withTracerDisabledWhen(
      yield* HttpClient.HttpClient,
      (request) => request.urlParams.some(([name]) => KEY_PARAMS.includes(name))
    )
    const authentication = config.authentication ?? "auto"
    const viaQuery = yield* Ref.make(authentication === "query")
    const gate = yield* makeBucketGate(
      (config.buckets ?? inMemoryStoreBuckets).open(
        wooCredential(config),
        politeShape(config.minRequestIntervalMs ?? DEFAULT_MIN_REQUEST_INTERVAL_MS)
      )
    )
    const reportThrottle = config.onThrottled ?? (() => Effect.void)
    const timeout = Duration.decode(config.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
    const root = restRoot(config.url)
    const refused = urlProblem(config.url)
    const storeKey = config.storeKey

    const build = (request: WooRequest, inQuery: boolean) => {
      const base = HttpClientRequest.make(request.method)(`${root}${request.path}`).pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.setUrlParams(request.query ?? []),
        inQuery
          ? HttpClientRequest.appendUrlParams([
            ["consumer_key", Redacted.value(config.consumerKey)],
            ["consumer_secret", Redacted.value(config.consumerSecret)]
          ])
          : HttpClientRequest.basicAuth(config.consumerKey, config.consumerSecret)
      )
      return request.body === undefined ? base : HttpClientRequest.bodyUnsafeJson(base, request.body)
    }

    const once = (request: WooRequest, inQuery: boolean): Effect.Effect<WooAnswer, StoreUnavailableError> => {
      const unavailable = (detail: string) =>
        new StoreUnavailableError({ storeKey, operation: request.name, ambiguous: request.write, detail })
      const sent = client.execute(build(request, inQuery)).pipe(
        Effect.flatMap((response) => Effect.map(response.text, (body) => ({ status: response.status, headers: response.headers, body }))),
        Effect.mapError((error) => unavailable(`${error.reason} error: ${error.description ?? causeText(error.cause)}`))
      )
      return gate.acquire(1).pipe(
        Effect.mapError(budgetUnavailable(storeKey, request.name)),
        Effect.zipRight(sent),
        Effect.timeoutFail({ duration: timeout, onTimeout: () => unavailable(`no answer within ${Duration.format(timeout)}`) })
      )
    }

    /** The host stripped the header: the key goes in the query string from now on (said once). */
    const switchToQuery = Effect.flatMap(Ref.getAndSet(viaQuery, true), (before) =>
      before
        ? Effect.void
        : Effect.logWarning(
          `store ${storeKey}: the host strips the Authorization header (WooCommerce answered 401 as if no key was sent); ` +
            "podsync now sends the consumer key in the query string over HTTPS. Set woocommerce.authentication: query " +
            "to skip the first try, or let the header through (for Apache: CGIPassAuth On)"
        ))

    const refusedKey = (request: WooRequest, answer: WooAnswer, inQuery: boolean) => {
      const said = wooErrorOf(answer)
      return new StoreAuthError({
        storeKey,
        operation: request.name,
        status: answer.status,
        detail: !inQuery && sawNoKey(answer)
          ? "the host strips the Authorization header, so WooCommerce never sees the key: set woocommerce.authentication: auto " +
            "or query (the key then goes in the query string over HTTPS), or let the header through (for Apache: CGIPassAuth On)"
          : `WooCommerce said: ${said?.message ?? `HTTP ${answer.status}`}; check consumerKey and consumerSecret ` +
            "and the key's permissions (read/write) under WooCommerce › Settings › Advanced › REST API"
      })
    }

    const attempt = (request: WooRequest, failures: number, refusals: number): Effect.Effect<WooAnswer, StoreError> =>
      Effect.gen(function*() {
        const inQuery = yield* Ref.get(viaQuery)
        const result = yield* Effect.either(once(request, inQuery))
        if (Either.isLeft(result)) {
          if (request.write || failures >= MAX_READ_RETRIES) return yield* result.left
          yield* Effect.sleep(backoffMillis(failures + 1))
          return yield* attempt(request, failures + 1, refusals)
        }
        const answer = result.right
        const { status } = answer
        if (status === 401 && !inQuery && authentication === "auto" && sawNoKey(answer)) {
          // WordPress refused before running anything: sending again is safe, writes included.
          yield* switchToQuery
          return yield* attempt(request, failures, refusals)
        }
        if (status === 401 || status === 403) return yield* refusedKey(request, answer, inQuery)
        if (status === 429 || status === 503) {
          const wait = retryAfterMillis(answer.headers["retry-after"], yield* Clock.currentTimeMillis) ?? backoffMillis(refusals + 1)
          yield* reportThrottle({ said: `HTTP ${status}${retryAfterText(answer.headers["retry-after"])}`, waitMs: wait })
          yield* recordInBucket(storeKey, gate.bucket.pause(wait))
          const giveUp = refusals + 1 >= MAX_REFUSALS || (status === 503 && request.write)
          if (giveUp) {
            return yield* new StoreUnavailableError({
              storeKey,
              operation: request.name,
              ambiguous: status === 503 && request.write,
              status,
              detail: status === 429 ? `still refused (429) after ${refusals + 1} tries` : "service unavailable"
            })
          }
          return yield* attempt(request, failures, refusals + 1)
        }
        if (status >= 500) {
          if (request.write || failures >= MAX_READ_RETRIES) {
            return yield* new StoreUnavailableError({
              storeKey,
              operation: request.name,
              ambiguous: request.write,
              status,
              detail: wooErrorOf(answer)?.message ?? "server error"
            })
          }
          yield* Effect.sleep(backoffMillis(failures + 1))
          return yield* attempt(request, failures + 1, refusals)
        }
        return answer
      })

    const send = (request: WooRequest): Effect.Effect<WooAnswer, StoreError> =>
      refused === undefined
        ? attempt(request, 0, 0)
        : Effect.fail(new StoreApiError({ storeKey, operation: request.name, messages: [refused] }))

    return { send, gate, credentialsIn: Effect.map(Ref.get(viaQuery), (query) => (query ? "query" as const : "header" as const)) }
  })
