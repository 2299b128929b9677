import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, Exit, Option } from "effect"
import { MetricsRegistry, sumBy } from "./MetricsRegistry.js"

export interface StoreApiCall {
  readonly storeKey: string
  readonly platform: string
  /** A bounded name: `GET /wp-json/wc/v3/orders/:id`, `graphql PodsyncOrdersPage`. */
  readonly operation: string
  /** The HTTP status, or `no_answer` / `interrupted`. */
  readonly status: string
}

/** Store API calls by store, platform, operation and status; 429s counted apart too, and every refusal for a rate limit. */
export class StoreApiMetrics extends Effect.Service<StoreApiMetrics>()("podsync/StoreApiMetrics", {
  effect: Effect.gen(function*() {
    const metrics = yield* MetricsRegistry
    const calls = metrics.counter(
      "podsync_store_api_calls_total",
      "Store API requests, by store, platform, operation and status (HTTP status, no_answer, interrupted)",
      ["store", "platform", "operation", "status"]
    )
    const rateLimited = metrics.counter("podsync_store_rate_limited_total", "Store API requests answered 429, by store and platform", [
      "store",
      "platform"
    ])
    const throttled = metrics.counter(
      "podsync_store_throttled_total",
      "Store API requests refused for the store's rate limit (Shopify THROTTLED, 429, WooCommerce 503), by store and platform",
      ["store", "platform"]
    )
    return {
      /** One refusal for the store's rate limit (see StoreThrottling.ts). */
      throttled: (storeKey: string, platform: string) => Effect.sync(() => throttled.inc({ store: storeKey, platform })),
      record: (call: StoreApiCall) =>
        Effect.sync(() => {
          calls.inc({ store: call.storeKey, platform: call.platform, operation: call.operation, status: call.status })
          if (call.status === "429") rateLimited.inc({ store: call.storeKey, platform: call.platform })
        }),
      /** Calls so far by store and status (all operations), for /status. */
      counts: Effect.promise(() => calls.get()).pipe(
        Effect.map((metric) => sumBy(metric.values, ["store", "status"]).map(([storeKey, status, count]) => ({ storeKey, status, count })))
      )
    }
  })
}) {}

// A path segment that names one record rather than a kind of record: ids, numbers, tokens.
const isIdSegment = (segment: string) =>
  /\d/.test(segment) &&
  !/^v\d+(\.\d+)?$/.test(segment) && // API versions: v3, v1.2
  !/^\d{4}-\d{2}$/.test(segment) && // Shopify's dated API versions: 2026-10
  !/^[a-z_]+\.json$/.test(segment)

/** `/wp-json/wc/v3/orders/123/notes` → `/wp-json/wc/v3/orders/:id/notes`; the query is dropped. */
export const pathTemplate = (url: string): string => {
  const pathname = URL.canParse(url) ? new URL(url).pathname : url.split("?")[0] ?? ""
  return pathname.split("/").map((s) => (isIdSegment(s) ? ":id" : s)).join("/")
}

const graphqlOperation = (request: HttpClientRequest.HttpClientRequest): string | undefined => {
  if (request.body._tag !== "Uint8Array") return undefined
  // The operation's name comes first in our documents: look at the head of the body before parsing it all.
  const head = /\b(?:query|mutation)\s+([A-Za-z_]\w*)/.exec(
    new TextDecoder().decode(request.body.body.subarray(0, 256)).replace(/\\[nrt]/g, " ")
  )?.[1]
  if (head !== undefined) return `graphql ${head}`
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(request.body.body))
    const query = typeof parsed === "object" && parsed !== null && "query" in parsed ? parsed.query : undefined
    const name = typeof query === "string" ? /\b(?:query|mutation)\s+([A-Za-z_]\w*)/.exec(query)?.[1] : undefined
    return name === undefined ? undefined : `graphql ${name}`
  } catch {
    return undefined
  }
}

/** The operation label of a request: the GraphQL operation's name, else method and path template. */
export const operationOf = (request: HttpClientRequest.HttpClientRequest): string => {
  const path = pathTemplate(request.url)
  return (/\/graphql(\.json)?$/.test(path) ? graphqlOperation(request) : undefined) ?? `${request.method} ${path}`
}

/**
 * The surrounding HttpClient with every request it sends counted for one store. Give it to a
 * connector in place of the plain client:
 * `Effect.provideServiceEffect(connectorFor(store), HttpClient.HttpClient, countStoreApiCalls(store.key, store.platform))`.
 * Without `StoreApiMetrics` in the context the client is returned unchanged.
 */
export const countStoreApiCalls = (storeKey: string, platform: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const metrics = yield* Effect.serviceOption(StoreApiMetrics)
    if (Option.isNone(metrics)) return client
    const { record } = metrics.value
    return HttpClient.transform(client, (response, request) =>
      response.pipe(
        Effect.onExit((exit) =>
          record({
            storeKey,
            platform,
            operation: operationOf(request),
            status: Exit.isSuccess(exit) ? String(exit.value.status) : Exit.isInterrupted(exit) ? "interrupted" : "no_answer"
          })
        )
      ))
  })
