import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { demoConfig } from "../../src/cli/demo/DemoConfig.js"
import type { DemoOutput } from "../../src/cli/demo/DemoTerminal.js"
import { type OrderKind, planOrders } from "../../src/cli/demo/OrderPlan.js"
import { type DemoSimulators, runDemoInScope } from "../../src/cli/demo/RunDemo.js"
import { parseConfig } from "../../src/config/loadConfig.js"
import { runPodsyncIn, tempDir } from "../support/cli.js"
import { getJson } from "../support/pipeline.js"
import { podOutcome } from "../support/stores.js"

/**
 * `podsync demo --all-platforms`: one configuration with one store of each platform, run together by
 * one daemon against four store simulators. The outcome is read back from the simulators themselves
 * (each store's admin side, the POD service's v3 API and statistics), not from the demo's own view.
 */

const ORDERS = 8
const STORES = ["demo-shopify", "demo-woocommerce", "demo-etsy", "demo-jsonfeed"] as const

/** What a store holds of an order, whatever its platform: its id, the tracking numbers pushed to it, whether it is cancelled. */
interface StoreSide {
  readonly id: string
  readonly trackings: ReadonlyArray<string>
  readonly cancelled: boolean
}

/** The store's orders in the order they were placed, as its simulator's admin shows them. */
const storeSide = async (store: DemoSimulators["stores"][number]): Promise<ReadonlyArray<StoreSide>> => {
  switch (store.platform) {
    case "shopify":
      return (await getJson(`${store.url}/__sim/orders`)).orders.map((o: any) => ({
        id: o.legacyResourceId,
        trackings: o.fulfillments.filter((f: any) => f.status === "SUCCESS").flatMap((f: any) => f.tracking.map((t: any) => t.number)),
        cancelled: o.cancelledAt !== null
      }))
    case "woocommerce":
      return (await getJson(`${store.url}/__sim/orders`)).orders.map((o: any) => ({
        id: String(o.id),
        trackings: o.shipment_trackings.map((t: any) => t.tracking_number),
        cancelled: o.status === "cancelled"
      }))
    case "etsy":
      return (await getJson(`${store.url}/__sim/receipts`)).receipts.map((r: any) => ({
        id: String(r.receipt_id),
        trackings: r.shipments.map((s: any) => s.tracking_code),
        cancelled: r.status === "canceled"
      }))
    case "jsonfeed":
      return (await getJson(`${store.url}/__sim/orders`)).orders.map((o: any) => ({
        id: o.id,
        trackings: o.fulfillments.map((f: any) => f.tracking.number),
        cancelled: o.cancelled_at !== null
      }))
  }
}

const captured = () => {
  let text = ""
  const output: DemoOutput = { write: (chunk) => void (text += chunk), interactive: false, columns: 100 }
  return { output, text: () => text }
}

describe("the all-platforms demo configuration", () => {
  it("decodes as shipped, and with the demo's simulator addresses substituted names one store of each platform", () =>
    Effect.gen(function*() {
      const file = "config/demo-all.yaml"
      const shipped = parseConfig(fs.readFileSync(file, "utf8"), file, {})
      expect(Either.isRight(shipped) ? "ok" : shipped.left.message).toBe("ok")

      const config = yield* demoConfig({
        setup: "all-platforms",
        podUrl: "http://127.0.0.1:1",
        storeUrls: {
          shopify: "http://127.0.0.1:2",
          woocommerce: "http://127.0.0.1:3",
          etsy: "http://127.0.0.1:4",
          jsonfeed: "http://127.0.0.1:5/podsync/v1"
        },
        port: 6
      })
      expect(config.stores.map((s) => [s.key, s.platform])).toEqual([
        ["demo-shopify", "shopify"],
        ["demo-woocommerce", "woocommerce"],
        ["demo-etsy", "etsy"],
        ["demo-jsonfeed", "jsonfeed"]
      ])
      expect([
        config.stores[0]?.shopify?.baseUrl,
        config.stores[1]?.woocommerce?.url,
        config.stores[2]?.etsy?.baseUrl,
        config.stores[3]?.jsonfeed?.baseUrl
      ])
        .toEqual(["http://127.0.0.1:2", "http://127.0.0.1:3", "http://127.0.0.1:4", "http://127.0.0.1:5/podsync/v1"])
      // Each store's own mapping table, found from the installation wherever the demo is started.
      for (const store of config.stores) {
        expect(path.basename(store.mappings)).toBe(`${store.key}.csv`)
        expect(fs.existsSync(store.mappings)).toBe(true)
      }
    }))
})

