import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningJsonFeedSimulator, startJsonFeedSimulator } from "../../src/simulator/jsonfeed/index.js"
import { freePort, getJson, post } from "../support/pipeline.js"
import { crashThenFinish, demoLine, podOutcome, type StoreStack, startStoreStack, writeStoreDaemonConfig } from "../support/stores.js"

const ORDERS = 20
const KILLS = 2
const STORE_KEY = "acme-feed"

interface AdminOrder {
  readonly id: string
  readonly fulfillments: ReadonlyArray<{ readonly tracking: { readonly number: string }; readonly notify_customer: boolean }>
}

describe("JSON feed end to end: orders → drafts → shipped → tracking in the storefront", () => {
  let stack: StoreStack
  let feed: RunningJsonFeedSimulator
  beforeAll(async () => {
    stack = await startStoreStack("stores-feed")
    feed = await startJsonFeedSimulator()
  })
  afterAll(async () => {
    await feed?.close()
    await stack?.close()
  })

  it(`fulfils ${ORDERS} orders exactly once, with the POD tracking, through ${KILLS} kill -9s and dropped fulfilment calls`, async () => {
    const port = await freePort()
    const config = writeStoreDaemonConfig(stack, port, {
      key: STORE_KEY,
      platform: "jsonfeed",
      podStoreId: "store-acme-feed",
      // Paced at half the storefront's 20 requests a second (the default, 5, is for a shared production host).
      section: { baseUrl: feed.baseUrl, token: feed.token, webhookSecret: feed.webhookSecret, requestsPerSecond: 10 }
    })
    // The fulfilment is stored (and the buyer emailed) but the answer is lost: the retry must come back
    // with the same Idempotency-Key or find the fulfilment by reading the order's fulfilments.
    await post(`${feed.url}/__sim/faults`, { operation: "createFulfillment", kind: "commitThenDrop", probability: 0.3 })

    // The first three draft creations reach the POD service and lose their answer: each is found by its
    // reference id, never posted twice.
    await post(`${stack.pod.url}/__sim/faults`, { route: "POST /api/v3/orders/draft", kind: "commitThenDrop", count: 3 })

    const ids: Array<string> = []
    for (let i = 0; i < ORDERS; i++) {
      const line = demoLine(i)
      const order = await post(`${feed.url}/__sim/orders`, {
        financialStatus: "paid",
        lines: [{ sku: line.sku, title: "Podsync Tee", quantity: line.quantity, unitPrice: "24.00", attributes: [{ key: "design_front", value: line.design }] }]
      })
      ids.push(String(order.id))
    }

    const { final, timeline } = await crashThenFinish(stack.pod.url, config, port, { orders: ORDERS, kills: KILLS, timeoutMs: 200_000 })
    console.info(`jsonfeed: ${timeline}`)
    expect(final).toEqual({ fulfilled: ORDERS })

    const pod = await podOutcome(stack.pod)
    const references = ids.map((id) => `${STORE_KEY}:${id}`)
    expect(pod.duplicateReferenceIds).toEqual([])
    expect(pod.draftsByReferenceId).toEqual(Object.fromEntries(references.map((r) => [r, 1])))
    expect(pod.connectionsDropped).toBe(3)
    // The buyer's design came through as the line's attribute where the mapping asks for it.
    expect(ids.map((id) => pod.designsByReferenceId.get(`${STORE_KEY}:${id}`))).toEqual(ids.map((_, i) => demoLine(i).printed))

    // Each order: one fulfilment carrying the POD's tracking number, sent with the buyer notified.
    const orders = new Map(((await getJson(`${feed.url}/__sim/orders`)).orders as Array<AdminOrder>).map((o) => [o.id, o]))
    for (const id of ids) {
      const tracking = pod.trackingsByReferenceId.get(`${STORE_KEY}:${id}`)
      expect(tracking, `POD order for ${id}`).toHaveLength(1)
      const fulfillments = orders.get(id)!.fulfillments
      expect(fulfillments.map((f) => f.tracking.number), `order ${id}`).toEqual(tracking)
      expect(fulfillments[0]!.notify_customer, `order ${id}`).toBe(true)
    }
    const stats = await getJson(`${feed.url}/__sim/stats`)
    expect(stats.fulfillmentsByOrder).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
    expect(stats.buyerEmailsByOrder).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
    // The faults did fire: pushes went through the read-back path, not around it.
    expect(stats.faultsInjected.commitThenDrop).toBeGreaterThan(0)
  }, 240_000)
})
