/**
 * The one way this connector calls the Etsy API: the app's key on every
 * request (`x-api-key: <keystring>:<shared_secret>`) and, on private calls,
 * the shop's OAuth bearer (`Authorization: Bearer <token>`), paced by the
 * quota gate (the shop's for private calls, the app's for public ones: Etsy
 * counts them apart, store-apis.md §0), and every answer turned into data or
 * a typed `StoreError`.
 *
 * - 401: the access token is dropped and refreshed, and the request sent
 *   once more (Etsy did not act on it). A second 401 is an auth error.
 * - 403: Etsy declares it per operation ("not allowed to perform"). On a call
 *   that asks for it (`refusalOn403`: one receipt's shipment), it refuses that
 *   request only and comes back as `Refused` with Etsy's words, unless those
 *   words are about the key, the secret, the token or its scopes
 *   (`refusesCredentials`). Elsewhere, an auth error.
 * - 429: the request did not run, so it is retried (writes too) after the
 *   pause the gate takes (`retry-after`, else 1, 2, 4… s), at most 5 times;
 *   the pause holds every replica of the application, and each 429 is
 *   reported to `onThrottled`.
 * - Transport failures, timeouts and 5xx: reads are retried; a write is not,
 *   and the error is `ambiguous` (the caller reads back before writing again).
 * - Other 4xx (400, 404, 409): `Refused`, with Etsy's `{"error"}` message,
 *   for the caller to decide.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Either, identity, Redacted, Schedule, Schema } from "effect"
import { keepBody, StoreAuthError, type StoreError, StoreResponseError, StoreUnavailableError, unavailableFor } from "../StoreErrors.js"
import { applicationUrl, DEFAULT_DAILY_RESERVE, DEFAULT_REQUEST_TIMEOUT, type EtsyConnectorConfig } from "./EtsyConfig.js"
import { budgetUnavailable } from "../BucketGate.js"
import { inMemoryStoreBuckets } from "../InMemoryStoreBucket.js"
import {
  DEFAULT_PER_SECOND,
  etsyAppCredential,
  etsyCredential,
  type Lane,
  makeQuotaGate,
  type QuotaGate,
  type QuotaRefusedError,
  readQuotaHeaders,
  spacingShape
} from "./EtsyQuota.js"
import type { CredentialRefusal } from "../StoreConnector.js"
import { EtsyErrorBody } from "./EtsySchemas.js"
import { type EtsyTokens, makeEtsyTokens } from "./EtsyTokens.js"

export interface EtsyCall<A, I> {
  /** Etsy's operation id, used in errors (`getShopReceipts`, `createReceiptShipment`…). */
  readonly operation: string
  readonly method: "GET" | "POST" | "PUT"
  /** Path under `/v3/application`. */
  readonly path: string
  readonly query?: Readonly<Record<string, string>>
  readonly body?: { readonly encoding: "json" | "form"; readonly fields: Readonly<Record<string, string | boolean>> }
  /** A write: failures are ambiguous and are not retried. */
  readonly write: boolean
  readonly lane: Lane
  readonly schema: Schema.Schema<A, I>
  /** A public call (the app's key only, no OAuth token): getShop, getShippingCarriers. Default: private. */
  readonly access?: "private" | "public"
  /** A 403 refuses this request only (see above). */
  readonly refusalOn403?: boolean
}

export type EtsyAnswer<A> =
  | { readonly _tag: "Ok"; readonly value: A }
  | { readonly _tag: "Refused"; readonly status: number; readonly message: string }

export interface EtsyHttp {
  readonly run: <A, I>(call: EtsyCall<A, I>) => Effect.Effect<EtsyAnswer<A>, StoreError>
  /** The shop's gate (private calls). */
  readonly gate: QuotaGate
  /** The app's gate (public calls). */
  readonly appGate: QuotaGate
  readonly tokens: EtsyTokens
}

/**
 * Whether Etsy's words on a 401/403 are about the credentials themselves (the app's key or shared
 * secret, the OAuth token or its scopes), rather than about the one thing asked for.
 */
export const refusesCredentials = (message: string): boolean =>
  /x-api-key|api[ _]?key|keystring|shared[ _]?secret|oauth|access[ _]?token|invalid[ _]token|bearer|scope/i.test(message)

