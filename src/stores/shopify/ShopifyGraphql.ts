/**
 * The one way this connector talks to Shopify: POST a GraphQL document to the
 * pinned Admin API version, paced inside the cost bucket, and turn every
 * answer into data or a typed `StoreError`.
 *
 * - Every answer's `extensions.cost.throttleStatus` feeds the cost bucket
 *   (shared by the replicas when the config gives shared buckets).
 * - THROTTLED (whatever the HTTP status) waits exactly
 *   (requestedQueryCost − currentlyAvailable) / restoreRate, then retries:
 *   a throttled query did not run, so this is safe for writes too. Each
 *   one is reported to `onThrottled`.
 * - Reads are retried on transport failures, timeouts and 5xx. Writes are
 *   never retried here: such a failure is `ambiguous`, and the caller reads
 *   back before writing again.
 * - The token is the app's current one (ShopifyAppToken.ts): a 401 with a client-credentials
 *   app's token renews it and sends the request once more (a 401 did not run the request).
 * - A frozen (402) or locked (423) shop is unavailable, with Shopify's reason:
 *   an outage of the store, not an unreadable answer.
 * - An operation marked `partial` keeps the allowed data of an answer whose
 *   only errors are `ACCESS_DENIED` (`runPartial` answers the denied fields
 *   beside it); any other error entry fails the whole answer, as before.
 *   `MAX_COST_EXCEEDED` is a `StoreApiError` with that code (nothing ran,
 *   nothing was charged), for the caller to ask for less.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Either, Redacted, Schedule, Schema } from "effect"
import { keepBody, StoreApiError, StoreAuthError, StoreResponseError, unavailableFor } from "../StoreErrors.js"
import type { StoreError } from "../StoreErrors.js"
import { type BucketGate, budgetUnavailable, makeBucketGate, recordInBucket } from "../BucketGate.js"
import { inMemoryStoreBuckets } from "../InMemoryStoreBucket.js"
import { codeOf, decodeEnvelope, type DeniedField, type GraphqlError, hasCode, partialAnswer, unavailableShop } from "./ShopifyAnswers.js"
import { makeShopifyAppToken } from "./ShopifyAppToken.js"
import { DEFAULT_REQUEST_TIMEOUT, graphqlUrl, type ShopifyConnectorConfig } from "./ShopifyConfig.js"
import { millisAfterThrottled, readingOf, shopifyCredential, throttledSaid } from "./ShopifyThrottle.js"

export interface GraphqlOperation<A, I> {
  /** Name used in errors and logs (the root field, e.g. `fulfillmentCreate`). */
  readonly name: string
  readonly document: string
  readonly variables: Readonly<Record<string, unknown>>
  /** Schema of `data`. */
  readonly data: Schema.Schema<A, I>
  /** A write: failures are ambiguous and are not retried. */
  readonly mutation: boolean
  /** Expected requested cost before Shopify has told us (the gate learns the real one per name). */
  readonly estimatedCost: number
  /** Fields Shopify withholds (`ACCESS_DENIED`) are null in `data` and answered beside it, not a failure. */
  readonly partial?: boolean
}

/** An answer with the fields Shopify withheld from it (none unless the operation is `partial`). */
export interface Answered<A> {
  readonly data: A
  readonly denied: ReadonlyArray<DeniedField>
}

export interface ShopifyGraphql {
  readonly run: <A, I>(operation: GraphqlOperation<A, I>) => Effect.Effect<A, StoreError>
  readonly runPartial: <A, I>(operation: GraphqlOperation<A, I>) => Effect.Effect<Answered<A>, StoreError>
  readonly gate: BucketGate
}

const MAX_THROTTLED_RETRIES = 20
const readRetries = Schedule.exponential("500 millis").pipe(Schedule.intersect(Schedule.recurs(4)))

/** The fields an answer's errors withhold, when the operation keeps a partial answer and they are all denials. */
const withheldBy = (
  partial: boolean,
  data: unknown,
  errors: ReadonlyArray<GraphqlError> | undefined
): ReadonlyArray<DeniedField> | undefined => {
  if (errors === undefined || errors.length === 0) return []
  return partial ? partialAnswer(data, errors) : undefined
}

/** The transport's own words (e.g. "ECONNRESET"), never the request (which carries the token). */
const causeText = (cause: unknown): string => {
  if (!(cause instanceof Error)) return "no detail"
  const code = (cause as { code?: unknown }).code
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : ""
  return `${typeof code === "string" ? `${code} ` : ""}${cause.message}${inner}`
}

