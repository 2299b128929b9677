import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { WebhookDelivery } from "../../../src/domain/StoreTypes.js"
import { verifyShopifyWebhook } from "../../../src/stores/shopify/ShopifyWebhooks.js"
import { admin, connectTo, startSimulator } from "./harness.js"
import { deliveryOf, rotatingSecrets, verifiesSignatures, verifiesSimulatorDeliveries } from "../contract/WebhookContract.js"
import { verdictOf as rejection } from "../contract/WebhookContract.js"

const secrets = rotatingSecrets({ storeKey: "acme-shopify", shop: "acme.myshopify.com" })

const body = JSON.stringify({
  id: 5610000042,
  admin_graphql_api_id: "gid://shopify/Order/5610000042",
  name: "#1042",
  updated_at: "2026-03-02T06:00:05-05:00",
  line_items: [{ id: 13980000042, properties: [{ name: "design_url", value: "https://cdn.example.com/d.png" }] }]
})

const sign = (secret: string, raw: string | Buffer) => createHmac("sha256", secret).update(raw).digest("base64")

const delivery = deliveryOf(body, (raw) => ({
  "x-shopify-topic": "orders/updated",
  "x-shopify-hmac-sha256": sign("current-secret", raw),
  "x-shopify-shop-domain": "acme.myshopify.com",
  "x-shopify-webhook-id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043",
  "x-shopify-event-id": "98880550-7158-44d4-b7cd-2c97c8a091b5",
  "x-shopify-triggered-at": "2026-03-02T11:00:06.123456789Z",
  "x-shopify-api-version": "2026-10"
}))

verifiesSignatures({
  platform: "Shopify",
  verify: verifyShopifyWebhook,
  secrets,
  body,
  verified: {
    topic: "orders/updated",
    dedupKey: "acme-shopify:shopify-event:orders/updated:98880550-7158-44d4-b7cd-2c97c8a091b5",
    deliveryId: "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043",
    eventId: "98880550-7158-44d4-b7cd-2c97c8a091b5",
    storeOrderId: "5610000042",
    orderUpdatedAt: "2026-03-02T11:00:05Z",
    triggeredAt: "2026-03-02T11:00:06.123Z"
  },
  delivery,
  signatureHeader: "x-shopify-hmac-sha256",
  signedWith: (secret, raw) => ({ "x-shopify-hmac-sha256": sign(secret === "previous" ? "old-secret" : "guessed-secret", raw) }),
  malformedSignatures: ["not base64 at all!", sign("current-secret", body).slice(0, 20)],
  notJson: "webhook_id=1"
})

describe("Shopify webhook verification (pure)", () => {
  it("reads header names in any case, and refuses another shop", () => {
    const upper = delivery()
    const shouting: WebhookDelivery = {
      rawBody: upper.rawBody,
      headers: Object.fromEntries(Object.entries(upper.headers).map(([k, v]) => [k.toUpperCase(), v]))
    }
    expect(rejection(verifyShopifyWebhook(secrets, shouting))).toBe("accepted")
    expect(rejection(verifyShopifyWebhook(secrets, delivery({ "x-shopify-shop-domain": "evil.myshopify.com" })))).toBe("wrong_shop")
  })

  it("gives every copy of one event the same dedup key, and different events different keys", () => {
    const key = (headers: Record<string, string | undefined>) =>
      Either.getOrThrow(verifyShopifyWebhook(secrets, delivery(headers))).dedupKey
    const original = key({})
    // A retry of the same delivery, and another delivery of the same event: one key.
    expect(key({ "x-shopify-triggered-at": "2026-03-02T11:05:00Z" })).toBe(original)
    expect(key({ "x-shopify-webhook-id": "another-delivery" })).toBe(original)
    // The same merchant action raising another topic, and another event: other keys.
    expect(key({ "x-shopify-topic": "orders/cancelled" })).not.toBe(original)
    expect(key({ "x-shopify-event-id": "another-event" })).not.toBe(original)
    // Without an event id, the delivery id is the key.
    expect(key({ "x-shopify-event-id": undefined })).toBe("acme-shopify:shopify-delivery:b54557e4-bdd9-4b37-8a5f-bf7d70bcd043")
  })
})

describe("Shopify webhook deliveries from the simulator", () => {
  verifiesSimulatorDeliveries({
    title: "verifies real deliveries, rejects a forged one and ignores replays by their dedup key",
    start: startSimulator,
    connect: connectTo,
    path: "/webhooks/acme-shopify",
    subscriptions: (address) => ["orders/create", "orders/updated", "orders/cancelled"].map((topic) => ({ topic, address })),
    raise: (sim) =>
      Effect.gen(function*() {
        const order = yield* admin(sim, "POST", "orders", {})
        yield* admin(sim, "PATCH", `orders/${order.legacyResourceId}`, { note: "gift" })
        yield* admin(sim, "POST", `orders/${order.legacyResourceId}/cancel`, {})
        return order.legacyResourceId as string
      }),
    deliveries: 8,
    eachCopy: (verified, orderId) => Effect.sync(() => expect(verified.storeOrderId).toBe(orderId)),
    processed: (topics, ignored) => {
      expect(ignored).toBe(4)
      expect([...topics].sort()).toEqual(["orders/cancelled", "orders/create", "orders/updated", "orders/updated"])
    },
    // The same headers over a changed body: refused.
    forge: (received, orderId) => ({
      headers: received[0]!.headers,
      rawBody: Buffer.from(received[0]!.rawBody.toString("utf8").replace(orderId, "1"))
    })
  })
})
