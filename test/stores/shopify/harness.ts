/**
 * Test harness: the Shopify simulator on 127.0.0.1:0, its admin API, and a
 * connector pointed at it over real HTTP.
 */
import { type Effect, Redacted, type Scope } from "effect"
import { type RunningShopifySimulator, type ShopifySimulatorOptions, startShopifySimulator } from "../../../src/simulator/shopify/index.js"
import type { ShopifyConnectorConfig } from "../../../src/stores/shopify/ShopifyConfig.js"
import { makeShopifyConnector } from "../../../src/stores/shopify/ShopifyConnector.js"
import { configFor, connectorFor, scopedSimulator, type SimStatsOf, simulatorAdmin, statsOf } from "../contract/SimulatorHarness.js"

export { eventually } from "../contract/SimulatorHarness.js"

/** A bucket large enough that tests not about throttling never wait. */
export const roomyBucket = { maximumAvailable: 1_000_000, restoreRate: 1_000_000 } as const

export const startSimulator = (
  options: ShopifySimulatorOptions = {}
): Effect.Effect<RunningShopifySimulator, never, Scope.Scope> =>
  scopedSimulator(() => startShopifySimulator({ bucket: roomyBucket, ...options }))

export const admin = simulatorAdmin

export const connectorConfig = configFor((sim: RunningShopifySimulator): ShopifyConnectorConfig => ({
  storeKey: "acme-shopify",
  shop: sim.shop,
  accessToken: Redacted.make(sim.accessToken),
  webhookSecret: Redacted.make(sim.webhookSecret),
  apiVersion: sim.apiVersion,
  baseUrl: sim.url,
  notifyCustomer: true
}))

/** A connector whose HTTP client lives as long as the test's scope. */
export const connectTo = connectorFor(makeShopifyConnector, connectorConfig)

export type SimStats =
  & SimStatsOf<
    "requests" | "throttled" | "requestsWhileShort" | "tokenGrants" | "tokenRefusals" | "unauthorized",
    "fulfillmentsByOrder" | "notificationsByOrder" | "mutations"
  >
  & {
    readonly tagsByOrder: Record<string, ReadonlyArray<string>>
  }

export const stats = statsOf<SimStats>
