import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { WebhookDelivery } from "../../../src/domain/StoreTypes.js"
import { verifyWooWebhook } from "../../../src/stores/woocommerce/WooWebhooks.js"
import { admin, connectTo, startSimulator } from "./harness.js"
import { deliveryOf, rotatingSecrets, verifiesSignatures, verifiesSimulatorDeliveries } from "../contract/WebhookContract.js"
import { verdictOf as verdict } from "../contract/WebhookContract.js"

const secrets = rotatingSecrets({ storeKey: "acme-woo", url: "https://acme.example.com" })

const body = JSON.stringify({
  id: 4187,
  status: "processing",
  date_modified: "2026-03-02T12:00:05",
  date_modified_gmt: "2026-03-02T11:00:05",
  line_items: [{ id: 312, meta_data: [{ key: "design_front", value: "https://cdn.example.com/d.png" }] }]
})

const sign = (secret: string, raw: string | Buffer) => createHmac("sha256", secret).update(raw).digest("base64")

const delivery = deliveryOf(body, (raw) => ({
  "content-type": "application/json",
  "x-wc-webhook-source": "https://acme.example.com/",
  "x-wc-webhook-topic": "order.updated",
  "x-wc-webhook-resource": "order",
  "x-wc-webhook-event": "updated",
  "x-wc-webhook-signature": sign("current-secret", raw),
  "x-wc-webhook-id": "12",
  "x-wc-webhook-delivery-id": "2f6b8c0e5a1d4f7e9b3c6a8d0e2f4a6c"
}))

verifiesSignatures({
  platform: "WooCommerce",
  verify: verifyWooWebhook,
  secrets,
  body,
  verified: {
    topic: "order.updated",
    dedupKey: "acme-woo:woo:order.updated:4187@2026-03-02T11:00:05Z",
    deliveryId: "2f6b8c0e5a1d4f7e9b3c6a8d0e2f4a6c",
    storeOrderId: "4187",
    orderUpdatedAt: "2026-03-02T11:00:05Z"
  },
  delivery,
  signatureHeader: "x-wc-webhook-signature",
  signedWith: (secret, raw) => ({ "x-wc-webhook-signature": sign(secret === "previous" ? "old-secret" : "guessed", raw) }),
  malformedSignatures: [sign("current-secret", body).slice(0, 20)],
  notJson: "not json"
})

describe("WooCommerce webhook verification (pure)", () => {
  it("answers WooCommerce's unsigned ping as a ping, and nothing else unsigned", () => {
    const ping: WebhookDelivery = {
      headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": "WooCommerce/9.8.5 Hookshot (WordPress/6.8.1)" },
      rawBody: Buffer.from("webhook_id=12")
    }
    expect(verifyWooWebhook(secrets, ping)).toEqual(
      Either.right({ storeKey: "acme-woo", topic: "webhook.ping", dedupKey: "acme-woo:woo-ping:12", payload: { webhook_id: 12 } })
    )
    expect(verdict(verifyWooWebhook(secrets, { headers: {}, rawBody: Buffer.from(body) }))).toBe("missing_signature")
    expect(verdict(verifyWooWebhook(secrets, { headers: {}, rawBody: Buffer.from("webhook_id=12&status=completed") }))).toBe(
      "missing_signature"
    )
  })

  it("accepts another body signed with the current secret", () => {
    expect(verdict(verifyWooWebhook(secrets, delivery({}, body.replace("4187", "4188"))))).toBe("accepted")
  })

  it("refuses another site and a missing topic", () => {
    expect(verdict(verifyWooWebhook(secrets, delivery({ "x-wc-webhook-source": "https://www.acme.example.com/" })))).toBe("accepted")
    expect(verdict(verifyWooWebhook(secrets, delivery({ "x-wc-webhook-source": "https://evil.example.com/" })))).toBe("wrong_shop")
    expect(verdict(verifyWooWebhook(secrets, delivery({ "x-wc-webhook-topic": undefined })))).toBe("missing_headers")
  })

  it("keys duplicates alike and two events alike only when they carry the same order version", () => {
    const key = (headers: Record<string, string | undefined>, raw = body) =>
      Either.getOrThrow(verifyWooWebhook(secrets, delivery(headers, raw))).dedupKey
    const original = key({})
    expect(key({ "x-wc-webhook-delivery-id": "another-delivery" })).toBe(original)
    // The Delivery-ID is shared by deliveries in the same second, so it does not make events equal.
    const later = body.replace("11:00:05", "11:00:07")
    expect(key({}, later)).not.toBe(original)
    expect(key({ "x-wc-webhook-topic": "order.created" })).not.toBe(original)
    const deleted = JSON.stringify({ id: 4187 })
    expect(key({ "x-wc-webhook-topic": "order.deleted" }, deleted)).toMatch(
      /^acme-woo:woo-delivery:12:2f6b8c0e5a1d4f7e9b3c6a8d0e2f4a6c:[0-9a-f]{16}$/
    )
  })
})

describe("WooCommerce webhook deliveries from the simulator", () => {
  verifiesSimulatorDeliveries({
    title: "verifies real deliveries and the ping, rejects a forged one and recognises replays by their dedup key",
    start: startSimulator,
    connect: connectTo,
    path: "/webhooks/acme-woo",
    subscriptions: (address) => ["order.created", "order.updated", "order.deleted"].map((topic) => ({ topic, address })),
    raise: (sim) =>
      Effect.gen(function*() {
        const order = yield* admin(sim, "POST", "orders", {})
        sim.clock.now += 1000
        yield* admin(sim, "PATCH", `orders/${order.id}`, { customer_note: "gift" })
        sim.clock.now += 1000
        yield* admin(sim, "POST", `orders/${order.id}/trash`)
        return String(order.id)
      }),
    // 3 pings and 8 deliveries.
    deliveries: 3 + 8,
    eachEvent: (verified, orderId) =>
      Effect.sync(() => {
        if (verified.topic !== "webhook.ping") expect(verified.storeOrderId).toBe(orderId)
      }),
    processed: (topics, replays) => {
      expect(replays).toBe(4)
      // Trashing saves the order (order.updated) and deletes it (order.deleted).
      expect([...topics].sort()).toEqual([
        "order.created",
        "order.deleted",
        "order.updated",
        "order.updated",
        "webhook.ping",
        "webhook.ping",
        "webhook.ping"
      ])
    },
    forge: (received) => {
      const genuine = received.find((r) => r.headers["x-wc-webhook-topic"] === "order.updated")!
      return { headers: genuine.headers, rawBody: Buffer.from(genuine.rawBody.toString("utf8").replace('"gift"', '"free stuff"')) }
    }
  })
})
