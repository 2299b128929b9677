/**
 * WooCommerce webhooks as real sites send them (store-apis.md §0): the source is the site's home
 * (`home_url('/')`), which may not be where the REST API answers; a webhook on the legacy API
 * delivers `{"order": …}`; the signing key is the stored secret after `wp_specialchars_decode`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Redacted } from "effect"
import { eventually } from "../contract/SimulatorHarness.js"
import { receiver } from "../contract/WebhookContract.js"
import { admin, connectTo, startSimulator } from "./harness.js"

const HOME = "https://www.acme-prints.example/shop/"

describe("WooCommerce webhooks from a site whose home is not its REST address", () => {
  it.scoped("are taken from the configured home URL only, legacy payloads and a sanitized secret included", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ homeUrl: HOME })
      const hook = yield* receiver("/webhooks/acme-woo")
      // A "<" in the secret: WordPress stores it as "&lt;" and signs with the decoded secret.
      const typed = "s3cr<3t&more"
      const subscribed = yield* admin<{ secret: string }>(sim, "POST", "webhooks/subscribe", {
        topic: "order.updated",
        address: hook.url,
        secret: typed
      })
      expect(subscribed.secret).toBe("s3cr&lt;3t&more")
      yield* admin(sim, "POST", "webhooks/subscribe", { topic: "order.created", address: hook.url, secret: typed, apiVersion: "legacy_v3" })
      const order = yield* admin<{ id: number }>(sim, "POST", "orders", {})
      sim.clock.now += 1000
      yield* admin(sim, "PATCH", `orders/${order.id}`, { customer_note: "gift wrap, please" })
      const received = yield* eventually(Effect.sync(() => hook.received), (r) => r.length >= 4, "2 pings and 2 deliveries")
      const events = received.filter((r) => r.headers["x-wc-webhook-topic"] !== undefined)
      expect(events.map((r) => r.headers["x-wc-webhook-source"])).toEqual([HOME, HOME])
      const legacy = events.find((r) => r.headers["x-wc-webhook-topic"] === "order.created")!
      expect(JSON.parse(legacy.rawBody.toString("utf8"))).toMatchObject({ order: { id: order.id, order_number: String(order.id) } })

      const verify = (connector: Effect.Effect.Success<ReturnType<typeof connectTo>>) =>
        events.map((r) => connector.verifyWebhook({ headers: r.headers, rawBody: r.rawBody }))
      // Without homeUrl the REST address is the expected source: refused, and the refusal says what to set.
      const unaware = verify(yield* connectTo(sim, { webhookSecret: Redacted.make(typed) }))
      expect(unaware.map((v) => Either.isLeft(v) && v.left.reason)).toEqual(["wrong_shop", "wrong_shop"])
      expect(Either.isLeft(unaware[0]!) && unaware[0].left.detail).toContain("woocommerce.homeUrl")

      // With it, both verify, under the secret as typed and as WordPress stored it; both name the order.
      for (const secret of [typed, subscribed.secret]) {
        const verified = verify(yield* connectTo(sim, { homeUrl: HOME, webhookSecret: Redacted.make(secret) }))
        expect(verified.map((v) => Either.isRight(v) && v.right.storeOrderId)).toEqual([String(order.id), String(order.id)])
        // The legacy payload's version is its `updated_at`, so its dedup key is the order version's, as for REST payloads.
        const created = verified.find((v) => Either.isRight(v) && v.right.topic === "order.created")
        expect(Either.isRight(created!) && created.right.orderUpdatedAt).toMatch(/^2026-03-02T15:00:0\dZ$/)
      }
      // Another path under the same host is another site.
      const elsewhere = verify(yield* connectTo(sim, { homeUrl: "https://www.acme-prints.example/", webhookSecret: Redacted.make(typed) }))
      expect(elsewhere.map((v) => Either.isLeft(v) && v.left.reason)).toEqual(["wrong_shop", "wrong_shop"])
    }))
})
