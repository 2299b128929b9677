/**
 * Test harness: the Etsy simulator on 127.0.0.1:0, its admin API, and a
 * connector pointed at it over real HTTP.
 */
import { type Effect, Redacted, type Scope } from "effect"
import { type EtsySimulatorOptions, type RunningEtsySimulator, startEtsySimulator } from "../../../src/simulator/etsy/index.js"
import type { EtsyConnectorConfig } from "../../../src/stores/etsy/EtsyConfig.js"
import { makeEtsyConnector } from "../../../src/stores/etsy/EtsyConnector.js"
import type { StoreTokenStore } from "../../../src/domain/StoreToken.js"
import { makeInMemoryStoreTokens } from "../../../src/stores/InMemoryStoreTokens.js"
import { configFor, connectorFor, scopedSimulator, type SimStatsOf, simulatorAdmin, statsOf } from "../contract/SimulatorHarness.js"

export { eventually } from "../contract/SimulatorHarness.js"

/** Quotas large enough that tests not about pacing never wait. */
export const roomyQuota = { perSecond: 1_000_000, perDay: 100_000_000 } as const

export const startSimulator = (options: EtsySimulatorOptions = {}): Effect.Effect<RunningEtsySimulator, never, Scope.Scope> =>
  scopedSimulator(() => startEtsySimulator({ quota: roomyQuota, ...options }))

export const admin = simulatorAdmin

/**
 * Etsy refuses a refresh token once it has been used (it answers each refresh with the next one):
 * every connector of a test's simulator keeps its tokens in one store, as the daemon's replicas and
 * restarts share them through the database. A test of a connector without them passes its own.
 */
const tokensOf = new WeakMap<RunningEtsySimulator, StoreTokenStore>()
const sharedTokens = (sim: RunningEtsySimulator): StoreTokenStore => {
  const known = tokensOf.get(sim)
  if (known !== undefined) return known
  const made = makeInMemoryStoreTokens()
  tokensOf.set(sim, made)
  return made
}

export const connectorConfig = configFor((sim: RunningEtsySimulator): EtsyConnectorConfig => ({
  storeKey: "acme-etsy",
  tokens: sharedTokens(sim),
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
  /** The shipping emails Etsy sent the buyer: what they read. */
  readonly buyer_emails: ReadonlyArray<
    {
      readonly carrier_name: string | null
      readonly tracking_code: string | null
      readonly tracking_link: string | null
      readonly note_to_buyer: string | null
    }
  >
}