/** `Retry-After` in seconds (Shopify's REST style); one second when absent or unreadable. */
const retryAfterMillis = (header: string | undefined): number => {
  const seconds = header === undefined ? Number.NaN : Number(header)
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : 1000
}

/** What one attempt produced, before retry decisions. */
type Attempt<A> =
  | { readonly _tag: "Done"; readonly value: Answered<A> }
  | {
    readonly _tag: "Throttled"
    readonly waitMillis: number
    readonly said: string
    /** A 429 says nothing of the bucket: every caller of the credential waits instead. */
    readonly pauseAll: boolean
  }
  /** Shopify refused the app's token (401) and a new one has been asked for: send again. */
  | { readonly _tag: "TokenRenewed" }

/**
 * The bucket assumed until Shopify's first answer tells the real one: the smallest published
 * (1,000 points, 50 a second), so replicas that start together on a new database do not spend
 * a bucket they know nothing of.
 */
const FIRST_SHAPE = { capacity: 1000, restorePerSecond: 50 }

/**
 * What the cost Shopify asked for is remembered under: the operation and its estimate, since a
 * batched operation's cost grows with its batch (a batch of 10 is not charged a batch of 2's cost).
 */
const costKey = (op: { readonly name: string; readonly estimatedCost: number }) => `${op.name}:${op.estimatedCost}`