/**
 * For the daemon's health: which of Etsy's 401/403 answers refuse the credentials. A 403 on one
 * receipt's createReceiptShipment refuses that shipment, unless its words are about the credentials.
 */
export const etsyCredentialRefusal: CredentialRefusal = (answer) =>
  !(answer.status === 403 && answer.method === "POST" && /\/receipts\/\d+\/tracking\/?$/.test(answer.path) &&
    !refusesCredentials(answer.body))

export const MAX_THROTTLED_RETRIES = 5
const readRetries = Schedule.exponential("500 millis").pipe(Schedule.intersect(Schedule.recurs(4)))
const decodeError = Schema.decodeUnknownEither(Schema.parseJson(EtsyErrorBody))

/** `retry-after` in seconds, when present and readable. */
const retryAfterMillis = (header: string | undefined): number | undefined => {
  const seconds = header === undefined ? Number.NaN : Number(header)
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined
}

/** The transport's own words (e.g. "ECONNRESET"), never the request (which carries the credentials). */
const causeText = (cause: unknown): string => {
  if (!(cause instanceof Error)) return "no detail"
  const code = (cause as { code?: unknown }).code
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : ""
  return `${typeof code === "string" ? `${code} ` : ""}${cause.message}${inner}`
}

const errorMessage = (status: number, body: string): string =>
  Either.match(decodeError(body), {
    onLeft: () => `HTTP ${status}: ${keepBody(body)}`,
    onRight: (e) => (e.error_description === undefined ? e.error : `${e.error}: ${e.error_description}`)
  })

type Attempt<A> =
  | { readonly _tag: "Done"; readonly answer: EtsyAnswer<A> }
  | { readonly _tag: "Unauthorized" }
  | { readonly _tag: "Throttled"; readonly retryAfter: number | undefined; readonly said: string }

