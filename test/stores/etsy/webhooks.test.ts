import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Either, Layer, Option } from "effect"
import { makeEtsyConnector } from "../../../src/stores/etsy/EtsyConnector.js"
import { offeredSignatures, verifyEtsyWebhook } from "../../../src/stores/etsy/EtsyWebhooks.js"
import { admin, connectorConfig, connectTo, type SimReceipt, startSimulator } from "./harness.js"
import { deliveryOf, rotatingSecrets, verifiesSignatures, verifiesSimulatorDeliveries } from "../contract/WebhookContract.js"
import { verdictOf as verdict } from "../contract/WebhookContract.js"

const key = Buffer.from("a-test-signing-key-of-32-bytes!!")
const secret = `whsec_${key.toString("base64")}`
const oldKey = Buffer.from("the-previous-signing-key-0123456")

const secrets = rotatingSecrets({ storeKey: "acme-etsy", shopId: "48213795" }, secret, `whsec_${oldKey.toString("base64")}`)

const body = JSON.stringify({
  event_type: "order.paid",
  resource_url: "https://openapi.etsy.com/v3/application/shops/48213795/receipts/3401234567",
  shop_id: 48213795
})

const sign = (signingKey: Buffer, id: string, timestamp: string, raw: string) =>
  `v1,${createHmac("sha256", signingKey).update(`${id}.${timestamp}.${raw}`).digest("base64")}`

const delivery = deliveryOf(body, (raw) => ({
  "webhook-id": "msg_2b7c1e0f8a",
  "webhook-timestamp": "1772361000",
  "webhook-signature": sign(key, "msg_2b7c1e0f8a", "1772361000", raw),
  "content-type": "application/json"
}))

verifiesSignatures({
  platform: "Etsy",
  verify: verifyEtsyWebhook,
  secrets,
  body,
  verified: {
    topic: "order.paid",
    dedupKey: "acme-etsy:etsy-webhook:msg_2b7c1e0f8a",
    deliveryId: "msg_2b7c1e0f8a",
    storeOrderId: "3401234567",
    triggeredAt: "2026-03-01T10:30:00Z"
  },
  delivery,
  signatureHeader: "webhook-signature",
  signedWith: (secret, raw) => ({
    "webhook-signature": sign(secret === "previous" ? oldKey : Buffer.from("guessed"), "msg_2b7c1e0f8a", "1772361000", raw)
  }),
  malformedSignatures: [
    "v1,bm90IGl0",
    // Only v1 signatures count.
    sign(key, "msg_2b7c1e0f8a", "1772361000", body).replace("v1,", "v2,")
  ],
  notJson: "event_type=order.paid"
})

