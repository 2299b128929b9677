import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningWooCommerceSimulator, startWooCommerceSimulator } from "../../src/simulator/woocommerce/index.js"
import { freePort, getJson, post } from "../support/pipeline.js"
import { crashThenFinish, demoLine, podOutcome, type StoreStack, startStoreStack, writeStoreDaemonConfig } from "../support/stores.js"

const ORDERS = 20
const KILLS = 2
const STORE_KEY = "acme-woo"

interface AdminOrder {
  readonly id: number
  readonly status: string
  readonly shipment_trackings: ReadonlyArray<{ readonly tracking_number: string }>
  readonly emails: ReadonlyArray<{ readonly type: string; readonly trackingNumbers: ReadonlyArray<string> }>
  readonly notes: ReadonlyArray<{ readonly note: string; readonly customer_note: boolean }>
}

describe("WooCommerce end to end: orders → drafts → shipped → tracking in the store", () => {
  let stack: StoreStack
  let woo: RunningWooCommerceSimulator
  beforeAll(async () => {
    stack = await startStoreStack("stores-woo")
    woo = await startWooCommerceSimulator()
  })
  afterAll(async () => {
    await woo?.close()
    await stack?.close()
  })

  it(`completes ${ORDERS} orders exactly once, with the POD tracking, through ${KILLS} kill -9s and dropped tracking pushes`, async () => {
    const port = await freePort()
    const config = writeStoreDaemonConfig(stack, port, {
      key: STORE_KEY,
      platform: "woocommerce",
      podStoreId: "store-acme-woo",
      section: {
        url: woo.url,
        consumerKey: woo.consumerKey,
        consumerSecret: woo.consumerSecret,
        webhookSecret: woo.webhookSecret,
        // Politeness tuned for a local site; the default (1 s between requests) would stretch the run to minutes.
        minRequestIntervalMs: 50
      }
    })
    // Both writes of a push commit and then lose their answer now and then: the tracking item and the
    // PUT that completes the order (and emails the buyer). The retry must read them back, not repeat them.
    await post(`${woo.url}/__sim/faults`, { operation: "trackings.create", kind: "commitThenDrop", probability: 0.3 })
    await post(`${woo.url}/__sim/faults`, { operation: "orders.update", kind: "commitThenDrop", probability: 0.3 })

    // The first three draft creations reach the POD service and lose their answer: each is found by its
    // reference id, never posted twice.
    await post(`${stack.pod.url}/__sim/faults`, { route: "POST /api/v3/orders/draft", kind: "commitThenDrop", count: 3 })

    const ids: Array<string> = []
    for (let i = 0; i < ORDERS; i++) {
      const line = demoLine(i)
      // A product add-ons plugin keeps the buyer's design in the line item meta, next to the variation attributes.
      const order = await post(`${woo.url}/__sim/orders`, {
        status: "processing",
        lineItems: [{
          sku: line.sku,
          name: "Podsync Tee",
          quantity: line.quantity,
          price: "24.00",
          meta: [{ key: "pa_size", value: "s" }, { key: "design_front", value: line.design }]
        }]
      })
      ids.push(String(order.id))
    }

    const { final, timeline } = await crashThenFinish(stack.pod.url, config, port, { orders: ORDERS, kills: KILLS, timeoutMs: 200_000 })
    console.info(`woocommerce: ${timeline}`)
    expect(final).toEqual({ fulfilled: ORDERS })

    // One draft per store order at the POD service, each shipped with one tracking number.
    const pod = await podOutcome(stack.pod)
    const references = ids.map((id) => `${STORE_KEY}:${id}`)
    expect(pod.duplicateReferenceIds).toEqual([])
    expect(pod.draftsByReferenceId).toEqual(Object.fromEntries(references.map((r) => [r, 1])))
    expect(pod.connectionsDropped).toBe(3)
    // The buyer's design came through as the line's attribute where the mapping asks for it.
    expect(ids.map((id) => pod.designsByReferenceId.get(`${STORE_KEY}:${id}`))).toEqual(ids.map((_, i) => demoLine(i).printed))

    // Each order: completed, one Shipment Tracking item with the POD's number, one Completed email listing it.
    const orders = new Map(((await getJson(`${woo.url}/__sim/orders`)).orders as Array<AdminOrder>).map((o) => [String(o.id), o]))
    for (const id of ids) {
      const tracking = pod.trackingsByReferenceId.get(`${STORE_KEY}:${id}`)
      expect(tracking, `POD order for ${id}`).toHaveLength(1)
      const order = orders.get(id)!
      expect(order.status, `order ${id}`).toBe("completed")
      expect(order.shipment_trackings.map((t) => t.tracking_number), `order ${id}`).toEqual(tracking)
      const completed = order.emails.filter((e) => e.type === "customer_completed_order")
      expect(completed, `order ${id}`).toHaveLength(1)
      expect(completed[0]!.trackingNumbers, `order ${id}`).toEqual(tracking)
      // podsync's own notes (the draft it created) are private; the tracking went to the extension, not a note.
      expect(order.notes.filter((n) => n.customer_note || n.note.startsWith("Shipped by podsync")), `order ${id}`).toEqual([])
    }
    const stats = await getJson(`${woo.url}/__sim/stats`)
    expect(stats.trackingsByOrder).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
    expect(stats.completedEmailsByOrder).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
    // The only other email is the Processing one WooCommerce sent when the buyer paid.
    expect(stats.buyerEmailsByOrder).toEqual(Object.fromEntries(ids.map((id) => [id, 2])))
    // The faults did fire: pushes went through the read-back path, not around it.
    expect(stats.faultsInjected.commitThenDrop).toBeGreaterThan(0)
  }, 240_000)
})