export const makeEtsyHttp = (config: EtsyConnectorConfig): Effect.Effect<EtsyHttp, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const tokens = yield* makeEtsyTokens(config)
    const storeKey = config.storeKey
    const buckets = config.buckets ?? inMemoryStoreBuckets
    const reserve = config.dailyReserve ?? DEFAULT_DAILY_RESERVE
    const gate = yield* makeQuotaGate(storeKey, reserve, buckets.open(etsyCredential(config), spacingShape(DEFAULT_PER_SECOND)))
    const appGate = yield* makeQuotaGate(storeKey, reserve, buckets.open(etsyAppCredential(config), spacingShape(DEFAULT_PER_SECOND)))
    const gateOf = (call: Pick<EtsyCall<unknown, unknown>, "access">) => (call.access === "public" ? appGate : gate)
    const reportThrottle = config.onThrottled ?? (() => Effect.void)
    const timeout = Duration.decode(config.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
    const apiKey = `${Redacted.value(config.keystring)}:${Redacted.value(config.sharedSecret)}`

    const buildRequest = <A, I>(call: EtsyCall<A, I>, token: Redacted.Redacted<string> | undefined) => {
      const url = applicationUrl(config, call.path)
      const base = (call.method === "GET"
        ? HttpClientRequest.get(url)
        : call.method === "PUT"
        ? HttpClientRequest.put(url)
        : HttpClientRequest.post(url)).pipe(
          HttpClientRequest.setHeader("x-api-key", apiKey),
          token === undefined ? identity : HttpClientRequest.setHeader("authorization", `Bearer ${Redacted.value(token)}`),
          HttpClientRequest.acceptJson,
          HttpClientRequest.setUrlParams(call.query ?? {})
        )
      if (call.body === undefined) return base
      const fields = call.body.fields
      return call.body.encoding === "json"
        ? HttpClientRequest.bodyUnsafeJson(base, fields)
        : HttpClientRequest.bodyUrlParams(base, Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])))
    }

    const attempt = <A, I>(call: EtsyCall<A, I>): Effect.Effect<Attempt<A>, StoreError | QuotaRefusedError> =>
      Effect.gen(function*() {
        const unavailable = unavailableFor(storeKey, call.operation, call.write)
        const token = call.access === "public" ? undefined : yield* tokens.accessToken
        const callGate = gateOf(call)
        const { status, body, headers } = yield* Effect.acquireUseRelease(
          callGate.acquire(call.lane).pipe(
            Effect.catchTag("StoreBucketError", (error) => Effect.fail(budgetUnavailable(storeKey, call.operation)(error)))
          ),
          () =>
            client.execute(buildRequest(call, token)).pipe(
              Effect.flatMap((response) =>
                Effect.map(response.text, (body) => ({ status: response.status, body, headers: response.headers }))
              ),
              Effect.mapError((error) => unavailable(`${error.reason} error: ${error.description ?? causeText(error.cause)}`)),
              Effect.timeoutFail({ duration: timeout, onTimeout: () => unavailable(`no answer within ${Duration.format(timeout)}`) })
            ),
          (ticket) => ticket.done
        )
        yield* callGate.observe(readQuotaHeaders(headers))
        if (status === 401 && token !== undefined) {
          yield* tokens.invalidate(token)
          return { _tag: "Unauthorized" } as const
        }
        if (status === 401 || status === 403) {
          const said = errorMessage(status, body)
          if (status === 403 && call.refusalOn403 === true && !refusesCredentials(said)) {
            return { _tag: "Done", answer: { _tag: "Refused", status, message: said } } as const
          }
          yield* Effect.logWarning(`store ${storeKey}: Etsy refused ${call.operation}: ${said}`)
          return yield* new StoreAuthError({
            storeKey,
            operation: call.operation,
            status,
            detail:
              `Etsy said: ${said}; check the app's keystring and shared secret, and that the seller granted transactions_r and transactions_w`
          })
        }
        if (status === 429) {
          return {
            _tag: "Throttled",
            retryAfter: retryAfterMillis(headers["retry-after"]),
            said: `HTTP 429: ${errorMessage(status, body)}`
          } as const
        }
        if (status >= 500) return yield* unavailable(errorMessage(status, body), status)
        if (status < 200 || status >= 300) {
          return { _tag: "Done", answer: { _tag: "Refused", status, message: errorMessage(status, body) } } as const
        }
        const decoded = Schema.decodeUnknownEither(Schema.parseJson(call.schema))(body)
        if (Either.isLeft(decoded)) {
          return yield* new StoreResponseError({
            storeKey,
            operation: call.operation,
            ambiguous: call.write,
            status,
            body: keepBody(body),
            detail: decoded.left.message
          })
        }
        return { _tag: "Done", answer: { _tag: "Ok", value: decoded.right } } as const
      })

    const runOnce = <A, I>(
      call: EtsyCall<A, I>,
      throttled: number,
      reauthorized: boolean
    ): Effect.Effect<EtsyAnswer<A>, StoreError | QuotaRefusedError> =>
      Effect.flatMap(attempt(call), (result) => {
        if (result._tag === "Done") return Effect.succeed(result.answer)
        if (result._tag === "Unauthorized") {
          return reauthorized
            ? Effect.fail(new StoreAuthError({ storeKey, operation: call.operation, status: 401 }))
            : runOnce(call, throttled, true)
        }
        const wait = result.retryAfter ?? 1000 * 2 ** throttled
        if (throttled >= MAX_THROTTLED_RETRIES) {
          return Effect.zipRight(
            reportThrottle({ said: result.said, waitMs: 0 }),
            Effect.fail(
              new StoreUnavailableError({
                storeKey,
                operation: call.operation,
                ambiguous: false,
                status: 429,
                detail: `still rate limited after ${MAX_THROTTLED_RETRIES} retries`
              })
            )
          )
        }
        return reportThrottle({ said: result.said, waitMs: wait }).pipe(
          Effect.zipRight(gateOf(call).pause(wait)),
          Effect.zipRight(runOnce(call, throttled + 1, reauthorized))
        )
      })

    const run = <A, I>(call: EtsyCall<A, I>): Effect.Effect<EtsyAnswer<A>, StoreError> =>
      (call.write
        ? runOnce(call, 0, false)
        : runOnce(call, 0, false).pipe(
          Effect.retry({ schedule: readRetries, while: (error) => error._tag === "StoreUnavailableError" && error.status !== 429 })
        )).pipe(
          Effect.catchTag(
            "QuotaRefusedError",
            (refusal) =>
              Effect.fail(new StoreUnavailableError({ storeKey, operation: call.operation, ambiguous: false, detail: refusal.detail }))
          )
        )

    return { run, gate, appGate, tokens }
  })