describe("podsync demo --all-platforms", () => {
  it.live(`runs ${ORDERS} orders through one store of each platform at once, each to its end in its own store`, () => {
    const dir = tempDir("demo-all")
    return Effect.scoped(Effect.gen(function*() {
      const out = captured()
      const started = Date.now()
      // Scoped: the simulators stay up after the demo ends, so that their side can be read back.
      const outcome = yield* runDemoInScope({
        orders: ORDERS,
        speed: "fast",
        setup: "all-platforms",
        keepData: false,
        dataDir: path.join(dir, "data"),
        reportsDir: path.join(dir, "reports"),
        output: out.output,
        // The demo's own default is 2 minutes: a starved 2-core machine has needed more than 40 s.
        settleTimeout: "120 seconds"
      })
      const text = out.text()
      console.info(`all-platforms demo: ${outcome.ending} in ${((Date.now() - started) / 1000).toFixed(1)} s`)

      expect(outcome.ending, text).toBe("finished")
      expect(outcome.simulators.stores.map((s) => s.key)).toEqual([...STORES])
      // Round robin: two orders in each store.
      expect(outcome.progress.stores.map((s) => [s.storeKey, s.generated, s.settled])).toEqual(STORES.map((key) => [key, 2, 2]))

      // The plan, store by store: order i went to store i mod 4, so each store's orders, in the order
      // its simulator lists them, are the plan's orders for that store.
      const plan = planOrders(ORDERS)
      const pod = yield* Effect.promise(() => podOutcome({ url: outcome.simulators.pod, close: async () => {} }))
      expect(pod.duplicateReferenceIds).toEqual([])
      const expectedDrafts: Array<string> = []
      const heldStores: Array<string> = []
      for (const [s, store] of outcome.simulators.stores.entries()) {
        const kinds: ReadonlyArray<OrderKind> = plan.filter((_, i) => i % STORES.length === s).map((p) => p.kind)
        const orders = yield* Effect.promise(() => storeSide(store))
        expect(orders, store.key).toHaveLength(kinds.length)
        for (const [j, kind] of kinds.entries()) {
          const order = orders[j]!
          const reference = `${store.key}:${order.id}`
          const drafts = pod.draftsByReferenceId[reference] ?? 0
          const where = `${reference} (${kind})`
          if (kind === "mapped") {
            // One draft, shipped with one tracking number, and that number pushed back to this store.
            expect(drafts, where).toBe(1)
            const tracking = pod.trackingsByReferenceId.get(reference)
            expect(tracking, where).toHaveLength(1)
            expect(order.trackings, where).toEqual(tracking)
            expect(order.cancelled, where).toBe(false)
            expectedDrafts.push(reference)
          } else if (kind === "unmapped") {
            // Held for the missing mapping row: never drafted, nothing pushed.
            expect(drafts, where).toBe(0)
            expect(order.trackings, where).toEqual([])
            heldStores.push(store.key)
          } else {
            // Cancelled by its buyer: never produced. The daemon may have drafted it first (cancel_pending).
            expect(order.cancelled, where).toBe(true)
            expect(order.trackings, where).toEqual([])
            expect(drafts, where).toBeLessThanOrEqual(1)
            if (drafts === 1) expectedDrafts.push(reference)
          }
        }
        // The store's webhooks reached the daemon's /webhooks/<store key> and were accepted.
        const deliveries: ReadonlyArray<{ status: number | null }> = (yield* Effect.promise(() =>
          getJson(`${store.url}/__sim/webhooks`)
        )).deliveries
        expect(deliveries.length, `${store.key} webhook deliveries`).toBeGreaterThan(0)
        expect(deliveries.filter((d) => d.status === null || d.status >= 300), `${store.key} webhook deliveries`).toEqual([])
      }
      // One draft per produced order at the POD service, each under its own store's reference id.
      expect(Object.keys(pod.draftsByReferenceId).sort()).toEqual(expectedDrafts.sort())

      // The daemon's side agrees: the unmapped orders are held for that reason, in the stores they were placed in.
      expect(outcome.progress.held.map((h) => [h.storeKey, h.reason]).sort()).toEqual(heldStores.map((key) => [key, "unmatched"]).sort())
      const counts = Object.fromEntries(outcome.progress.byState)
      expect(counts.held).toBe(2)
      expect((counts.cancelled ?? 0) + (counts.cancel_pending ?? 0)).toBe(1)
      expect(counts.fulfilled).toBe(5)

      // The report of the demo's period, and a summary that names each store.
      expect("files" in outcome.report ? outcome.report.files.map((f) => path.extname(f)).sort() : outcome.report).toEqual([
        ".csv",
        ".html",
        ".json"
      ])
      expect(text).toMatch(/Reconciliation report \S+ \(all stores, UTC\): 8 orders pulled/)
      expect(text).toContain(`every one of the ${ORDERS} orders in its 4 stores is shipped, cancelled, or waiting for you`)
      for (const key of STORES) expect(text).toMatch(new RegExp(`^ {2}${key}\\s+2 orders: `, "m"))
      expect(text).not.toContain("where expected")
      expect(text).toContain("demo-all.yaml")
    })).pipe(Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))))
  }, 180_000)

  it(
    "`podsync demo --all-platforms` (the compiled CLI, what `npm start -- --all-platforms` runs) ends by itself, store by store",
    async () => {
      const cwd = tempDir("demo-all-cli")
      const { code, stdout, stderr } = await runPodsyncIn(cwd, ["demo", "--all-platforms", "--orders", "8", "--speed", "fast"], 170_000, {
        PODSYNC_DEMO_PORT: ""
      })
      try {
        expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0)
        expect(stdout).toContain("in 4 stores, one of each platform (demo-shopify, demo-woocommerce, demo-etsy, demo-jsonfeed)")
        expect(stdout).toMatch(
          /WooCommerce simulator http:\/\/127\.0\.0\.1:\d+ · Etsy simulator http:\/\/127\.0\.0\.1:\d+ · JSON feed simulator/
        )
        expect(stdout).toContain(`every one of the ${ORDERS} orders in its 4 stores is shipped, cancelled, or waiting for you`)
        const byStore = stdout.split("By store:\n")[1]?.split("\n\n")[0]?.split("\n") ?? []
        expect(byStore.map((line) => line.trim().split(/\s+/)[0])).toEqual([...STORES])
        expect(stdout.match(/^ {2}demo-\S+ #\d+ +unmatched: no mapping row/gm)).toHaveLength(2)
        expect(fs.readdirSync(path.join(cwd, "reports", "demo")).filter((f) => /^report-.*\.(html|csv|json)$/.test(f))).toHaveLength(3)
      } finally {
        fs.rmSync(cwd, { recursive: true, force: true })
      }
    },
    180_000
  )
})
