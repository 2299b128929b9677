/**
 * The request runner shared by the v3 and the legacy v2 clients: builds the
 * request once per call (base URL, auth headers, JSON), sends it through the
 * `PodRequestGate` with a per-request timeout, and turns whatever comes back
 * into a decoded value or a typed `PodError` with its ambiguity decided.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as UrlParams from "@effect/platform/UrlParams"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import { Clock, DateTime, Duration, Effect, Option, Redacted, Schema } from "effect"
import { EnvelopeHead } from "./schemas/Common.js"
import { connectionRefusal } from "../domain/ConnectionFailure.js"
import { causeText, describeParseError, errorFields, isAmbiguousFailure, keepBody, parseRetryAfter, transportReason } from "./PodAnswers.js"
import * as Errors from "./PodErrors.js"
import { PodRequestGate, type PodLane, type PodRequestInfo, type PodRequestOutcome } from "./PodRequestGate.js"

/** Per-call options of every client method. */
export interface PodCallOptions {
  /** Priority lane the request spends from; each operation has a default. */
  readonly lane?: PodLane
  /** The store the request is for, so the budget can share a lane fairly. */
  readonly storeKey?: string
  /** Overrides the client's timeout for this request. */
  readonly timeoutMs?: number
}

export interface PodHttpConfig {
  readonly baseUrl: string
  /** Header name → secret value, added to every request (empty for v2). */
  readonly authHeaders: ReadonlyArray<readonly [string, Redacted.Redacted<string>]>
  readonly timeoutMs: number
  /** Fail on response fields the schemas do not name (conformance tests). */
  readonly strictDecoding: boolean
}

/**
 * One operation: "read" operations are never ambiguous (nothing changes at
 * the service); "mutation" ones are after an answerless or 5xx failure.
 */
export interface PodOperation<A, I> {
  readonly operation: string
  readonly kind: "read" | "mutation"
  readonly method: HttpMethod
  readonly path: string
  readonly urlParams?: ReadonlyArray<readonly [string, string]>
  readonly body?: unknown
  readonly response: Schema.Schema<A, I>
  /** The response schema names only some of the answer's fields: the others are ignored even in strict decoding. */
  readonly partial?: boolean
  readonly defaultLane: PodLane
}

interface RawAnswer {
  readonly status: number
  readonly text: string
  readonly retryAfter: Option.Option<Duration.Duration>
}

type Ctx = { readonly operation: string; readonly method: string; readonly path: string }

/** A request that got no answer: why (for the gate), the cause (for the error), and, for a failed connection, words a seller can act on. */
interface NoAnswer {
  readonly reason: "connect" | "timeout" | "reset" | "other"
  readonly cause: string
  readonly detail?: string
}

/** The service's address as a failed connection names it: no path, no credentials. */
const originOf = (baseUrl: string) => URL.canParse(baseUrl) ? new URL(baseUrl).origin : baseUrl

const DEFAULT_TIMEOUT_MS = 30_000