describe("Etsy webhook verification (pure, Standard Webhooks)", () => {
  it("rejects a replay with a new timestamp, and a delivery without id or timestamp", () => {
    const signedOriginal = sign(key, "msg_2b7c1e0f8a", "1772361000", body)
    // The timestamp is signed: moving it forward to dodge a staleness check breaks the signature.
    expect(verdict(verifyEtsyWebhook(secrets, delivery({ "webhook-timestamp": "1772364600", "webhook-signature": signedOriginal })))).toBe(
      "bad_signature"
    )
    expect(verdict(verifyEtsyWebhook(secrets, delivery({ "webhook-id": undefined })))).toBe("missing_headers")
    expect(verdict(verifyEtsyWebhook(secrets, delivery({ "webhook-timestamp": "yesterday" })))).toBe("missing_headers")
  })

  it("takes any of several signatures", () => {
    const current = sign(key, "msg_2b7c1e0f8a", "1772361000", body)
    expect(verdict(verifyEtsyWebhook(secrets, delivery({ "webhook-signature": `v1,AAAA ${current}` })))).toBe("accepted")
    expect(offeredSignatures("v1,abc  v1a,zzz v1,def bare")).toEqual(["abc", "def", "bare"])
  })

  it("refuses another shop, and everything when no secret is configured", () => {
    const otherShop = body.replace(/48213795/g, "11111111")
    expect(verdict(verifyEtsyWebhook(secrets, delivery({}, otherShop)))).toBe("wrong_shop")
    expect(verdict(verifyEtsyWebhook({ storeKey: "acme-etsy", shopId: "48213795" }, delivery()))).toBe("bad_signature")
  })

  it("reads the envelope Etsy's webhook page publishes: the receipt and shop in `data`, the event id kept", () => {
    const envelope = (data: Record<string, unknown>) =>
      JSON.stringify({ event_type: "ORDER_PAID", event_id: "evt_01J9Z4", created_at: 1772360999, data })
    const verify = (raw: string) =>
      verifyEtsyWebhook(secrets, delivery({ "webhook-signature": sign(key, "msg_2b7c1e0f8a", "1772361000", raw) }, raw))
    const named = [
      { shop_id: 48213795, receipt_id: 3401234567 },
      { shop_id: "48213795", resource_url: "https://openapi.etsy.com/v3/application/shops/48213795/receipts/3401234567" },
      { shop_id: 48213795, receipt: { receipt_id: 3401234567, status: "paid" } }
    ]
    for (const data of named) {
      expect(Either.getOrThrow(verify(envelope(data)))).toMatchObject({
        topic: "ORDER_PAID",
        eventId: "evt_01J9Z4",
        storeOrderId: "3401234567",
        dedupKey: "acme-etsy:etsy-webhook:msg_2b7c1e0f8a"
      })
    }
    expect(verdict(verify(envelope({ shop_id: 11111111, receipt_id: 3401234567 })))).toBe("wrong_shop")
    // An event that names no receipt is still taken in; without a receipt the daemon pulls the shop.
    expect(Either.getOrThrow(verify(envelope({ shop_id: 48213795 }))).storeOrderId).toBeUndefined()
  })

  it("gives every retry of one message the same dedup key, and other messages other keys", () => {
    const keyOf = (id: string, timestamp: string) =>
      Either.getOrThrow(
        verifyEtsyWebhook(
          secrets,
          delivery({ "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": sign(key, id, timestamp, body) })
        )
      ).dedupKey
    expect(keyOf("msg_1", "1772361000")).toBe(keyOf("msg_1", "1772361300"))
    expect(keyOf("msg_1", "1772361000")).not.toBe(keyOf("msg_2", "1772361000"))
  })
})

describe("Etsy webhook deliveries from the simulator", () => {
  verifiesSimulatorDeliveries({
    title: "verifies real deliveries (the published envelope), rejects a forged one, recognises replays, and re-reads the receipt",
    start: startSimulator,
    connect: connectTo,
    path: "/webhooks/acme-etsy",
    subscriptions: (url) => [{ url }],
    raise: (sim) =>
      Effect.gen(function*() {
        const receipt = yield* admin<SimReceipt>(sim, "POST", "receipts", {})
        yield* admin(sim, "POST", `receipts/${receipt.receipt_id}/cancel`, {})
        return String(receipt.receipt_id)
      }),
    deliveries: 4,
    eachCopy: (verified, receiptId) => Effect.sync(() => expect(verified.storeOrderId).toBe(receiptId)),
    eachEvent: (verified, _receiptId, connector) =>
      Effect.gen(function*() {
        // Thin payload: the state that counts is read from the API.
        const order = Option.getOrThrow(yield* Effect.orDie(connector.getOrder(verified.storeOrderId!)))
        expect(order.cancelled).toBe(true)
      }),
    processed: (topics, _replays, connector) => {
      expect(connector.capabilities.webhookPayload).toBe("thin")
      expect(topics).toEqual(["ORDER_CANCELED", "ORDER_PAID"])
    },
    forge: (received, receiptId) => ({
      headers: received[0]!.headers,
      rawBody: Buffer.from(received[0]!.rawBody.toString("utf8").replace(receiptId, "3401234999"))
    })
  })

  it.scopedLive("has no webhooks without a webhook secret (non-commercial apps), and rejects every delivery", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const { webhookSecret: _, ...withoutSecret } = connectorConfig(sim)
      const http = yield* Layer.build(NodeHttpClient.layerUndici)
      const connector = yield* makeEtsyConnector(withoutSecret).pipe(Effect.provide(http))
      expect(connector.capabilities.webhookPayload).toBe("none")
      const result = connector.verifyWebhook(delivery())
      expect(Either.isLeft(result) && result.left.detail).toContain("no etsy webhookSecret is configured")
    }))
})
