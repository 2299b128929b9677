// Economy shipping end to end: the compiled daemon, configured to hold Economy orders its carrier
// cannot reach, against the Shopify and POD simulators over real HTTP. The covered order is drafted
// with METHOD_ECONOMY; the uncovered one is held, and `podsync status` and `podsync explain` say why.
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { podsync } from "../support/cli.js"
import { podHeaders, post, sharedStack, type Stack, daemonConfig } from "../support/pipeline.js"
import { startDaemon, statusOf, stopDaemons, waitFor } from "../support/pipeline.js"

/** A Shopify order shipping Economy to a US address. */
const economyOrder = (stack: Stack, zip: string, provinceCode: string) =>
  post(`${stack.shopify.url}/__sim/orders`, {
    financialStatus: "PAID",
    shippingAddress: {
      firstName: "Ada",
      lastName: "Lovelace",
      address1: "12 Analytical Way",
      address2: null,
      company: null,
      city: "Springfield",
      province: provinceCode,
      provinceCode,
      zip,
      country: "United States",
      countryCodeV2: "US",
      phone: "+1 406 555 0100"
    },
    shippingLine: { title: "Economy", code: "ECONOMY", price: "3.90" },
    lineItems: [{ sku: "UTS01-DARKHE-M", title: "Tee", quantity: 1, price: "20.00" }]
  })

describe("Economy orders through the daemon", () => {
  const stack = sharedStack({ podRateLimit: false })

  it("drafts the covered one as Economy and holds the uncovered one with the reason, under shipping.economyUncovered: hold", async () => {
    const { port, config } = await daemonConfig(stack)
    // The store maps its "Economy" rate to METHOD_ECONOMY and holds what Economy cannot reach.
    fs.writeFileSync(
      config,
      fs.readFileSync(config, "utf8").replace(
        `    mappings: ${stack.mappingFile}`,
        [
          `    mappings: ${stack.mappingFile}`,
          "    shipping:",
          "      byTitle: { Economy: METHOD_ECONOMY }",
          "      economyUncovered: hold"
        ].join("\n")
      )
    )
    const covered = await economyOrder(stack, "90012", "CA")
    const uncovered = await economyOrder(stack, "59001", "MT")
    const daemon = await startDaemon(config, port)
    try {
      await waitFor(() => statusOf(port), (s) => (s.drafted ?? 0) === 1 && (s.held ?? 0) === 1, 60_000)
      const ref = `demo-shopify:${covered.legacyResourceId}`
      const drafts =
        await (await fetch(`${stack.pod.url}/api/v3/orders/draft?filter.reference_ids=${encodeURIComponent(ref)}`, { headers: podHeaders }))
          .json() as any
      expect(drafts.data).toHaveLength(1)
      // The service writes an enum as its name or its number (METHOD_ECONOMY is 6).
      expect(["METHOD_ECONOMY", 6]).toContain(drafts.data[0].shipping_option.method)
      const stats = await (await fetch(`${stack.pod.url}/__sim/stats`)).json() as any
      expect(stats.draftsByReferenceId[`demo-shopify:${uncovered.legacyResourceId}`]).toBeUndefined()

      const status = await podsync(["status", "--config", config])
      expect(status.stdout).toContain("economy_uncovered")
      const story = await podsync(["explain", `demo-shopify:${uncovered.legacyResourceId}`, "--config", config])
      expect(story.stdout).toContain("held (economy_uncovered)")
      expect(story.stdout).toContain("Economy shipping is not available to ZIP 59001")
    } finally {
      await stopDaemons(daemon)
    }
  }, 120_000)
})
