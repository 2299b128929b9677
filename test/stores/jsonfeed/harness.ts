/**
 * Test harness: the JSON feed simulator on 127.0.0.1:0, its admin API, and a
 * connector pointed at it over real HTTP.
 */
import { type Effect, Redacted, type Scope } from "effect"
import {
  type JsonFeedSimulatorOptions,
  type RunningJsonFeedSimulator,
  startJsonFeedSimulator
} from "../../../src/simulator/jsonfeed/index.js"
import type { JsonFeedConnectorConfig } from "../../../src/stores/jsonfeed/JsonFeedConfig.js"
import { makeJsonFeedConnector } from "../../../src/stores/jsonfeed/JsonFeedConnector.js"
import { configFor, connectorFor, scopedSimulator, type SimStatsOf, simulatorAdmin, statsOf } from "../contract/SimulatorHarness.js"

export { eventually } from "../contract/SimulatorHarness.js"

export const startSimulator = (
  options: JsonFeedSimulatorOptions = {}
): Effect.Effect<RunningJsonFeedSimulator, never, Scope.Scope> =>
  // Tests not about rate limits run without one.
  scopedSimulator(() => startJsonFeedSimulator({ rateLimit: false, ...options }))

export const admin = simulatorAdmin

/**
 * Moves the simulator's clock on by a second. A walk covers orders updated
 * strictly before it started, so a test that pulls right after creating
 * orders would otherwise race the millisecond.
 */
export const settle = (sim: Pick<RunningJsonFeedSimulator, "url">) => admin(sim, "POST", "clock/advance", { seconds: 1 })

export const connectorConfig = configFor((sim: RunningJsonFeedSimulator): JsonFeedConnectorConfig => ({
  storeKey: "acme-feed",
  baseUrl: sim.baseUrl,
  token: Redacted.make(sim.token),
  webhookSecret: Redacted.make(sim.webhookSecret),
  notifyCustomer: true,
  // Tests not about pacing do not wait for it.
  requestsPerSecond: 0
}))

/** A connector whose HTTP client lives as long as the test's scope. */
export const connectTo = connectorFor(makeJsonFeedConnector, connectorConfig)

export type SimStats = SimStatsOf<
  "requests" | "rateLimited" | "idempotentReplays" | "keysInUse",
  "requestsByOperation" | "fulfillmentsByOrder" | "buyerEmailsByOrder" | "faultsInjected"
>

export const stats = statsOf<SimStats>

export interface SimLine {
  readonly id: string
  readonly quantity: number
  readonly sku: string | null
}
export interface SimFulfillment {
  readonly id: string
  readonly status: string
  readonly lines: ReadonlyArray<{ line_id: string; quantity: number }>
  readonly tracking: { company: string; number: string; url: string | null }
  readonly notify_customer: boolean
  readonly idempotency_key: string | null
}
export interface SimOrder {
  readonly id: string
  readonly updated_at: string
  readonly lines: ReadonlyArray<SimLine>
  readonly holds: ReadonlyArray<{ id: string; reason: string | null }>
  readonly fulfillments: ReadonlyArray<SimFulfillment>
}
