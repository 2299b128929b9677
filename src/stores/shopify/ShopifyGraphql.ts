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
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Either, Redacted, Schedule, Schema } from "effect"
import { keepBody, StoreApiError, StoreAuthError, StoreResponseError, unavailableFor } from "../StoreErrors.js"
import type { StoreError } from "../StoreErrors.js"
import { type BucketGate, budgetUnavailable, makeBucketGate, recordInBucket } from "../BucketGate.js"
import { inMemoryStoreBuckets } from "../InMemoryStoreBucket.js"
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
}

export interface ShopifyGraphql {
  readonly run: <A, I>(operation: GraphqlOperation<A, I>) => Effect.Effect<A, StoreError>
  readonly gate: BucketGate
}

const MAX_THROTTLED_RETRIES = 20
const readRetries = Schedule.exponential("500 millis").pipe(Schedule.intersect(Schedule.recurs(4)))

const ThrottleStatusSchema = Schema.Struct({
  maximumAvailable: Schema.Number,
  currentlyAvailable: Schema.Number,
  restoreRate: Schema.Number
})

const Envelope = Schema.Struct({
  data: Schema.optional(Schema.Unknown),
  errors: Schema.optional(
    Schema.Array(
      Schema.Struct({
        message: Schema.String,
        extensions: Schema.optional(Schema.Struct({ code: Schema.optional(Schema.String) }))
      })
    )
  ),
  extensions: Schema.optional(
    Schema.Struct({
      cost: Schema.optional(
        Schema.Struct({
          requestedQueryCost: Schema.optional(Schema.NullOr(Schema.Number)),
          actualQueryCost: Schema.optional(Schema.NullOr(Schema.Number)),
          throttleStatus: ThrottleStatusSchema
        })
      )
    })
  )
})
const decodeEnvelope = Schema.decodeUnknownEither(Schema.parseJson(Envelope))

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
  | { readonly _tag: "Done"; readonly value: A }
  | {
    readonly _tag: "Throttled"
    readonly waitMillis: number
    readonly said: string
    /** A 429 says nothing of the bucket: every caller of the credential waits instead. */
    readonly pauseAll: boolean
  }

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

    const attempt = <A, I>(op: GraphqlOperation<A, I>): Effect.Effect<Attempt<A>, StoreError> =>
      Effect.gen(function*() {
        const unavailable = unavailableFor(storeKey, op.name, op.mutation)
        const taking = learnedCost.get(costKey(op)) ?? op.estimatedCost
        const ticket = yield* gate.acquire(taking).pipe(
          Effect.mapError(budgetUnavailable(storeKey, op.name))
        )
        const request = HttpClientRequest.post(url).pipe(
          HttpClientRequest.setHeader("X-Shopify-Access-Token", Redacted.value(config.accessToken)),
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
        if (status === 401 || status === 403) {
          return yield* new StoreAuthError({ storeKey, operation: op.name, status })
        }
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
        const throttled = errors?.some((e) => e.extensions?.code === "THROTTLED") === true
        if (cost !== undefined) {
          // A refused query is charged nothing; an answered one its actual cost (the requested one until it is known).
          const charged = throttled ? 0 : cost.actualQueryCost ?? cost.requestedQueryCost ?? taking
          yield* recordInBucket(storeKey, gate.bucket.observe(readingOf(cost.throttleStatus), { ticket, credit: taking - charged }))
          if (typeof cost.requestedQueryCost === "number") learnedCost.set(costKey(op), cost.requestedQueryCost)
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
        if (status >= 500 || errors?.some((e) => e.extensions?.code === "INTERNAL_SERVER_ERROR")) {
          return yield* unavailable(errors?.map((e) => e.message).join("; ") ?? "server error", status)
        }
        if (errors !== undefined && errors.length > 0) {
          return yield* new StoreApiError({ storeKey, operation: op.name, messages: errors.map((e) => e.message) })
        }
        if (status < 200 || status >= 300) {
          return yield* new StoreApiError({ storeKey, operation: op.name, messages: [`HTTP ${status}: ${keepBody(body)}`] })
        }
        const decoded = Schema.decodeUnknownEither(op.data)(data)
        if (Either.isLeft(decoded)) {
          return yield* unreadable(decoded.left.message)
        }
        return { _tag: "Done", value: decoded.right } as const
      })

    const runOnce = <A, I>(op: GraphqlOperation<A, I>, throttledSoFar: number): Effect.Effect<A, StoreError> =>
      Effect.flatMap(attempt(op), (result) => {
        if (result._tag === "Done") return Effect.succeed(result.value)
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
          Effect.zipRight(runOnce(op, throttledSoFar + 1))
        )
      })

    const run = <A, I>(op: GraphqlOperation<A, I>): Effect.Effect<A, StoreError> =>
      op.mutation
        ? runOnce(op, 0)
        : runOnce(op, 0).pipe(
          Effect.retry({
            schedule: readRetries,
            while: (error) => error._tag === "StoreUnavailableError"
          })
        )

    return { run, gate }
  })
