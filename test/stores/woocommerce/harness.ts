/**
 * Test harness: the WooCommerce simulator on 127.0.0.1:0 with a clock the test owns, its admin API,
 * and a connector pointed at it over real HTTP.
 */
import { type Effect, Redacted, type Scope } from "effect"
import {
  type RunningWooCommerceSimulator,
  startWooCommerceSimulator,
  type WooCommerceSimulatorOptions
} from "../../../src/simulator/woocommerce/index.js"
import { configFor, connectorFor, scopedSimulator, type SimStatsOf, simulatorAdmin, statsOf } from "../contract/SimulatorHarness.js"

export { eventually } from "../contract/SimulatorHarness.js"
import type { WooCommerceConnectorConfig } from "../../../src/stores/woocommerce/WooConfig.js"
import { makeWooCommerceConnector } from "../../../src/stores/woocommerce/WooCommerceConnector.js"

/** 2026-03-02T15:00:00Z: where every simulator clock starts. */
export const T0 = Date.UTC(2026, 2, 2, 15, 0, 0)

export interface Sim extends RunningWooCommerceSimulator {
  /** The simulator's clock (ms), before its own `/__sim/clock/advance` offsets. */
  readonly clock: { now: number }
}

export const admin = simulatorAdmin

export const startSimulator = (options: WooCommerceSimulatorOptions = {}): Effect.Effect<Sim, never, Scope.Scope> =>
  scopedSimulator(async () => {
    const clock = { now: T0 }
    const running = await startWooCommerceSimulator({ now: () => clock.now, ...options })
    return { ...running, clock }
  })

export const connectorConfig = configFor((sim: Sim): WooCommerceConnectorConfig => ({
  storeKey: "acme-woo",
  url: sim.url,
  consumerKey: Redacted.make(sim.consumerKey),
  consumerSecret: Redacted.make(sim.consumerSecret),
  webhookSecret: Redacted.make(sim.webhookSecret),
  // Tests not about pacing do not wait between requests.
  minRequestIntervalMs: 0
}))

/** A connector whose HTTP client lives as long as the test's scope. */
export const connectTo = connectorFor(makeWooCommerceConnector, connectorConfig)

export type SimStats =
  & SimStatsOf<
    "requests" | "rateLimited" | "authFailures",
    "requestsByOperation" | "trackingsByOrder" | "notesByOrder" | "buyerEmailsByOrder" | "completedEmailsByOrder" | "faultsInjected"
  >
  & {
    readonly minGapMs: number | null
  }

export const stats = statsOf<SimStats>
