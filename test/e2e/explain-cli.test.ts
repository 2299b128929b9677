/**
 * `podsync explain` by what the seller sees (#18): the order number the store shows (`1002`) as
 * well as its name (`#1002`), and, when two stores both have an order #1001, the error naming both
 * and then the order with `--store`. As a seller types it, with a daemon running against two
 * Shopify simulators (each numbers its orders from #1001), and again once it has stopped (the
 * command then reads the embedded database itself).
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningShopifySimulator, startShopifySimulator } from "../../src/simulator/shopify/index.js"
import { podsync } from "../support/cli.js"
import { createOrders, daemonConfig, post, sharedStack, startDaemon, statusOf, stopDaemons, waitFor } from "../support/pipeline.js"

const stack = sharedStack()
let gift: RunningShopifySimulator
beforeAll(async () => {
  gift = await startShopifySimulator({ seed: 7 })
})
afterAll(() => gift.close())

/** The first line of a story: `<reference> (<name>): <state>…`. */
const headOf = (stdout: string) => stdout.split("\n")[0] ?? ""

describe("podsync explain by the order name or number the store shows", () => {
  let config = ""
  let demo: Array<string> = []
  let giftId = ""

  it("with a daemon running: finds #1002 and 1002, names both stores for 1001, and finds each 1001 with --store", async () => {
    const made = await daemonConfig(stack, { name: "two-stores" })
    config = made.config
    // A second Shopify store, on a simulator of its own, with the same mapping file.
    fs.writeFileSync(
      config,
      fs.readFileSync(config, "utf8").replace(
        "schedules:",
        [
          "  - key: gift-shopify",
          "    platform: shopify",
          "    podStoreId: store-gift",
          "    shopify:",
          "      shop: acme.myshopify.com",
          "      accessToken: shpat_sim_token",
          "      webhookSecret: shopify-sim-webhook-secret",
          `      baseUrl: ${gift.url}`,
          `    mappings: ${stack.mappingFile}`,
          "schedules:"
        ].join("\n")
      )
    )
    demo = await createOrders(stack, 2)
    const giftOrder = await post(`${gift.url}/__sim/orders`, {
      financialStatus: "PAID",
      lineItems: [{
        sku: "UTS01-FOREST-S",
        title: "Podsync Tee",
        quantity: 1,
        price: "24.00",
        customAttributes: [{ key: "design_front", value: "https://cdn.example.com/d/gift.png" }]
      }]
    })
    giftId = String(giftOrder.legacyResourceId)
    expect(giftOrder.name).toBe("#1001")

    const daemon = await startDaemon(config, made.port)
    try {
      await waitFor(() => statusOf(made.port), (s) => Object.values(s).reduce((a, b) => a + b, 0) === 3, 15_000)

      // Asked all at once: each goes to the daemon, which holds the database.
      const [byName, byNumber, ambiguous, inGift, inDemo] = await Promise.all([
        podsync(["explain", "#1002", "--config", config]),
        podsync(["explain", "1002", "--config", config]),
        podsync(["explain", "1001", "--config", config]),
        podsync(["explain", "#1001", "--store", "gift-shopify", "--config", config]),
        podsync(["explain", "1001", "--store", "demo-shopify", "--config", config])
      ])
      for (const found of [byName, byNumber]) {
        expect(found.stderr).toBe("")
        expect(headOf(found.stdout)).toMatch(new RegExp(`^demo-shopify:${demo[1]} \\(#1002\\): \\w+`))
        expect(found.code).toBe(0)
      }
      expect(ambiguous.stderr).toBe(
        `podsync: 1001 is more than one order: demo-shopify:${demo[0]}, gift-shopify:${giftId}. Give the reference, or add --store KEY\n`
      )
      expect(ambiguous.stdout).toBe("")
      expect(ambiguous.code).toBe(1)
      expect(headOf(inGift.stdout)).toMatch(new RegExp(`^gift-shopify:${giftId} \\(#1001\\): \\w+`))
      expect(inGift.code).toBe(0)
      expect(headOf(inDemo.stdout)).toMatch(new RegExp(`^demo-shopify:${demo[0]} \\(#1001\\): \\w+`))
      expect(inDemo.code).toBe(0)
    } finally {
      await stopDaemons(daemon)
    }
  }, 60_000)

  it("with the daemon stopped, reading the embedded database: the same error for #1001, and 1001 found with --store", async () => {
    expect(config).not.toBe("")
    // One at a time: each command holds the embedded database while it reads.
    const ambiguous = await podsync(["explain", "#1001", "--config", config])
    const inGift = await podsync(["explain", "1001", "--store", "gift-shopify", "--config", config])
    expect(ambiguous.stderr).toBe(
      `podsync: #1001 is more than one order: demo-shopify:${demo[0]}, gift-shopify:${giftId}. Give the reference, or add --store KEY\n`
    )
    expect(ambiguous.code).toBe(1)
    expect(headOf(inGift.stdout)).toMatch(new RegExp(`^gift-shopify:${giftId} \\(#1001\\): \\w+`))
    expect(inGift.code).toBe(0)
  }, 30_000)
})
