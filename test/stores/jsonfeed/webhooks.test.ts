import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { verifyJsonFeedWebhook } from "../../../src/stores/jsonfeed/JsonFeedWebhooks.js"
import { isWithinReplayWindow } from "../../../src/stores/WebhookAdmission.js"
import { admin, connectTo, eventually, type SimOrder, startSimulator } from "./harness.js"
import { deliveryOf, receiver, rotatingSecrets, verifiesSignatures, verifiesSimulatorDeliveries } from "../contract/WebhookContract.js"
import { verdictOf as verdict } from "../contract/WebhookContract.js"

const secrets = rotatingSecrets({ storeKey: "acme-feed" })

const envelope = {
  delivery_id: "dlv_7c1f4e",
  timestamp: 1772357112,
  type: "order.updated",
  order_id: "ord_1042",
  updated_at: "2026-03-01T09:45:12.345+01:00"
}
const body = JSON.stringify(envelope)

/** What a seller's server computes: lowercase hex HMAC-SHA256 of the raw body. */
const sign = (secret: string, raw: string) => `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`

const delivery = deliveryOf(body, (raw) => ({
  "content-type": "application/json",
  "x-podsync-signature": sign("current-secret", raw),
  "x-podsync-delivery": "dlv_7c1f4e",
  "x-podsync-timestamp": "1772357112"
}))

verifiesSignatures({
  platform: "JSON feed",
  verify: verifyJsonFeedWebhook,
  secrets,
  body,
  verified: {
    topic: "order.updated",
    dedupKey: "acme-feed:jsonfeed-delivery:dlv_7c1f4e",
    deliveryId: "dlv_7c1f4e",
    storeOrderId: "ord_1042",
    orderUpdatedAt: "2026-03-01T08:45:12.345Z",
    triggeredAt: "2026-03-01T09:25:12.000Z"
  },
  delivery,
  signatureHeader: "x-podsync-signature",
  signedWith: (secret, raw) => ({ "x-podsync-signature": sign(secret === "previous" ? "old-secret" : "guessed", raw) }),
  malformedSignatures: [
    sign("current-secret", body).slice(0, 40),
    // Base64 where the contract says hex.
    createHmac("sha256", "current-secret").update(body).digest("base64")
  ],
  notJson: "delivery_id=dlv_7c1f4e"
})

describe("JSON feed webhook verification (pure)", () => {
  it("accepts upper-case hex", () => {
    const upper = delivery({ "x-podsync-signature": sign("current-secret", body).toUpperCase() })
    expect(verdict(verifyJsonFeedWebhook(secrets, upper))).toBe("accepted")
  })

  it("refuses a replay re-dated or re-labelled in its headers: they must match the signed body", () => {
    expect(verdict(verifyJsonFeedWebhook(secrets, delivery({ "x-podsync-timestamp": "1772360000" })))).toBe("bad_signature")
    expect(verdict(verifyJsonFeedWebhook(secrets, delivery({ "x-podsync-delivery": "dlv_other" })))).toBe("bad_signature")
    expect(verdict(verifyJsonFeedWebhook(secrets, delivery({ "x-podsync-timestamp": undefined })))).toBe("missing_headers")
  })

  it("refuses a signed JSON body that names no order, and accepts a ping", () => {
    const noOrder = JSON.stringify({ ...envelope, order_id: undefined })
    expect(verdict(verifyJsonFeedWebhook(secrets, delivery({ "x-podsync-signature": sign("current-secret", noOrder) }, noOrder)))).toBe(
      "malformed_body"
    )
    const ping = JSON.stringify({ delivery_id: "dlv_7c1f4e", timestamp: 1772357112, type: "ping" })
    expect(verdict(verifyJsonFeedWebhook(secrets, delivery({ "x-podsync-signature": sign("current-secret", ping) }, ping)))).toBe(
      "accepted"
    )
  })

  it("bounds replays by the signed timestamp: five minutes either way", () => {
    const verified = Either.getOrThrow(verifyJsonFeedWebhook(secrets, delivery()))
    const sentAt = 1772357112 * 1000
    expect(isWithinReplayWindow(verified, sentAt + 299_000)).toBe(true)
    expect(isWithinReplayWindow(verified, sentAt - 299_000)).toBe(true)
    expect(isWithinReplayWindow(verified, sentAt + 301_000)).toBe(false)
    expect(isWithinReplayWindow(verified, sentAt - 301_000)).toBe(false)
    expect(isWithinReplayWindow({}, sentAt)).toBe(false)
  })
})

describe("JSON feed webhook deliveries from the simulator", () => {
  verifiesSimulatorDeliveries({
    title: "verifies real deliveries, rejects a forged one and recognises duplicates by their dedup key",
    start: startSimulator,
    connect: connectTo,
    path: "/webhooks/acme-feed",
    subscriptions: (address) => [{ address }],
    raise: (sim) =>
      Effect.gen(function*() {
        const order = yield* admin<SimOrder>(sim, "POST", "orders", {})
        yield* admin(sim, "PATCH", `orders/${order.id}`, { note: "gift" })
        yield* admin(sim, "POST", `orders/${order.id}/cancel`, {})
        yield* admin(sim, "POST", "webhooks/ping")
        return order.id
      }),
    deliveries: 8,
    eachCopy: (verified, orderId) =>
      Effect.sync(() => {
        if (verified.topic !== "ping") expect(verified.storeOrderId).toBe(orderId)
      }),
    processed: (topics) => expect(topics).toEqual(["ping", "order.cancelled", "order.updated", "order.created"]),
    forge: (received) => ({
      headers: received[0]!.headers,
      rawBody: Buffer.from(received[0]!.rawBody.toString("utf8").replace("ping", "order.created"))
    })
  })

  it.scopedLive("a retried delivery is re-stamped and re-signed, and keeps its dedup key", () =>
    Effect.gen(function*() {
      let simTime = Date.UTC(2026, 2, 1, 9, 0, 0)
      const sim = yield* startSimulator({ now: () => simTime })
      // Ten seconds pass at the storefront between the attempt and its retry.
      const inbox = yield* receiver("/webhooks/acme-feed", 1, () => (simTime += 10_000))
      yield* admin(sim, "POST", "webhooks/subscribe", { address: inbox.url })
      yield* admin(sim, "POST", "webhooks/settings", { autoDeliver: true, delayMs: 0, retries: 1, retryDelayMs: 20 })
      yield* admin(sim, "POST", "orders", {})
      yield* eventually(Effect.sync(() => inbox.received.length), (n) => n === 2, "the delivery and its retry")
      const connector = yield* connectTo(sim)
      const [first, retry] = inbox.received.map((r) => Either.getOrThrow(connector.verifyWebhook(r)))
      expect(retry!.dedupKey).toBe(first!.dedupKey)
      expect([first!.triggeredAt, retry!.triggeredAt]).toEqual(["2026-03-01T09:00:00.000Z", "2026-03-01T09:00:10.000Z"])
      expect(inbox.received[1]!.headers["x-podsync-signature"]).not.toBe(inbox.received[0]!.headers["x-podsync-signature"])
    }))
})
