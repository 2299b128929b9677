import { createHmac, timingSafeEqual } from "node:crypto"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startShopifySimulator, type RunningShopifySimulator } from "../../src/simulator/shopify/index.js"
import { simAdmin } from "../support/simAdmin.js"
import { type Received, webhookInbox } from "../support/webhookInbox.js"

// Signed webhook deliveries to a real receiver, with duplicates and reordering on demand.

let sim: RunningShopifySimulator
const inbox = webhookInbox("/webhooks/shopify")
const { answers, received } = inbox

const admin = (method: string, path: string, body?: unknown) => simAdmin(sim.url, method, path, body)

const verifies = (r: Received, secret: string): boolean => {
  const expected = createHmac("sha256", secret).update(r.raw).digest()
  const given = Buffer.from(String(r.headers["x-shopify-hmac-sha256"]), "base64")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const summary = (r: Received) => {
  const body = JSON.parse(r.raw.toString("utf8"))
  return { topic: r.headers["x-shopify-topic"], id: body.id, updatedAt: body.updated_at, webhookId: r.headers["x-shopify-webhook-id"] }
}

beforeAll(async () => {
  sim = await startShopifySimulator({ seed: 11, webhookSecret: "whsec_test" })
})
afterAll(async () => {
  await sim.close()
})
beforeEach(async () => {
  await admin("POST", "reset")
  for (const topic of ["orders/create", "orders/updated", "orders/cancelled"]) {
    await admin("POST", "webhooks/subscribe", { topic, address: inbox.url })
  }
})

describe("Shopify simulator: webhooks", () => {
  it("sends REST-shaped orders signed with base64 HMAC-SHA256 of the raw body", async () => {
    await admin("POST", "webhooks/settings", { autoDeliver: false })
    const order = await admin("POST", "orders", {
      lineItems: [{ sku: "TEE-BLK-M", quantity: 1, customAttributes: [{ key: "design_front", value: "https://x.test/f.png" }] }]
    })
    expect(await admin("POST", "webhooks/deliver", {})).toEqual({ sent: 1 })
    expect(received).toHaveLength(1)
    const delivery = received[0]!
    expect(verifies(delivery, "whsec_test")).toBe(true)
    expect(verifies(delivery, "another-secret")).toBe(false)
    expect(delivery.headers).toMatchObject({
      "x-shopify-topic": "orders/create",
      "x-shopify-shop-domain": "acme.myshopify.com",
      "x-shopify-api-version": "2026-10"
    })
    expect(delivery.headers["x-shopify-webhook-id"]).toBeTruthy()
    expect(delivery.headers["x-shopify-event-id"]).toBeTruthy()
    expect(Date.parse(String(delivery.headers["x-shopify-triggered-at"]))).not.toBeNaN()
    const body = JSON.parse(delivery.raw.toString("utf8"))
    expect(body).toMatchObject({
      id: Number(order.legacyResourceId),
      admin_graphql_api_id: order.id,
      name: order.name,
      line_items: [{ sku: "TEE-BLK-M", quantity: 1, properties: [{ name: "design_front", value: "https://x.test/f.png" }] }],
      shipping_address: { country_code: expect.stringMatching(/^[A-Z]{2}$/) }
    })
  })

  it("delivers automatically shortly after each event", async () => {
    await admin("POST", "orders", {})
    for (let i = 0; i < 1_500 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
    expect(received.map((r) => r.headers["x-shopify-topic"])).toEqual(["orders/create"])
  })

  it("sends duplicates of the same delivery and reorders on demand", async () => {
    await admin("POST", "webhooks/settings", { autoDeliver: false })
    const order = await admin("POST", "orders", {})
    await admin("PATCH", `orders/${order.legacyResourceId}`, { note: "gift" })
    await admin("POST", `orders/${order.legacyResourceId}/cancel`, { reason: "customer" })
    expect(await admin("POST", "webhooks/deliver", { reorder: true, duplicates: 1 })).toEqual({ sent: 8 })
    const topics = received.map((r) => summary(r).topic)
    expect(topics).toEqual([
      "orders/cancelled",
      "orders/cancelled",
      "orders/updated",
      "orders/updated",
      "orders/updated",
      "orders/updated",
      "orders/create",
      "orders/create"
    ])
    // each pair is one delivery sent twice; every copy verifies
    for (let i = 0; i < received.length; i += 2) {
      expect(summary(received[i]!).webhookId).toBe(summary(received[i + 1]!).webhookId)
      expect(received[i]!.raw.equals(received[i + 1]!.raw)).toBe(true)
    }
    expect(received.every((r) => verifies(r, "whsec_test"))).toBe(true)
    // the payload is the order as it was at its event: the older update arrives after the newer one
    const updates = received.filter((r) => summary(r).topic === "orders/updated").map((r) => Date.parse(summary(r).updatedAt))
    expect(updates[0]).toBeGreaterThan(updates[2]!)
    expect(JSON.parse(received[0]!.raw.toString()).cancelled_at).not.toBeNull()
  })

  it("sends a failed delivery again, same ids and body, until it is accepted", async () => {
    await admin("POST", "webhooks/settings", { autoDeliver: false, retries: 2, retryDelayMs: 30 })
    answers.push(500, 502)
    await admin("POST", "orders", {})
    await admin("POST", "webhooks/deliver", {})
    for (let i = 0; i < 1_500 && received.length < 3; i++) await new Promise((r) => setTimeout(r, 20))
    expect(received).toHaveLength(3)
    expect(new Set(received.map((r) => summary(r).webhookId)).size).toBe(1)
    const log = (await admin("GET", "webhooks")).deliveries
    expect(log.map((d: any) => [d.attempt, d.status])).toEqual([[1, 500], [2, 502], [3, 200]])
  })
})
