import { createHmac } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createOrders, driveUntil, exited, freePort, getJson, post, type Stack, startDaemon, startStack, statusOf, writeDaemonConfig } from "../support/pipeline.js"

const ORDERS = 20

describe("the pipeline driven by webhooks, both directions", () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack()
  })
  afterAll(async () => stack.close())

  it("acts once per event on duplicated and reordered deliveries, and rejects forgeries before any work", async () => {
    const port = await freePort()
    // Polling slowed to every 30 s: orders arrive and move on webhooks.
    const config = writeDaemonConfig(stack, port, { pull: "*/30 * * * * *", reconcile: "*/30 * * * * *", podWebhooks: true })
    const daemon = await startDaemon(config, port)
    try {
      const hook = `http://127.0.0.1:${port}/webhooks/demo-shopify`
      for (const topic of ["orders/create", "orders/updated", "orders/cancelled"]) {
        await post(`${stack.shopify.url}/__sim/webhooks/subscribe`, { topic, address: hook })
      }
      await post(`${stack.shopify.url}/__sim/webhooks/settings`, { duplicates: 2, reorder: true, delayMs: 50 })

      // Forged deliveries: rejected with 401, nothing done.
      const body = JSON.stringify({ id: 1, admin_graphql_api_id: "gid://shopify/Order/1" })
      const forgedStore = await fetch(hook, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "X-Shopify-Hmac-Sha256": createHmac("sha256", "not-the-secret").update(body).digest("base64"), "X-Shopify-Topic": "orders/create", "X-Shopify-Webhook-Id": "forged-1", "X-Shopify-Shop-Domain": "acme.myshopify.com" }
      })
      expect(forgedStore.status).toBe(401)
      const forgedPod = await fetch(`http://127.0.0.1:${port}/webhooks/pod`, {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json", "X-Connect-Timestamp": String(Math.floor(Date.now() / 1000)), "X-Connect-Nonce": "n-1", "X-Connect-Signature": "00", "X-Connect-Client-Key": "sim-webhook-client-key" }
      })
      expect(forgedPod.status).toBe(401)

      const ids = await createOrders(stack, ORDERS)
      // POD deliveries duplicated and reordered too.
      const final = await driveUntil(stack, async () => {
        await post(`${stack.pod.url}/__sim/webhooks/deliver`, { duplicates: 1, reorder: true }).catch(() => undefined)
        return statusOf(port)
      }, (s) => (s.fulfilled ?? 0) === ORDERS, 120_000)
      expect(final).toEqual({ fulfilled: ORDERS })

      const pod = await getJson(`${stack.pod.url}/__sim/stats`)
      expect(pod.duplicateReferenceIds).toEqual([])
      // Status events are answered together by list calls; only package (tracking) events read an order whole:
      // about one whole read per order (two when a package event is delivered twice), not one per event.
      const requests = pod.requests as Record<string, number>
      expect(requests["GET /api/v3/orders/:order_id"] ?? 0).toBeLessThanOrEqual(ORDERS * 2)
      expect(Object.keys(pod.draftsByReferenceId)).toHaveLength(ORDERS)
      const shop = await getJson(`${stack.shopify.url}/__sim/stats`)
      expect(Object.keys(shop.fulfillmentsByOrder).sort()).toEqual([...ids].sort())
      expect(Object.values(shop.fulfillmentsByOrder).every((n) => n === 1)).toBe(true)
      // A webhook naming its order makes the daemon read that order alone, not pull the store's overlap window.
      const operations = shop.operations as Record<string, number>
      expect(operations["PodsyncOrder"] ?? 0).toBeGreaterThanOrEqual(ORDERS)
      // Whole-store pulls: the one at start and the 30 s schedule's, not one per delivery.
      expect(operations["PodsyncOrdersPage"] ?? 0).toBeLessThan(ORDERS / 2)
      // The webhooks did the work: deliveries reached the daemon on both sides.
      const podDeliveries = (await getJson(`${stack.pod.url}/__sim/webhooks/deliveries`)) as Array<{ status: number | null; topic: string }>
      const answers: Record<string, number> = {}
      for (const d of podDeliveries) answers[`${d.topic} ${d.status}`] = (answers[`${d.topic} ${d.status}`] ?? 0) + 1
      // Every genuine delivery that got an answer was accepted (duplicates and replays answer 200 too).
      expect(Object.keys(answers).filter((k) => !k.endsWith(" 200") && !k.endsWith(" null"))).toEqual([])
      // How many events the POD service sends before the run ends depends on timing; that they arrive and are accepted does not.
      expect(podDeliveries.filter((d) => d.status === 200).length).toBeGreaterThan(0)
    } finally {
      daemon.kill("SIGTERM")
      await exited(daemon)
    }
  }, 240_000)
})
