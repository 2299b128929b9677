/**
 * Credentials: the shared-secret API key, OAuth access tokens from the
 * refresh token (renewed before expiry, or after a 401), refresh token
 * rotation, and errors that never carry a secret.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Redacted, TestClock } from "effect"
import { makeInMemoryStoreTokens } from "../../../src/stores/InMemoryStoreTokens.js"
import { admin, connectTo, type SimReceipt, startSimulator, stats } from "./harness.js"

describe("Etsy credentials", () => {
  it.scoped("refreshes the access token at 80 % of its lifetime, without a 401", () =>
    Effect.gen(function*() {
      let simTime = Date.UTC(2026, 2, 1, 9, 0, 0)
      const sim = yield* startSimulator({ accessTokenTtlSeconds: 600, now: () => simTime })
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", {})
      const connector = yield* connectTo(sim, { requestTimeout: "1 hour" })
      const id = String(receipt.receipt_id)
      expect(Option.isSome(yield* connector.getOrder(id))).toBe(true)
      expect((yield* stats(sim)).tokenGrants).toBe(1)

      // 7 min 59 s later the token (10 minutes) is still used…
      simTime += 479_000
      yield* TestClock.adjust(479_000)
      yield* connector.getOrder(id)
      expect((yield* stats(sim)).tokenGrants).toBe(1)
      // …and past 80 % of its lifetime (8 minutes) it is replaced before use.
      simTime += 2_000
      yield* TestClock.adjust(2_000)
      yield* connector.getOrder(id)
      const after = yield* stats(sim)
      expect(after.tokenGrants).toBe(2)
      expect(after.unauthorized).toBe(0)
    }))

  it.scopedLive("after a 401 refreshes once and repeats the request, reads and writes alike", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", {})
      const connector = yield* connectTo(sim)
      yield* connector.getOrder(String(receipt.receipt_id))
      yield* admin(sim, "POST", "tokens/expire")
      expect(Option.isSome(yield* connector.getOrder(String(receipt.receipt_id)))).toBe(true)
      yield* admin(sim, "POST", "tokens/expire")
      const pushed = yield* connector.pushFulfillment({
        storeOrderId: String(receipt.receipt_id),
        lines: [{ lineId: String(receipt.transactions[0]!.transaction_id), quantity: 1 }],
        tracking: { company: "USPS", number: "9400111899562537683412" }
      })
      expect(pushed._tag).toBe("Created")
      const s = yield* stats(sim)
      expect([s.unauthorized, s.tokenGrants]).toEqual([2, 3])
      expect(s.buyerEmailsByReceipt).toEqual({ [receipt.receipt_id]: 1 })
    }))

  it.scopedLive("keeps the newest refresh token in the token store, so a restart or a replica goes on with it", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ rotateRefreshTokens: true })
      const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", {})
      const id = String(receipt.receipt_id)
      // The store a daemon keeps in its database.
      const tokens = makeInMemoryStoreTokens()
      const connector = yield* connectTo(sim, { tokens })
      const seen: Array<string> = []
      for (let i = 0; i < 3; i++) {
        yield* admin(sim, "POST", "tokens/expire")
        expect(Option.isSome(yield* connector.getOrder(id))).toBe(true)
        const row = yield* tokens.open("acme-etsy").read
        seen.push(Redacted.value(row!.refreshToken!))
      }
      expect(new Set(seen).size).toBe(3)
      expect(seen.every((t) => t.startsWith(`${sim.userId}.`) && t !== sim.refreshToken)).toBe(true)

      // The refresh token from the config has been used up: a process without the store is refused…
      const stale = yield* connectTo(sim, { tokens: makeInMemoryStoreTokens() })
      const error = yield* Effect.flip(stale.getOrder(id))
      expect(error).toMatchObject({ _tag: "StoreAuthError", operation: "oauthToken", status: 400 })
      // …and one with it (the same config, restarted) presents the newest, and goes on rotating.
      const restarted = yield* connectTo(sim, { tokens })
      yield* admin(sim, "POST", "tokens/expire")
      expect(Option.isSome(yield* restarted.getOrder(id))).toBe(true)
      const newest = Redacted.value((yield* tokens.open("acme-etsy").read)!.refreshToken!)
      expect(seen).not.toContain(newest)
      expect((yield* stats(sim)).tokenGrants).toBe(4)
    }))

  it.scopedLive("fails with a typed auth error, free of secrets, when the key lacks its shared secret or is wrong", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const emptySecret = yield* connectTo(sim, { sharedSecret: Redacted.make("") })
      const refused = yield* Effect.flip(emptySecret.getOrder("3401234501"))
      expect(refused).toMatchObject({ _tag: "StoreAuthError", operation: "getShopReceipt", status: 403 })
      const wrong = yield* connectTo(sim, { sharedSecret: Redacted.make("not-the-secret") })
      const error = yield* Effect.flip(wrong.getOrder("3401234501"))
      expect(error).toMatchObject({ _tag: "StoreAuthError", status: 403 })
      for (const e of [refused, error]) {
        const text = `${JSON.stringify(e)} ${e.message}`
        expect(text).not.toContain(sim.sharedSecret)
        expect(text).not.toContain(sim.refreshToken)
      }
      const badRefresh = yield* connectTo(sim, { refreshToken: Redacted.make("873421905.revoked") })
      const denied = yield* Effect.flip(badRefresh.getOrder("3401234501"))
      expect(denied).toMatchObject({ _tag: "StoreAuthError", operation: "oauthToken", status: 400 })
      expect(JSON.stringify(denied)).not.toContain("revoked")
    }))
})
