import { describe, expect, it } from "vitest"
import { getJson, podHeaders, post, sharedStack, daemonConfig } from "../support/pipeline.js"
import { startDaemon, statusOf, stopDaemons, waitFor } from "../support/pipeline.js"

describe("store edits after the draft", () => {
  const stack = sharedStack()

  it(
    "patches the draft's lines when the store edits them before checkout, and keeps a cancellation in front of a person even once shipped",
    async () => {
      const edited = await post(`${stack.shopify.url}/__sim/orders`, {
        financialStatus: "PAID",
        lineItems: [{
          sku: "UTS01-FOREST-S",
          title: "Tee",
          quantity: 3,
          price: "20.00",
          customAttributes: [{ key: "design_front", value: "https://cdn.example.com/d/a.png" }]
        }]
      })
      const cancelled = await post(`${stack.shopify.url}/__sim/orders`, {
        financialStatus: "PAID",
        lineItems: [{ sku: "UTS01-DARKHE-M", title: "Tee", quantity: 1, price: "20.00" }]
      })
      const { port, config } = await daemonConfig(stack)
      const daemon = await startDaemon(config, port)
      try {
        await waitFor(() => statusOf(port), (s) => (s.drafted ?? 0) === 2, 60_000)
        const ref = `demo-shopify:${edited.legacyResourceId}`
        const draftOf = async () => {
          const list = await (await fetch(`${stack.pod.url}/api/v3/orders/draft?filter.reference_ids=${encodeURIComponent(ref)}`, {
            headers: podHeaders
          })).json() as any
          return list.data?.[0] as { line_items: Array<{ quantity: number }> }
        }
        expect((await draftOf()).line_items[0]?.quantity).toBe(3)

        // The buyer gets one unit refunded: 2 left to make.
        await fetch(`${stack.shopify.url}/__sim/orders/${edited.legacyResourceId}`, {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ lineItems: [{ id: edited.lineItems[0].id, currentQuantity: 2 }] })
        })
        await post(`${stack.shopify.url}/__sim/orders/${cancelled.legacyResourceId}/cancel`, {})

        const draft = await waitFor(draftOf, (d) => d.line_items[0]?.quantity === 2, 60_000)
        expect(draft.line_items).toHaveLength(1)
        const status = await waitFor(() => statusOf(port), (s) => (s.cancel_pending ?? 0) === 1, 60_000)
        expect(status).toEqual({ drafted: 1, cancel_pending: 1 })
        // The POD service ships both anyway: the edited order is fulfilled, the cancelled one stays in front of a person.
        await post(`${stack.pod.url}/__sim/checkout-all`, { paid: true })
        await post(`${stack.pod.url}/__sim/ship-all`)
        const after = await waitFor(() => statusOf(port), (s) => (s.fulfilled ?? 0) === 1, 60_000)
        expect(after).toEqual({ fulfilled: 1, cancel_pending: 1 })
        const shop = await getJson(`${stack.shopify.url}/__sim/stats`)
        expect(shop.fulfillmentsByOrder[String(cancelled.legacyResourceId)]).toBeUndefined()
        const pod = await getJson(`${stack.pod.url}/__sim/stats`)
        expect(pod.duplicateReferenceIds).toEqual([])
      } finally {
        await stopDaemons(daemon)
      }
    },
    180_000
  )
})
