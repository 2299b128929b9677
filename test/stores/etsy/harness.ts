/**
 * Test harness: the Etsy simulator on 127.0.0.1:0, its admin API, and a
 * connector pointed at it over real HTTP.
 */
import { type Effect, Redacted, type Scope } from "effect"
import { type EtsySimulatorOptions, type RunningEtsySimulator, startEtsySimulator } from "../../../src/simulator/etsy/index.js"
import type { EtsyConnectorConfig } from "../../../src/stores/etsy/EtsyConfig.js"
import { makeEtsyConnector } from "../../../src/stores/etsy/EtsyConnector.js"
import { configFor, connectorFor, scopedSimulator, type SimStatsOf, simulatorAdmin, statsOf } from "../contract/SimulatorHarness.js"

export { eventually } from "../contract/SimulatorHarness.js"

/** Quotas large enough that tests not about pacing never wait. */
export const roomyQuota = { perSecond: 1_000_000, perDay: 100_000_000 } as const

export const startSimulator = (options: EtsySimulatorOptions = {}): Effect.Effect<RunningEtsySimulator, never, Scope.Scope> =>
  scopedSimulator(() => startEtsySimulator({ quota: roomyQuota, ...options }))

export const admin = simulatorAdmin

export const connectorConfig = configFor((sim: RunningEtsySimulator): EtsyConnectorConfig => ({
  storeKey: "acme-etsy",
  shopId: String(sim.shopId),
  keystring: Redacted.make(sim.keystring),
  sharedSecret: Redacted.make(sim.sharedSecret),
  refreshToken: Redacted.make(sim.refreshToken),
  webhookSecret: Redacted.make(sim.webhookSecret),
  baseUrl: sim.url
}))

/** A connector whose HTTP client lives as long as the test's scope. */
export const connectTo = connectorFor(makeEtsyConnector, connectorConfig)

export type SimStats =
  & SimStatsOf<
    "requests" | "throttled" | "unauthorized" | "forbidden" | "tokenGrants" | "tokenRefusals",
    "requestsByOperation" | "shipmentsByReceipt" | "buyerEmailsByReceipt" | "faultsInjected"
  >
  & {
    readonly quota: { readonly usedToday: number; readonly maxInOneSecond: number; readonly perSecond: number }
  }

export const stats = statsOf<SimStats>

/** A receipt as the admin API returns it (Etsy's shape, plain text). */
export interface SimReceipt {
  readonly receipt_id: number
  readonly updated_timestamp: number
  readonly status: string
  readonly is_shipped: boolean
  readonly transactions: ReadonlyArray<{ readonly transaction_id: number; readonly quantity: number }>
  readonly shipments: ReadonlyArray<{ readonly receipt_shipping_id: number; readonly tracking_code: string; readonly carrier_name: string }>
}
