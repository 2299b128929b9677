// A go-live rehearsal against each other store platform's simulator (issue 37): a month of orders
// placed over 30 days (and older ones the window leaves out), read back without a write, each priced
// by the POD simulator's quote and none drafted. The Shopify run, compared with the pipeline's real
// run on the same orders, is rehearse.test.ts.
import * as fs from "node:fs"
import { Effect, Logger, LogLevel } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { rehearseHere } from "../../src/cli/rehearse.js"
import { loadConfig } from "../../src/config/loadConfig.js"
import type { RehearsalReport } from "../../src/reports/RehearsalReport.js"
import { freePort, getJson } from "../support/pipeline.js"
import { etsyMapping, etsySetup, jsonFeedSetup, type PlatformSetup, wooCommerceSetup } from "../support/storePlatforms.js"
import { demoLine, startStoreStack, type StorePlatform, type StoreStack, writeStoreDaemonConfig } from "../support/stores.js"

const DAY = 86_400_000
const IN_WINDOW = 10
const OLDER = 2

interface Case<Sim> {
  readonly platform: StorePlatform
  readonly key: string
  readonly setup: PlatformSetup<Sim>
  /** One currency per shop, as a real shop has. */
  readonly currency: string
  readonly mapping?: (csv: string) => string
}

const rehearses = <Sim extends { readonly url: string; readonly close: () => Promise<void> }>(c: Case<Sim>) =>
  describe(`a rehearsal of a ${c.platform} store`, () => {
    let stack: StoreStack
    let sim: Sim
    beforeAll(async () => {
      stack = await startStoreStack(`rehearse-${c.platform}`, c.mapping)
      sim = await c.setup.start()
    })
    afterAll(async () => {
      await sim?.close()
      await stack?.close()
    })

    it("reads the orders placed in the last 30 days, prices each to draft, and creates nothing", async () => {
      const now = Date.now()
      for (let i = 0; i < IN_WINDOW + OLDER; i++) {
        const daysAgo = i < IN_WINDOW ? (i + 0.5) * (30 / IN_WINDOW) : 45 + i
        await c.setup.createOrder(sim, demoLine(i), { placedAt: new Date(now - daysAgo * DAY).toISOString(), currency: c.currency })
      }
      const store = { key: c.key, platform: c.platform, podStoreId: "store-acme", section: c.setup.section(sim) }
      const config = await Effect.runPromise(loadConfig(writeStoreDaemonConfig(stack, await freePort(), store), {}))
      const summary = await Effect.runPromise(
        rehearseHere(config, c.key, 30).pipe(Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))
      )
      expect(summary.counts).toEqual({ orders: IN_WINDOW, drafted: IN_WINDOW, held: 0, skipped: 0 })
      expect(summary.api.quoteCalls).toBe(IN_WINDOW)
      expect(summary.paid.map((m) => m.currency)).toEqual([c.currency])
      expect(summary.podCost).toHaveLength(1)
      const pod = await getJson(`${stack.pod.url}/__sim/stats`)
      expect(pod.drafts).toBe(0)
      expect(pod.orders).toBe(0)
      const report = JSON.parse(fs.readFileSync(summary.files.find((f) => f.format === "json")!.path, "utf8")) as RehearsalReport
      expect(report.perDay.length).toBeGreaterThanOrEqual(IN_WINDOW - 1)
      expect(report.orders.every((o) => Date.parse(o.createdAt) >= now - 30 * DAY - 60_000)).toBe(true)
      expect(report.orders.every((o) => o.podCost !== null && o.lines.every((l) => l.podCost !== null))).toBe(true)
    }, 90_000)
  })

rehearses({ platform: "woocommerce", key: "acme-woo", setup: wooCommerceSetup, currency: "GBP" })
rehearses({ platform: "etsy", key: "acme-etsy", setup: etsySetup, currency: "EUR", mapping: etsyMapping })
rehearses({ platform: "jsonfeed", key: "acme-feed", setup: jsonFeedSetup, currency: "AUD" })
