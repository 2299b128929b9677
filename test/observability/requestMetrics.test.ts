// POD requests counted around the rate budget's gate, and store API calls counted around a
// connector's HTTP client: real HTTP against the POD and Shopify simulators.
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Layer, Redacted, Stream, TestClock } from "effect"
import { RateBudget, RateBudgetInMemory } from "../../src/budget/RateBudget.js"
import { RateBudgetGateLive } from "../../src/app/RateBudgetGate.js"
import { MetricsRegistry } from "../../src/observability/MetricsRegistry.js"
import { PodRequestMetrics, withPodRequestMetrics } from "../../src/observability/PodRequestMetrics.js"
import { countStoreApiCalls, operationOf, pathTemplate, StoreApiMetrics } from "../../src/observability/StoreApiMetrics.js"
import { DEFAULT_AUTH_HEADERS, PodClient } from "../../src/pod/PodClient.js"
import { startPodSimulator } from "../../src/simulator/pod/index.js"
import { makeShopifyConnector } from "../../src/stores/shopify/ShopifyConnector.js"
import { simAdmin } from "../budget/simAdmin.js"
import { admin, connectorConfig, startSimulator } from "../stores/shopify/harness.js"
import { expectSamples, sample } from "../support/prometheus.js"

const scrape = Effect.flatMap(MetricsRegistry, (m) => m.scrape)

const podClient = (url: string, secret: string) =>
  PodClient.Default({
    baseUrl: url,
    clientKey: Redacted.make("sim-client-key"),
    clientSecret: Redacted.make(secret),
    authHeaders: DEFAULT_AUTH_HEADERS,
    timeoutMs: 60_000
  }).pipe(Layer.provide(withPodRequestMetrics(RateBudgetGateLive)), Layer.provide(NodeHttpClient.layer))

// Two requests per 10 s window, nothing sent before the test: the third request must wait.
const budgetLive = RateBudgetInMemory({
  credential: "sim",
  rateLimit: { requests: 2, windowSeconds: 10, blockSeconds: 60, headroom: 0 },
  startFull: false,
  pauseJitterMs: 0
})
const metricsLive = Layer.provideMerge(Layer.merge(PodRequestMetrics.Default, StoreApiMetrics.Default), MetricsRegistry.Default)

/** Real time passes (the simulator answers over real HTTP) until `done` holds. */
const until = <R>(done: Effect.Effect<boolean, never, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500; i++) {
      if (yield* done) return
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
    }
    throw new Error("timed out")
  })

describe("POD request metrics", () => {
  it.scoped(
    "counts every POD request by operation, lane, store and status, 429s apart, and how long each waited for the budget",
    () =>
      Effect.gen(function*() {
        const sim = yield* Effect.acquireRelease(
          Effect.promise(() => startPodSimulator({ rateLimit: false })),
          (s) => Effect.promise(() => s.close())
        )
        yield* Effect.gen(function*() {
          const client = yield* PodClient
          const wrongSecret = yield* PodClient.pipe(Effect.provide(podClient(sim.url, "not-the-secret")))
          const answered = Effect.map(
            scrape,
            (text) => sample(text, 'podsync_pod_request_duration_seconds_count{operation="catalog.list"}') ?? 0
          )

          // t = 0: two requests take the window's two slots; a third waits until they stop counting.
          const first = yield* client.listCatalog({ paging: { limit: 1 } }, { lane: "background", storeKey: "acme" })
          expect(first.data.length).toBe(1)
          const refused = yield* wrongSecret.listCatalog({ paging: { limit: 1 } }, { lane: "urgent" }).pipe(Effect.either)
          expect(Either.isLeft(refused) && refused.left._tag).toBe("PodUnauthorizedError")
          const third = yield* Effect.fork(client.listCatalog({ paging: { limit: 1 } }, { lane: "background", storeKey: "acme" }))
          yield* until(Effect.map((yield* RateBudget).snapshot, (s) => s.waiting.background === 1))
          yield* TestClock.adjust("11 seconds")
          yield* Fiber.join(third)
          yield* until(Effect.map(answered, (n) => n === 3))

          // A 429 from the service: counted, and the budget pauses the credential.
          yield* Effect.promise(() => simAdmin(sim.url, "POST", "/faults", { kind: "rateLimit429", count: 1, retryAfterSeconds: 1 }))
          const limited = yield* client.listCatalog({ paging: { limit: 1 } }, { lane: "normal", storeKey: "woo" }).pipe(Effect.either)
          expect(Either.isLeft(limited) && limited.left._tag).toBe("PodRateLimitedError")

          const text = yield* scrape
          expectSamples(text, {
            'podsync_pod_requests_total{operation="catalog.list",lane="background",store="acme",status="200"}': 2,
            'podsync_pod_requests_total{operation="catalog.list",lane="urgent",store="none",status="401"}': 1,
            'podsync_pod_requests_total{operation="catalog.list",lane="normal",store="woo",status="429"}': 1,
            'podsync_pod_rate_limited_total{operation="catalog.list",lane="normal"}': 1,
            'podsync_pod_request_duration_seconds_count{operation="catalog.list"}': 4
          })
          // Waiting per lane: the third background request waited for the window (10 s after the answers).
          expectSamples(text, {
            'podsync_pod_budget_wait_seconds_count{lane="background"}': 2,
            'podsync_pod_budget_wait_seconds_bucket{le="5",lane="background"}': 1
          })
          const waited = sample(text, 'podsync_pod_budget_wait_seconds_sum{lane="background"}')!
          expect(waited).toBeGreaterThanOrEqual(10)
          expect(waited).toBeLessThanOrEqual(11)
          expectSamples(text, { 'podsync_pod_budget_wait_seconds_sum{lane="urgent"}': 0 })
          expect(yield* (yield* PodRequestMetrics).counts).toEqual([
            { operation: "catalog.list", status: "200", count: 2 },
            { operation: "catalog.list", status: "401", count: 1 },
            { operation: "catalog.list", status: "429", count: 1 }
          ])
        }).pipe(
          Effect.provide(podClient(sim.url, "sim-client-secret")),
          Effect.provide(Layer.merge(budgetLive, metricsLive))
        )
      }),
    { timeout: 30_000 }
  )

  it.scoped("leaves the gate as it was when no metrics are provided (one-off commands)", () =>
    Effect.gen(function*() {
      const sim = yield* Effect.acquireRelease(Effect.promise(() => startPodSimulator({ rateLimit: false })), (s) =>
        Effect.promise(() => s.close()))
      const page = yield* Effect.flatMap(PodClient, (c) =>
        c.listCatalog({ paging: { limit: 1 } })).pipe(
          Effect.provide(podClient(sim.url, "sim-client-secret")),
          Effect.provide(budgetLive)
        )
      expect(page.data.length).toBe(1)
    }), { timeout: 30_000 })
})

describe("store API call metrics", () => {
  it("names operations without ids, query strings or secrets", () => {
    expect(pathTemplate("http://127.0.0.1:9/wp-json/wc/v3/orders/1234/notes?consumer_key=ck_x&consumer_secret=cs_y"))
      .toBe("/wp-json/wc/v3/orders/:id/notes")
    expect(pathTemplate("https://api.etsy.com/v3/application/shops/55501/receipts/9001/tracking")).toBe(
      "/v3/application/shops/:id/receipts/:id/tracking"
    )
    expect(pathTemplate("http://shop.example/admin/api/2026-10/graphql.json")).toBe("/admin/api/2026-10/graphql.json")
    const graphql = HttpClientRequest.post("http://shop.example/admin/api/2026-10/graphql.json").pipe(
      HttpClientRequest.bodyUnsafeJson({
        query: "query PodsyncOrdersPage($first: Int!) { orders(first: $first) { nodes { id } } }",
        variables: { first: 5 }
      })
    )
    expect(operationOf(graphql)).toBe("graphql PodsyncOrdersPage")
    // A document that starts on a new line (JSON-escaped in the body), and one whose name comes after long variables.
    const newline = HttpClientRequest.post("http://shop.example/admin/api/2026-10/graphql.json").pipe(
      HttpClientRequest.bodyUnsafeJson({
        query: "\nmutation PodsyncAnnotate($id: ID!) { tagsAdd(id: $id, tags: []) { node { id } } }",
        variables: { id: "gid://shopify/Order/1" }
      })
    )
    expect(operationOf(newline)).toBe("graphql PodsyncAnnotate")
    const late = HttpClientRequest.post("http://shop.example/admin/api/2026-10/graphql.json").pipe(
      HttpClientRequest.bodyUnsafeJson({ variables: { note: "x".repeat(400) }, query: "query PodsyncOrder { order(id: 1) { id } }" })
    )
    expect(operationOf(late)).toBe("graphql PodsyncOrder")
    expect(operationOf(HttpClientRequest.get("http://x.example/orders/ORD-1001/fulfillments"))).toBe("GET /orders/:id/fulfillments")
  })

  it.scopedLive("counts a connector's calls by store, operation and status, refused ones too", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      yield* admin(sim, "POST", "orders", {
        financialStatus: "PAID",
        lineItems: [{ sku: "TEE-1", title: "Tee", quantity: 1, price: "20.00" }]
      })
      const http = yield* Layer.build(NodeHttpClient.layerUndici)
      const connect = (token: string) =>
        makeShopifyConnector(connectorConfig(sim, { accessToken: Redacted.make(token) })).pipe(
          Effect.provideServiceEffect(HttpClient.HttpClient, countStoreApiCalls("acme-shopify", "shopify")),
          Effect.provide(http)
        )
      const good = yield* connect(sim.accessToken)
      const pages = yield* Stream.runCollect(good.pull(null, { since: "2020-01-01T00:00:00Z" }))
      expect([...pages].flatMap((p) => p.orders).length).toBe(1)
      const bad = yield* connect("shpat_wrong")
      expect(Either.isLeft(yield* Stream.runCollect(bad.pull(null)).pipe(Effect.either))).toBe(true)

      const text = yield* scrape
      expect(
        sample(
          text,
          'podsync_store_api_calls_total{store="acme-shopify",platform="shopify",operation="graphql PodsyncOrdersPage",status="200"}'
        )
      )
        .toBeGreaterThanOrEqual(1)
      expect(
        sample(
          text,
          'podsync_store_api_calls_total{store="acme-shopify",platform="shopify",operation="graphql PodsyncOrdersPage",status="401"}'
        )
      )
        .toBeGreaterThanOrEqual(1)
      const counts = yield* (yield* StoreApiMetrics).counts
      expect(counts.map((c) => c.status)).toEqual(["200", "401"])
      expect(text).not.toContain(sim.accessToken)
    }).pipe(Effect.provide(metricsLive)), { timeout: 30_000 })
})
