// A go-live rehearsal against each other store platform's simulator (issue 37): a month of orders
// placed over 30 days (and older ones the window leaves out), one with a SKU no row maps, read back
// without a write at the store, each priced by the POD simulator's quote and none drafted; then the
// daemon run for real on the same orders: the same counts per state, and each draft's total equal to
// its quote. The Shopify run (with unpaid, cancelled and gift-wrap orders too) is rehearse.test.ts.
import * as fs from "node:fs"
import { Effect, Logger, LogLevel } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { rehearseHere } from "../../src/cli/rehearse.js"
import { loadConfig } from "../../src/config/loadConfig.js"
import type { RehearsalReport } from "../../src/reports/RehearsalReport.js"
import { draftTotalAt, freePort, getJson, startDaemon, statusOf, stopDaemons } from "../support/pipeline.js"
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
  /** The seller edits the order at the store (a note): its modified time moves to now. */
  readonly touch: (sim: Sim, id: string) => Promise<unknown>
}

const patch = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  if (!res.ok) throw new Error(`PATCH ${url}: ${res.status} ${await res.text()}`)
}

/** What the store simulator's stats say was written (trackings, notes, shipments, fulfilments, emails), per order. */
const writesOf = (stats: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(stats).filter(([key]) => /By(Order|Receipt)$/.test(key) && !/^requests/.test(key)))

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

    it(
      "reads the last 30 days and prices each order to draft, writing nothing; the pipeline then gives the same counts, the drafts the quoted totals",
      async () => {
        const now = Date.now()
        const ids: Array<string> = []
        for (let i = 0; i < IN_WINDOW + OLDER + 1; i++) {
          const daysAgo = i < IN_WINDOW ? (i + 0.5) * (30 / IN_WINDOW) : i < IN_WINDOW + OLDER ? 45 + i : 4.5
          // The last: placed in the window with a SKU the mapping file has no row for.
          const line = i < IN_WINDOW + OLDER ? demoLine(i) : { ...demoLine(i), sku: "UNMAPPED-TEE-XL" }
          const id = await c.setup.createOrder(sim, line, { placedAt: new Date(now - daysAgo * DAY).toISOString(), currency: c.currency })
          if (i < IN_WINDOW || i === IN_WINDOW + OLDER) ids.push(id)
        }
        const storeBefore = writesOf(await getJson(`${sim.url}/__sim/stats`))
        expect(Object.keys(storeBefore).length).toBeGreaterThan(0)
        const store = { key: c.key, platform: c.platform, podStoreId: "store-acme", section: c.setup.section(sim) }
        const port = await freePort()
        const file = writeStoreDaemonConfig(stack, port, store)
        const config = await Effect.runPromise(loadConfig(file, {}))
        const summary = await Effect.runPromise(
          rehearseHere(config, c.key, 30).pipe(Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))
        )
        expect(summary.counts).toEqual({ orders: IN_WINDOW + 1, drafted: IN_WINDOW, held: 1, skipped: 0 })
        expect(summary.toMap).toEqual([expect.objectContaining({ sku: "UNMAPPED-TEE-XL", orders: 1 })])
        expect(summary.api.quoteCalls).toBe(IN_WINDOW)
        expect(summary.paid.map((m) => m.currency)).toEqual([c.currency])
        expect(summary.podCost).toHaveLength(1)
        const pod = await getJson(`${stack.pod.url}/__sim/stats`)
        expect(pod.drafts).toBe(0)
        expect(pod.orders).toBe(0)
        const report = JSON.parse(fs.readFileSync(summary.files.find((f) => f.format === "json")!.path, "utf8")) as RehearsalReport
        expect(report.perDay.length).toBeGreaterThanOrEqual(IN_WINDOW - 1)
        expect(report.orders.every((o) => Date.parse(o.createdAt) >= now - 30 * DAY - 60_000)).toBe(true)
        const quoted = report.orders.filter((o) => o.outcome === "drafted")
        expect(quoted.every((o) => o.podCost !== null && o.lines.every((l) => l.podCost !== null))).toBe(true)
        // Nothing written at the store either.
        expect(writesOf(await getJson(`${sim.url}/__sim/stats`))).toEqual(storeBefore)

        // The pipeline, run for real: the orders are touched (a note) so its first pull, three days back, meets them all.
        for (const id of ids) await c.touch(sim, id)
        const daemon = await startDaemon(file, port)
        try {
          const settled = (s: Record<string, number>) =>
            Object.values(s).reduce((a, b) => a + b, 0) === IN_WINDOW + 1 && !s.pulled && !s.ready
          const deadline = Date.now() + 60_000
          let counts = await statusOf(port)
          while (!settled(counts) && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 250))
            counts = await statusOf(port)
          }
          expect(counts).toEqual(Object.fromEntries(Object.entries(report.states).filter(([, n]) => n > 0)))
        } finally {
          await stopDaemons(daemon)
        }
        // Each draft's total is the quote the rehearsal got for its order.
        for (const order of quoted) {
          const quote = order.podCost as unknown as { readonly amount: string }
          expect(await draftTotalAt(stack.pod.url, order.referenceId)).toBeCloseTo(Number(quote.amount), 6)
        }
      },
      150_000
    )
  })

rehearses({
  platform: "woocommerce",
  key: "acme-woo",
  setup: wooCommerceSetup,
  currency: "GBP",
  touch: (woo, id) => patch(`${woo.url}/__sim/orders/${id}`, { customer_note: "go-live" })
})
rehearses({
  platform: "etsy",
  key: "acme-etsy",
  setup: etsySetup,
  currency: "EUR",
  mapping: etsyMapping,
  touch: (etsy, id) => patch(`${etsy.url}/__sim/receipts/${id}`, { message_from_buyer: "go-live" })
})
rehearses({
  platform: "jsonfeed",
  key: "acme-feed",
  setup: jsonFeedSetup,
  currency: "AUD",
  touch: (feed, id) => patch(`${feed.url}/__sim/orders/${id}`, { note: "go-live" })
})
