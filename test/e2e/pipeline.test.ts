import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { podsync } from "../support/cli.js"
import { createOrders, driveUntil, expectEachOrderOnce, getJson, post, sharedStack, daemonConfig } from "../support/pipeline.js"
import { startDaemon, statusOf, stopDaemons } from "../support/pipeline.js"

describe("the pipeline, daemon against the simulators", () => {
  const stack = sharedStack()

  // No POD webhooks here: polling alone, from list answers in the published short form
  // (the primary tracking as `tracking_number`), takes every order to fulfilled.
  it(
    "takes 200 Shopify orders to 200 drafts and 200 fulfillments with the right tracking, each exactly once, by polling alone",
    async () => {
      const { port, config } = await daemonConfig(stack)
      const ids = await createOrders(stack, 200)
      const daemon = await startDaemon(config, port)
      try {
        const final = await driveUntil(stack, () => statusOf(port), (s) => (s.fulfilled ?? 0) === 200, 420_000)
        expect(final).toEqual({ fulfilled: 200 })

        const { pod, shop } = await expectEachOrderOnce(stack, ids)
        expect(Object.values(pod.draftsByReferenceId).every((n) => n === 1)).toBe(true)
        expect(pod.rejected429).toBe(0)
        expect(Object.values(shop.notificationsByOrder).every((n) => n === 1)).toBe(true)
        // Orders claimed together reach the store together: fulfilments and annotations go many to a request.
        const requests = (...names: Array<string>) => names.reduce((n, name) => n + (shop.operations[name] ?? 0), 0)
        expect(shop.mutations.fulfillmentCreate).toBe(200)
        expect(requests("PodsyncFulfillmentCreateMany", "PodsyncFulfillmentCreate")).toBeLessThanOrEqual(50)
        expect(requests("PodsyncFulfillmentStates", "PodsyncFulfillmentState")).toBeLessThanOrEqual(60)
        expect(requests("PodsyncAnnotateMany", "PodsyncAnnotate")).toBeLessThanOrEqual(50)

        // The tracking in the store is the one the POD service shipped with.
        const sample = await getJson(`${stack.shopify.url}/__sim/orders/${ids[17]}`)
        const podOrder = (await getJson(`${stack.pod.url}/__sim/stats`)).orders
        expect(podOrder).toBe(200)
        const story = await podsync(["explain", `demo-shopify:${ids[17]}`, "--config", config])
        expect(story.stdout).toContain("fulfilled")
        // What the seller sees in Shopify names the same order.
        expect((await podsync(["explain", sample.name, "--config", config])).stdout).toBe(story.stdout)
        // Our own fulfillment changes what is left to ship: that is not a store edit for a person.
        expect(story.stdout).not.toContain("by hand")
        const tracking = /^ {2}tracking (\S+)/m.exec(story.stdout)?.[1]
        expect(tracking).toBeDefined()
        expect(JSON.stringify(sample.fulfillments)).toContain(tracking!)
        const listed = await fetch(`${stack.pod.url}/api/v3/orders?filter.reference_ids=${encodeURIComponent(`demo-shopify:${ids[17]}`)}`, {
          headers: { "X-Gearment-Client-Key": "sim-client-key", "X-Gearment-Client-Secret": "sim-client-secret" }
        }).then((r) => r.json()) as { data: Array<{ tracking_number: string }> }
        expect(listed.data[0]!.tracking_number).toBe(tracking)
      } finally {
        await stopDaemons(daemon)
      }
    },
    480_000
  )

  it("holds an order with an unmatched SKU, and drafts it once a mapping row is appended", async () => {
    const { port, config } = await daemonConfig(stack, { name: "unmatched" })
    await post(`${stack.shopify.url}/__sim/orders`, {
      financialStatus: "PAID",
      lineItems: [{
        sku: "MUG-11OZ-WHT",
        title: "Mug",
        quantity: 1,
        price: "12.00",
        customAttributes: [{ key: "design_front", value: "https://cdn.example.com/d/mug.png" }]
      }]
    })
    const daemon = await startDaemon(config, port)
    try {
      await driveUntil(stack, () => statusOf(port), (s) => (s.held ?? 0) === 1, 60_000)
      const status = await podsync(["status", "--config", config])
      expect(status.stdout).toMatch(/demo-shopify\s+held: unmatched\s+1/)
      fs.appendFileSync(stack.mappingFile, ",MUG-11OZ-WHT,GM0002010011,,{{attr design_front}},,,,,,,\n")
      const final = await driveUntil(stack, () => statusOf(port), (s) => (s.held ?? 0) === 0 && (s.fulfilled ?? 0) === 201, 60_000)
      expect(final.held).toBeUndefined()
    } finally {
      await stopDaemons(daemon)
    }
  }, 120_000)
})