export const makePodHttp = (config: PodHttpConfig) =>
  Effect.gen(function*() {
    const gate = yield* PodRequestGate
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(HttpClientRequest.prependUrl(config.baseUrl.replace(/\/+$/, "")))
    )
    const redactedNames = config.authHeaders.map(([name]) => name.toLowerCase())
    const parseOptions = config.strictDecoding
      ? ({ errors: "all", onExcessProperty: "error" } as const)
      : ({ errors: "all" } as const)

    const sendRaw = (request: HttpClientRequest.HttpClientRequest, ctx: Ctx, timeoutMs: number) =>
      client.execute(request).pipe(
        Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, headers: response.headers, text }))),
        Effect.flatMap(({ headers, status, text }) =>
          Effect.map(
            Clock.currentTimeMillis,
            (now): RawAnswer => ({
              status,
              text,
              retryAfter: status === 429 ? parseRetryAfter(headers["retry-after"], now) : Option.none()
            })
          )
        ),
        Effect.mapError((error): NoAnswer => {
          const refusal = connectionRefusal(error)
          return {
            reason: transportReason(error.cause),
            cause: causeText(error.cause ?? error),
            ...(refusal === undefined ? {} : { detail: `${refusal} at ${originOf(config.baseUrl)}` })
          }
        }),
        Effect.timeoutFail({
          duration: Duration.millis(timeoutMs),
          onTimeout: (): NoAnswer => ({ reason: "timeout", cause: `no answer within ${timeoutMs} ms` })
        }),
        Effect.locallyWith(Headers.currentRedactedNames, (names) => [...names, ...redactedNames]),
        Effect.annotateLogs(ctx)
      )

    const interpret = <A, I>(op: PodOperation<A, I>, ctx: Ctx, raw: RawAnswer): Effect.Effect<A, Errors.PodError> =>
      Effect.gen(function*() {
        const { status, text } = raw
        const answered = (unreadable: boolean) => isAmbiguousFailure(op.kind, { _tag: "Answered", status, unreadable })
        if (status >= 200 && status < 300) {
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch (cause) {
            return yield* new Errors.PodDecodeError({
              ...ctx,
              ambiguous: answered(true),
              httpStatus: status,
              rawBody: keepBody(text),
              issue: `body is not JSON: ${causeText(cause)}`
            })
          }
          const head = Schema.decodeUnknownOption(EnvelopeHead)(json)
          if (Option.isSome(head) && (head.value.status === "error" || head.value.status === false)) {
            return yield* new Errors.PodEnvelopeError({
              ...ctx,
              ambiguous: false,
              httpStatus: status,
              message: head.value.message ?? ""
            })
          }
          // Decoded as an Effect: the schemas' forward-compatible enums log unknown values through our logger.
          return yield* Schema.decodeUnknown(op.response, op.partial === true ? { errors: "all" } : parseOptions)(json).pipe(
            Effect.mapError((error) =>
              new Errors.PodDecodeError({
                ...ctx,
                ambiguous: answered(true),
                httpStatus: status,
                rawBody: keepBody(text),
                issue: describeParseError(error)
              })
            )
          )
        }
        const fields = errorFields(ctx, text)
        switch (status) {
          case 400:
            return yield* new Errors.PodBadRequestError({ ...fields, ambiguous: false })
          case 401:
            return yield* new Errors.PodUnauthorizedError({ ...fields, ambiguous: false })
          case 403:
            return yield* new Errors.PodForbiddenError({ ...fields, ambiguous: false })
          case 404:
            return yield* new Errors.PodNotFoundError({ ...fields, ambiguous: false })
          case 429: {
            const now = yield* DateTime.now
            const retryAfterSeconds = Option.map(raw.retryAfter, Duration.toSeconds)
            return yield* new Errors.PodRateLimitedError({
              ...ctx,
              ambiguous: false,
              message: fields.message,
              ...Option.match(raw.retryAfter, {
                onNone: () => ({}),
                onSome: (wait) => ({
                  retryAfterSeconds: Option.getOrThrow(retryAfterSeconds),
                  blockedUntil: DateTime.addDuration(now, wait)
                })
              })
            })
          }
          default:
            return status >= 500
              ? yield* new Errors.PodServerError({ ...fields, status, ambiguous: answered(false) })
              : yield* new Errors.PodUnexpectedStatusError({ ...fields, status, ambiguous: false })
        }
      })

    /** Runs one operation through the gate; the only way requests leave this client. */
    const run = <A, I>(op: PodOperation<A, I>, options?: PodCallOptions): Effect.Effect<A, Errors.PodError> =>
      Effect.gen(function*() {
        const params = UrlParams.fromInput(op.urlParams ?? [])
        const query = UrlParams.toString(params)
        const ctx: Ctx = { operation: op.operation, method: op.method, path: query === "" ? op.path : `${op.path}?${query}` }
        const info: PodRequestInfo = {
          operation: op.operation,
          method: op.method,
          path: op.path,
          lane: options?.lane ?? op.defaultLane,
          ...(options?.storeKey === undefined ? {} : { storeKey: options.storeKey })
        }
        let request = HttpClientRequest.make(op.method)(op.path, {
          urlParams: params,
          acceptJson: true,
          headers: Object.fromEntries(config.authHeaders.map(([name, value]) => [name, Redacted.value(value)]))
        })
        if (op.body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, op.body)
        const timeoutMs = options?.timeoutMs ?? config.timeoutMs
        const send = sendRaw(request, ctx, timeoutMs).pipe(
          Effect.timed,
          Effect.tap(([elapsed, raw]) =>
            Effect.logDebug("pod request answered").pipe(
              Effect.annotateLogs({ ...ctx, status: raw.status, ms: Duration.toMillis(elapsed) })
            )
          ),
          Effect.map(([, raw]) => raw),
          Effect.tap((raw) => {
            const outcome: PodRequestOutcome = Option.match(raw.retryAfter, {
              onNone: () => ({ _tag: "Answered", status: raw.status }),
              onSome: (retryAfter) => ({ _tag: "Answered", status: raw.status, retryAfter })
            })
            return gate.report(info, outcome)
          }),
          Effect.tapError((failure) =>
            gate.report(info, {
              _tag: "NoAnswer",
              reason: failure.reason,
              ...(failure.detail === undefined ? {} : { detail: failure.detail })
            })
          )
        )
        const raw = yield* gate.around(info, send).pipe(
          Effect.mapError(
            (failure) =>
              new Errors.PodTransportError({
                ...ctx,
                ambiguous: isAmbiguousFailure(op.kind, { _tag: "NoAnswer", reason: failure.reason }),
                reason: failure.reason,
                cause: failure.cause
              })
          )
        )
        return yield* interpret(op, ctx, raw)
      })

    /** Encodes a request body with its schema; a broken limit fails here, before anything is sent. */
    const encodeBody = <A, I>(
      schema: Schema.Schema<A, I>,
      input: A,
      ctx: { readonly operation: string; readonly method: string; readonly path: string }
    ): Effect.Effect<I, Errors.PodInvalidRequestError> =>
      Schema.encode(schema, { errors: "all" })(input).pipe(
        Effect.mapError(
          (error) =>
            new Errors.PodInvalidRequestError({
              ...ctx,
              ambiguous: false,
              issue: describeParseError(error)
            })
        )
      )

    return { run, encodeBody } as const
  })

export const defaultTimeoutMs = DEFAULT_TIMEOUT_MS
export type PodHttp = Effect.Effect.Success<ReturnType<typeof makePodHttp>>
