/**
 * Test harness: the Etsy simulator on 127.0.0.1:0, its admin API, and a
 * connector pointed at it over real HTTP.
 */
import { type Effect, Redacted, type Scope } from "effect"
import { type EtsySimulatorOptions, type RunningEtsySimulator, startEtsySimulator } from "../../../src/simulator/etsy/index.js"
import type { EtsyConnectorConfig } from "../../../src/stores/etsy/EtsyConfig.js"
import { makeEtsyConnector } from "../../../src/stores/etsy/EtsyConnector.js"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"
import { connectWith, scopedSimulator, simulatorAdmin } from "../contract/SimulatorHarness.js"

export { eventually } from "../contract/SimulatorHarness.js"

/** Quotas large enough that tests not about pacing never wait. */
export const roomyQuota = { perSecond: 1_000_000, perDay: 100_000_000 } as const

export const startSimulator = (options: EtsySimulatorOptions = {}): Effect.Effect<RunningEtsySimulator, never, Scope.Scope> =>
  scopedSimulator(() => startEtsySimulator({ quota: roomyQuota, ...options }))

export const admin: <A = any>(
  sim: { readonly url: string },
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown
) => Effect.Effect<A> = simulatorAdmin

export const connectorConfig = (sim: RunningEtsySimulator, overrides: Partial<EtsyConnectorConfig> = {}): EtsyConnectorConfig => ({
  storeKey: "acme-etsy",
  shopId: String(sim.shopId),
  keystring: Redacted.make(sim.keystring),
  sharedSecret: Redacted.make(sim.sharedSecret),
  refreshToken: Redacted.make(sim.refreshToken),
  webhookSecret: Redacted.make(sim.webhookSecret),
  baseUrl: sim.url,
  ...overrides
})

/** A connector whose HTTP client lives as long as the test's scope. */
export const connectTo = (
  sim: RunningEtsySimulator,
  overrides: Partial<EtsyConnectorConfig> = {}
): Effect.Effect<StoreConnector, never, Scope.Scope> =>
  connectWith(makeEtsyConnector, connectorConfig(sim, overrides))

export interface SimStats {
  readonly requests: number
  readonly requestsByOperation: Record<string, number>
  readonly throttled: number
  readonly unauthorized: number
  readonly forbidden: number
  readonly tokenGrants: number
  readonly tokenRefusals: number
  readonly shipmentsByReceipt: Record<string, number>
  readonly buyerEmailsByReceipt: Record<string, number>
  readonly faultsInjected: Record<string, number>
  readonly quota: { readonly usedToday: number; readonly maxInOneSecond: number; readonly perSecond: number }
}

export const stats = (sim: { readonly url: string }) => admin<SimStats>(sim, "GET", "stats")

/** A receipt as the admin API returns it (Etsy's shape, plain text). */
export interface SimReceipt {
  readonly receipt_id: number
  readonly updated_timestamp: number
  readonly status: string
  readonly is_shipped: boolean
  readonly transactions: ReadonlyArray<{ readonly transaction_id: number; readonly quantity: number }>
  readonly shipments: ReadonlyArray<{ readonly receipt_shipping_id: number; readonly tracking_code: string; readonly carrier_name: string }>
}

