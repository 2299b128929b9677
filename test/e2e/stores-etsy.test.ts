import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningEtsySimulator, startEtsySimulator } from "../../src/simulator/etsy/index.js"
import { freePort, getJson, post } from "../support/pipeline.js"
import { crashThenFinish, demoLine, podOutcome, type StoreStack, startStoreStack, writeStoreDaemonConfig } from "../support/stores.js"

const ORDERS = 20
const KILLS = 2
const STORE_KEY = "acme-etsy"

interface AdminReceipt {
  readonly receipt_id: number
  readonly status: string
  readonly is_shipped: boolean
  readonly shipments: ReadonlyArray<{ readonly tracking_code: string }>
}

describe("Etsy end to end: receipts → drafts → shipped → tracking in the shop", () => {
  let stack: StoreStack
  let etsy: RunningEtsySimulator
  beforeAll(async () => {
    // Etsy buyers answer the listing's Personalization question with their design; the demo mapping's
    // {{attr design_front}} cells read that answer instead.
    stack = await startStoreStack("stores-etsy", (csv) => csv.replaceAll("{{attr design_front}}", "{{attr Personalization}}"))
    etsy = await startEtsySimulator()
  })
  afterAll(async () => {
    await etsy?.close()
    await stack?.close()
  })

  it(`ships ${ORDERS} receipts exactly once, with the POD tracking, through ${KILLS} kill -9s and dropped shipment calls`, async () => {
    const port = await freePort()
    const config = writeStoreDaemonConfig(stack, port, {
      key: STORE_KEY,
      platform: "etsy",
      podStoreId: "store-acme-etsy",
      section: {
        shopId: String(etsy.shopId),
        keystring: etsy.keystring,
        sharedSecret: etsy.sharedSecret,
        refreshToken: etsy.refreshToken,
        baseUrl: etsy.url
      }
    })
    // createReceiptShipment emails the buyer on every call: now and then it commits and loses its answer,
    // and the retry must find the shipment on the receipt instead of creating (and emailing) a second one.
    await post(`${etsy.url}/__sim/faults`, { operation: "createReceiptShipment", kind: "commitThenDrop", probability: 0.3 })

    // The first three draft creations reach the POD service and lose their answer: each is found by its
    // reference id, never posted twice.
    await post(`${stack.pod.url}/__sim/faults`, { route: "POST /api/v3/orders/draft", kind: "commitThenDrop", count: 3 })

    const ids: Array<string> = []
    for (let i = 0; i < ORDERS; i++) {
      const line = demoLine(i)
      const receipt = await post(`${etsy.url}/__sim/receipts`, {
        status: "paid",
        transactions: [{
          title: "Podsync Tee",
          sku: line.sku,
          quantity: line.quantity,
          price_cents: 2400,
          variations: [{ formatted_name: "Size", formatted_value: "S", property_id: 100 }],
          personalization: line.design
        }]
      })
      ids.push(String(receipt.receipt_id))
    }

    const { final, timeline } = await crashThenFinish(stack.pod.url, config, port, { orders: ORDERS, kills: KILLS, timeoutMs: 200_000 })
    console.info(`etsy: ${timeline}`)
    expect(final).toEqual({ fulfilled: ORDERS })

    const pod = await podOutcome(stack.pod)
    const references = ids.map((id) => `${STORE_KEY}:${id}`)
    expect(pod.duplicateReferenceIds).toEqual([])
    expect(pod.draftsByReferenceId).toEqual(Object.fromEntries(references.map((r) => [r, 1])))
    expect(pod.connectionsDropped).toBe(3)
    // The buyer's design came through as the Personalization answer where the mapping asks for it.
    expect(ids.map((id) => pod.designsByReferenceId.get(`${STORE_KEY}:${id}`))).toEqual(ids.map((_, i) => demoLine(i).printed))

    // Each receipt: shipped, with one shipment carrying the POD's tracking number.
    const receipts = new Map(((await getJson(`${etsy.url}/__sim/receipts`)).receipts as Array<AdminReceipt>).map((r) => [String(r.receipt_id), r]))
    for (const id of ids) {
      const tracking = pod.trackingsByReferenceId.get(`${STORE_KEY}:${id}`)
      expect(tracking, `POD order for ${id}`).toHaveLength(1)
      const receipt = receipts.get(id)!
      expect({ status: receipt.status, shipped: receipt.is_shipped }, `receipt ${id}`).toEqual({ status: "completed", shipped: true })
      expect(receipt.shipments.map((s) => s.tracking_code), `receipt ${id}`).toEqual(tracking)
    }
    const stats = await getJson(`${etsy.url}/__sim/stats`)
    expect(stats.shipmentsByReceipt).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
    // Etsy emails the buyer with every shipment: once per receipt means no shipment was repeated.
    expect(stats.buyerEmailsByReceipt).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
    // The faults did fire: pushes went through the read-back path, not around it.
    expect(stats.faultsInjected.commitThenDrop).toBeGreaterThan(0)
    // The connector paced itself inside Etsy's per-second quota, restarts included.
    expect(stats.throttled).toBe(0)
  }, 240_000)
})
