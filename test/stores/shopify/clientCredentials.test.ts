/**
 * A Dev Dashboard app's tokens (ShopifyAppToken.ts) against the simulator's client credentials
 * grant: renewed at 80 % of their lifetime (TestClock, the simulator's clock moved with it), once
 * after a 401, and a refused secret reported with the keys to check, never the secret or a token.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Redacted, TestClock } from "effect"
import { draftedAnnotation, DRAFTED_TAG } from "../../../src/domain/StoreTypes.js"
import type { RunningShopifySimulator } from "../../../src/simulator/shopify/index.js"
import { makeShopifyConnector } from "../../../src/stores/shopify/ShopifyConnector.js"
import { connectWith } from "../contract/SimulatorHarness.js"
import { admin, connectorConfig, type SimStats, startSimulator, stats } from "./harness.js"

const CLIENT_ID = "4c1b2a3d"
const CLIENT_SECRET = "shpss_unit-client-secret"

/** A connector of the app: its client id and secret, no static token, the webhook secret its client secret. */
const connectApp = (sim: RunningShopifySimulator, clientSecret = CLIENT_SECRET) => {
  const { accessToken: _static, ...settings } = connectorConfig(sim)
  return connectWith(makeShopifyConnector, {
    ...settings,
    clientId: CLIENT_ID,
    clientSecret: Redacted.make(clientSecret),
    webhookSecret: Redacted.make(clientSecret),
    requestTimeout: "1 hour"
  })
}

const tokenFigures = (s: SimStats) => [s.tokenGrants, s.unauthorized]

describe("Shopify on client credentials", () => {
  it.scoped("renews the token at 80 % of its lifetime, before Shopify would refuse it", () =>
    Effect.gen(function*() {
      let simTime = Date.UTC(2026, 10, 29, 9, 0, 0)
      const sim = yield* startSimulator({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, tokenLifetimeSeconds: 100, now: () => simTime })
      const { ids } = yield* admin<{ ids: ReadonlyArray<string> }>(sim, "POST", "orders/bulk", { count: 1 })
      const id = ids[0]!.split("/").pop()!
      const connector = yield* connectApp(sim)
      const elapse = (ms: number) => {
        simTime += ms
        return TestClock.adjust(ms)
      }
      expect(Option.isSome(yield* connector.getOrder(id))).toBe(true)
      expect(tokenFigures(yield* stats(sim))).toEqual([1, 0])
      yield* elapse(79_999)
      yield* connector.getOrder(id)
      expect(tokenFigures(yield* stats(sim))).toEqual([1, 0])
      yield* elapse(1)
      yield* connector.getOrder(id)
      expect(tokenFigures(yield* stats(sim))).toEqual([2, 0])
      // Ten more lifetimes, a read every 10 s: one grant per 80 s, and Shopify never refuses one.
      for (let i = 0; i < 100; i++) {
        yield* elapse(10_000)
        yield* connector.getOrder(id)
      }
      expect(tokenFigures(yield* stats(sim))).toEqual([14, 0])
    }))

  it.scopedLive("after a 401 asks for a new token once and sends the request again, reads and writes alike", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })
      const { ids } = yield* admin<{ ids: ReadonlyArray<string> }>(sim, "POST", "orders/bulk", { count: 1 })
      const id = ids[0]!.split("/").pop()!
      const connector = yield* connectApp(sim)
      yield* connector.getOrder(id)
      yield* admin(sim, "POST", "tokens/expire")
      expect(Option.isSome(yield* connector.getOrder(id))).toBe(true)
      yield* admin(sim, "POST", "tokens/expire")
      yield* connector.annotate(id, draftedAnnotation("dft_1"))
      const s = yield* stats(sim)
      expect(tokenFigures(s)).toEqual([3, 2])
      expect(s.tagsByOrder[id]).toContain(DRAFTED_TAG)
    }))

  it.scopedLive("reports a refused client secret with the keys to check, never the secret or a token", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })
      const connector = yield* connectApp(sim, "shpss_not-the-secret")
      const error = yield* Effect.flip(connector.getOrder("5610000001"))
      expect(error).toMatchObject({ _tag: "StoreAuthError", operation: "clientCredentialsGrant", status: 400 })
      expect(error.message).toContain("shopify.clientId and shopify.clientSecret")
      expect(error.message).toContain("invalid_client")
      const text = `${JSON.stringify(error)} ${error.message}`
      expect(text).not.toContain("shpss_")
      expect(text).not.toContain("shpat_")
    }))
})
