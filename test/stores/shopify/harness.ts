/**
 * Test harness: the Shopify simulator on 127.0.0.1:0, its admin API, and a
 * connector pointed at it over real HTTP.
 */
import { type Effect, Redacted, type Scope } from "effect"
import {
  type RunningShopifySimulator,
  type ShopifySimulatorOptions,
  startShopifySimulator
} from "../../../src/simulator/shopify/index.js"
import type { ShopifyConnectorConfig } from "../../../src/stores/shopify/ShopifyConfig.js"
import { makeShopifyConnector } from "../../../src/stores/shopify/ShopifyConnector.js"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"
import { connectWith, scopedSimulator, simulatorAdmin } from "../contract/SimulatorHarness.js"

export { eventually } from "../contract/SimulatorHarness.js"

/** A bucket large enough that tests not about throttling never wait. */
export const roomyBucket = { maximumAvailable: 1_000_000, restoreRate: 1_000_000 } as const

export const startSimulator = (
  options: ShopifySimulatorOptions = {}
): Effect.Effect<RunningShopifySimulator, never, Scope.Scope> =>
  scopedSimulator(() => startShopifySimulator({ bucket: roomyBucket, ...options }))

export const admin: <A = any>(
  sim: RunningShopifySimulator,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown
) => Effect.Effect<A> = simulatorAdmin

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
  connectWith(makeShopifyConnector, connectorConfig(sim, overrides))

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

