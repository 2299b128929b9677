/**
 * Test harness: the Shopify simulator on 127.0.0.1:0, its admin API, and a
 * connector pointed at it over real HTTP.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Redacted, type Scope } from "effect"
import {
  type RunningShopifySimulator,
  type ShopifySimulatorOptions,
  startShopifySimulator
} from "../../../src/simulator/shopify/index.js"
import type { ShopifyConnectorConfig } from "../../../src/stores/shopify/ShopifyConfig.js"
import { makeShopifyConnector } from "../../../src/stores/shopify/ShopifyConnector.js"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"

/** A bucket large enough that tests not about throttling never wait. */
export const roomyBucket = { maximumAvailable: 1_000_000, restoreRate: 1_000_000 } as const

export const startSimulator = (
  options: ShopifySimulatorOptions = {}
): Effect.Effect<RunningShopifySimulator, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startShopifySimulator({ bucket: roomyBucket, ...options })),
    (sim) => Effect.promise(() => sim.close())
  )

export const admin = <A = any>(
  sim: RunningShopifySimulator,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown
): Effect.Effect<A> =>
  Effect.promise(async () => {
    const response = await fetch(`${sim.url}/__sim/${path}`, {
      method,
      headers: { "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const json = (await response.json()) as A
    if (!response.ok) throw new Error(`simulator admin ${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  })

export const connectorConfig = (
  sim: RunningShopifySimulator,
  overrides: Partial<ShopifyConnectorConfig> = {}
): ShopifyConnectorConfig => ({
  storeKey: "acme-shopify",
  shop: sim.shop,
  accessToken: Redacted.make(sim.accessToken),
  webhookSecret: Redacted.make(sim.webhookSecret),
  apiVersion: sim.apiVersion,
  baseUrl: sim.url,
  notifyCustomer: true,
  ...overrides
})

/** A connector whose HTTP client lives as long as the test's scope. */
export const connectTo = (
  sim: RunningShopifySimulator,
  overrides: Partial<ShopifyConnectorConfig> = {}
): Effect.Effect<StoreConnector, never, Scope.Scope> =>
  Effect.flatMap(Layer.build(NodeHttpClient.layerUndici), (http) =>
    makeShopifyConnector(connectorConfig(sim, overrides)).pipe(Effect.provide(http))
  )

export interface SimStats {
  readonly requests: number
  readonly throttled: number
  readonly requestsWhileShort: number
  readonly fulfillmentsByOrder: Record<string, number>
  readonly notificationsByOrder: Record<string, number>
  readonly tagsByOrder: Record<string, ReadonlyArray<string>>
  readonly mutations: Record<string, number>
}

export const stats = (sim: RunningShopifySimulator) => admin<SimStats>(sim, "GET", "stats")

/** Waits (real time) until `check` holds; for effects that happen over real HTTP. */
export const eventually = <A>(probe: Effect.Effect<A>, check: (a: A) => boolean, what: string, timeoutMs = 5_000) =>
  Effect.promise(async () => {
    const started = performance.now()
    for (;;) {
      const value = await Effect.runPromise(probe)
      if (check(value)) return value
      if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })
