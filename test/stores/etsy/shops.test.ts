/**
 * Two shops of one Etsy app, as the daemon runs them: one connector each, their buckets in the shared
 * database. Etsy counts private calls per OAuth access token, one seller's each (store-apis.md §0),
 * so one shop throttled must not hold the other: each shop has its bucket.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Option, Redacted } from "effect"
import { Db } from "../../../src/db/Db.js"
import { makeSqlStoreBuckets } from "../../../src/repos/SqlStoreBucket.js"
import { etsyAppCredential, etsyCredential } from "../../../src/stores/etsy/EtsyQuota.js"
import { testDatabases } from "../../support/database.js"
import { admin, connectTo, type SimReceipt, type SimStats, startSimulator } from "./harness.js"

const live = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withClock(effect, Clock.make())

const OTHER = { shopId: 51820476, userId: 902144311 }

describe("two Etsy shops of one app", () => {
  it("have a bucket each (and the app one for its public calls)", () => {
    const app = { keystring: Redacted.make("1aa2bb3cc4dd5ee6ff7gg8hh"), baseUrl: "https://api.etsy.com" }
    const a = etsyCredential({ ...app, shopId: "48213795" })
    const b = etsyCredential({ ...app, shopId: String(OTHER.shopId) })
    expect(new Set([a, b, etsyAppCredential(app)]).size).toBe(3)
  })

  for (const database of testDatabases()) {
    it.layer(database.layer)((it) => {
      it.scoped(`in ${database.name}: one throttled for a day, the other goes on at once`, () =>
        live(Effect.gen(function*() {
          const sim = yield* startSimulator({ otherShops: [OTHER], retryAfterOn429: true, quota: { perSecond: 1_000, perDay: 10_000 } })
          const other = sim.shops.find((s) => s.shopId === OTHER.shopId)!
          const buckets = makeSqlStoreBuckets((yield* Db).kysely)
          const first = yield* connectTo(sim, { buckets })
          const second = yield* connectTo(sim, {
            storeKey: "acme-etsy-2",
            shopId: String(other.shopId),
            refreshToken: Redacted.make(other.refreshToken),
            buckets
          })
          const mine = yield* admin<SimReceipt>(sim, "POST", "receipts", {})
          const theirs = yield* admin<SimReceipt>(sim, "POST", `shops/${other.shopId}/receipts`, {})
          // Both read once: each seller's token, each shop's receipt.
          expect(Option.isSome(yield* first.getOrder(String(mine.receipt_id)))).toBe(true)
          expect(Option.isSome(yield* second.getOrder(String(theirs.receipt_id)))).toBe(true)

          // The first shop's token spends its day: Etsy answers 429 with a retry-after of hours.
          yield* admin(sim, "POST", "quota", { usedToday: 10_000 })
          const refused = yield* Effect.flip(first.getOrder(String(mine.receipt_id)))
          expect(refused).toMatchObject({ _tag: "StoreUnavailableError" })
          expect(refused.message).toMatch(/rate limited|asked to wait/)

          // The second shop is not held by the first's pause: its reads go on.
          for (let i = 0; i < 3; i++) expect(Option.isSome(yield* second.getOrder(String(theirs.receipt_id)))).toBe(true)
          const firstStats = yield* admin<SimStats>(sim, "GET", "stats")
          const secondStats = yield* admin<SimStats>(sim, "GET", `shops/${other.shopId}/stats`)
          expect(firstStats.throttled).toBe(1)
          expect(secondStats.throttled).toBe(0)
          expect(secondStats.requestsByOperation["getShopReceipt"]).toBe(4)
        })), 30_000)
    })
  }
})
