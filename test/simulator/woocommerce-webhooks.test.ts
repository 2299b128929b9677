import { createHmac } from "node:crypto"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startWooCommerceSimulator, type RunningWooCommerceSimulator } from "../../src/simulator/woocommerce/index.js"
import { simAdmin } from "../support/simAdmin.js"
import { type Received, webhookInbox } from "../support/webhookInbox.js"

// WooCommerce webhook deliveries to a real receiver: the unsigned ping, signatures, Delivery-ID
// collisions within a second, order.deleted, duplicates, reordering, disabling after failures.

let sim: RunningWooCommerceSimulator
const inbox = webhookInbox("/webhooks/acme-woo")
const { answers, received } = inbox
let simTime = Date.UTC(2026, 2, 2, 15, 0, 0)

const admin = (method: string, path: string, body?: unknown) => simAdmin(sim.url, method, path, body)

const signed = (r: Received, secret: string) =>
  r.headers["x-wc-webhook-signature"] === createHmac("sha256", secret).update(r.raw).digest("base64")

beforeAll(async () => {
  sim = await startWooCommerceSimulator({ seed: 3, now: () => simTime, webhookSecret: "whsec_woo" })
})
afterAll(async () => {
  await sim.close()
})
beforeEach(async () => {
  simTime = Date.UTC(2026, 2, 2, 15, 0, 0)
  await admin("POST", "reset")
  await admin("POST", "webhooks/settings", { autoDeliver: false })
})

describe("WooCommerce simulator webhooks", () => {
  it("pings a new webhook unsigned with webhook_id=<id>, then signs every delivery", async () => {
    const hook = await admin("POST", "webhooks/subscribe", { topic: "order.updated", address: inbox.url })
    expect(received).toHaveLength(1)
    expect(received[0]!.raw.toString()).toBe(`webhook_id=${hook.id}`)
    expect(Object.keys(received[0]!.headers).filter((h) => h.startsWith("x-wc-"))).toEqual([])
    const order = await admin("POST", "orders", {})
    await admin("PATCH", `orders/${order.id}`, { customer_note: "gift" })
    await admin("POST", "webhooks/deliver", {})
    const delivery = received[1]!
    expect(signed(delivery, "whsec_woo")).toBe(true)
    expect(delivery.headers).toMatchObject({
      "x-wc-webhook-topic": "order.updated",
      "x-wc-webhook-resource": "order",
      "x-wc-webhook-event": "updated",
      "x-wc-webhook-id": String(hook.id),
      "x-wc-webhook-source": `${sim.url}/`,
      "content-type": "application/json"
    })
    expect(JSON.parse(delivery.raw.toString())).toMatchObject({ id: order.id, customer_note: "gift" })
  })

  it("gives two deliveries of one webhook in the same second the same Delivery-ID", async () => {
    await admin("POST", "webhooks/subscribe", { topic: "order.created", address: inbox.url })
    await admin("POST", "orders", {})
    await admin("POST", "orders", {})
    simTime += 1000
    await admin("POST", "orders", {})
    await admin("POST", "webhooks/deliver", {})
    const ids = received.slice(1).map((r) => r.headers["x-wc-webhook-delivery-id"])
    expect(ids[0]).toBe(ids[1])
    expect(ids[2]).not.toBe(ids[0])
    expect(new Set(received.slice(1).map((r) => JSON.parse(r.raw.toString()).id)).size).toBe(3)
  })

  it("sends order.deleted with the id only, duplicates and newest-first on demand", async () => {
    await admin("POST", "webhooks/subscribe", { topic: "order.deleted", address: inbox.url })
    await admin("POST", "webhooks/subscribe", { topic: "order.created", address: inbox.url })
    const order = await admin("POST", "orders", {})
    await admin("POST", `orders/${order.id}/trash`)
    received.length = 0
    await admin("POST", "webhooks/deliver", { duplicates: 1, reorder: true })
    expect(received.map((r) => [r.headers["x-wc-webhook-topic"], r.raw.toString()])).toEqual([
      ["order.deleted", JSON.stringify({ id: order.id })],
      ["order.deleted", JSON.stringify({ id: order.id })],
      ["order.created", expect.stringContaining(`"id":${order.id}`)],
      ["order.created", expect.stringContaining(`"id":${order.id}`)]
    ])
  })

  it("disables a webhook after more than 5 consecutive failed deliveries", async () => {
    const hook = await admin("POST", "webhooks/subscribe", { topic: "order.created", address: inbox.url })
    answers.push(...Array.from({ length: 10 }, () => 500))
    for (let i = 0; i < 8; i++) await admin("POST", "orders", {})
    await admin("POST", "webhooks/deliver", {})
    const { webhooks } = await admin("GET", "webhooks")
    expect(webhooks.find((w: any) => w.id === hook.id)).toMatchObject({ status: "disabled" })
    // Six failures counted, the seventh disabled it; nothing was sent after that.
    expect(received).toHaveLength(1 + 7)
  })

  it("creates webhooks through the REST API, without a secret falling back to WooCommerce's derived one", async () => {
    const response = await fetch(`${sim.url}/wp-json/wc/v3/webhooks`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Basic ${Buffer.from(`${sim.consumerKey}:${sim.consumerSecret}`).toString("base64")}`
      },
      body: JSON.stringify({ name: "podsync", topic: "order.created", delivery_url: inbox.url })
    })
    expect(response.status).toBe(201)
    const hook = (await response.json()) as any
    expect(hook).toMatchObject({ status: "active", topic: "order.created", resource: "order", event: "created", delivery_url: inbox.url })
    await admin("POST", "orders", {})
    await admin("POST", "webhooks/deliver", {})
    expect(signed(received[1]!, "whsec_woo")).toBe(false)
  })
})