export const makeShopifyGraphql = (
  config: ShopifyConnectorConfig
): Effect.Effect<ShopifyGraphql, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const gate = yield* makeBucketGate((config.buckets ?? inMemoryStoreBuckets).open(shopifyCredential(config), FIRST_SHAPE))
    const url = graphqlUrl(config)
    const timeout = Duration.decode(config.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
    const learnedCost = new Map<string, number>()
    const storeKey = config.storeKey
    const reportThrottle = config.onThrottled ?? (() => Effect.void)
    const appToken = yield* makeShopifyAppToken(config)

    const attempt = <A, I>(op: GraphqlOperation<A, I>, mayRenew: boolean): Effect.Effect<Attempt<A>, StoreError> =>
      Effect.gen(function*() {
        const unavailable = unavailableFor(storeKey, op.name, op.mutation)
        const taking = learnedCost.get(costKey(op)) ?? op.estimatedCost
        const ticket = yield* gate.acquire(taking).pipe(
          Effect.mapError(budgetUnavailable(storeKey, op.name))
        )
        const token = yield* appToken.current
        const request = HttpClientRequest.post(url).pipe(
          HttpClientRequest.setHeader("X-Shopify-Access-Token", Redacted.value(token)),
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyUnsafeJson({ query: op.document, variables: op.variables })
        )
        const { status, body, retryAfter } = yield* client.execute(request).pipe(
          Effect.flatMap((response) =>
            Effect.map(response.text, (body) => ({
              status: response.status,
              body,
              retryAfter: retryAfterMillis(response.headers["retry-after"])
            }))
          ),
          Effect.mapError((error) => unavailable(`${error.reason} error: ${error.description ?? causeText(error.cause)}`)),
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () => unavailable(`no answer within ${Duration.format(timeout)}`)
          })
        )
        if (status === 401 && mayRenew && (yield* appToken.refused(token))) return { _tag: "TokenRenewed" } as const
        if (status === 401 || status === 403) {
          return yield* new StoreAuthError({ storeKey, operation: op.name, status })
        }
        const shopDown = unavailableShop(status, body)
        if (shopDown !== undefined) return yield* unavailable(shopDown, status)
        const unreadable = (detail: string) =>
          new StoreResponseError({ storeKey, operation: op.name, ambiguous: op.mutation, status, body: keepBody(body), detail })
        /** A 429 said so over HTTP, not in a GraphQL answer: every request waits its Retry-After. */
        const http429 = {
          _tag: "Throttled",
          waitMillis: retryAfter,
          said: `HTTP 429, Retry-After ${retryAfter} ms`,
          pauseAll: true
        } as const
        const envelope = decodeEnvelope(body)
        if (Either.isLeft(envelope)) {
          if (status >= 500) return yield* unavailable("server error", status)
          if (status === 429) return http429
          return yield* unreadable("the answer is not a GraphQL response")
        }
        const { data, errors, extensions } = envelope.right
        const cost = extensions?.cost
        const throttled = hasCode(errors, "THROTTLED")
        // Refused before it ran: charged nothing, and its cost is not this operation's (the caller asks for less).
        const tooCostly = hasCode(errors, "MAX_COST_EXCEEDED")
        if (cost !== undefined) {
          // A refused query is charged nothing; an answered one its actual cost (the requested one until it is known).
          const charged = throttled || tooCostly ? 0 : cost.actualQueryCost ?? cost.requestedQueryCost ?? taking
          yield* recordInBucket(storeKey, gate.bucket.observe(readingOf(cost.throttleStatus), { ticket, credit: taking - charged }))
          if (typeof cost.requestedQueryCost === "number" && !tooCostly) learnedCost.set(costKey(op), cost.requestedQueryCost)
        }
        if (throttled) {
          const requested = cost?.requestedQueryCost ?? learnedCost.get(costKey(op)) ?? op.estimatedCost
          return {
            _tag: "Throttled",
            waitMillis: cost === undefined ? 1000 : millisAfterThrottled(requested, cost.throttleStatus),
            said: throttledSaid(requested, cost?.throttleStatus),
            pauseAll: false
          } as const
        }
        if (status === 429) return http429
        // Shopify answers its own failures with 200 and this code: whether a write ran is unknown.
        if (status >= 500 || hasCode(errors, "INTERNAL_SERVER_ERROR")) {
          return yield* unavailable(errors?.map((e) => e.message).join("; ") ?? "server error", status)
        }
        const denied = withheldBy(op.partial === true, data, errors)
        if (denied === undefined) {
          const all = errors ?? []
          const codes = all.flatMap((e) => codeOf(e) ?? [])
          return yield* new StoreApiError({
            storeKey,
            operation: op.name,
            messages: all.map((e) => e.message),
            ...(codes.length > 0 ? { codes } : {})
          })
        }
        if (status < 200 || status >= 300) {
          return yield* new StoreApiError({ storeKey, operation: op.name, messages: [`HTTP ${status}: ${keepBody(body)}`] })
        }
        const decoded = Schema.decodeUnknownEither(op.data)(data)
        if (Either.isLeft(decoded)) {
          return yield* unreadable(decoded.left.message)
        }
        return { _tag: "Done", value: { data: decoded.right, denied } } as const
      })

    const runOnce = <A, I>(
      op: GraphqlOperation<A, I>,
      throttledSoFar: number,
      mayRenew = true
    ): Effect.Effect<Answered<A>, StoreError> =>
      Effect.flatMap(attempt(op, mayRenew), (result) => {
        if (result._tag === "Done") return Effect.succeed(result.value)
        // Once per request: a token refused twice in a row is a revoked app, for the caller to report.
        if (result._tag === "TokenRenewed") return runOnce(op, throttledSoFar, false)
        if (throttledSoFar >= MAX_THROTTLED_RETRIES) {
          return Effect.zipRight(
            reportThrottle({ said: result.said, waitMs: 0 }),
            Effect.fail(unavailableFor(storeKey, op.name, false)(`still throttled after ${MAX_THROTTLED_RETRIES} waits`))
          )
        }
        // The bucket also knows the answer now; sleeping here keeps the wait exactly what the answer said.
        return reportThrottle({ said: result.said, waitMs: result.waitMillis }).pipe(
          Effect.zipRight(result.pauseAll ? recordInBucket(storeKey, gate.bucket.pause(result.waitMillis)) : Effect.void),
          Effect.zipRight(Effect.sleep(result.waitMillis)),
          Effect.zipRight(runOnce(op, throttledSoFar + 1, mayRenew))
        )
      })

    const runPartial = <A, I>(op: GraphqlOperation<A, I>): Effect.Effect<Answered<A>, StoreError> =>
      op.mutation
        ? runOnce(op, 0)
        : runOnce(op, 0).pipe(
          Effect.retry({
            schedule: readRetries,
            // A frozen or locked shop stays so until its owner acts: the pipeline's backoff and probe wait for it, not this call.
            while: (error) => error._tag === "StoreUnavailableError" && error.status !== 402 && error.status !== 423
          })
        )

    const run = <A, I>(op: GraphqlOperation<A, I>): Effect.Effect<A, StoreError> => Effect.map(runPartial(op), (answer) => answer.data)

    return { run, runPartial, gate }
  })
