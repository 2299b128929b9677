import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Redacted, Stream } from "effect"
import { admin, connectTo, eventually, startSimulator } from "./harness.js"
import type { RunningShopifySimulator } from "../../../src/simulator/shopify/index.js"
import {
  answersNoneForAnUnknownOrder,
  type PullDriver,
  refusesWrongCredentials,
  resumesAfterACrash,
  startsAtSince
} from "../contract/PullContract.js"
import { handedOutOnce, pagedToTheEnd, pullAll, versionsOf } from "../contract/PullWalks.js"

/** Final `updatedAt` of every order in the simulator, by legacy id. */
const simVersions = (sim: Parameters<typeof admin>[0]) =>
  Effect.map(
    admin<{ orders: Array<{ legacyResourceId: string; updatedAt: string }> }>(sim, "GET", "orders"),
    ({ orders }) => new Map(orders.map((o) => [o.legacyResourceId, o.updatedAt]))
  )

const driver: PullDriver<RunningShopifySimulator> = {
  test: it.scopedLive,
  start: startSimulator,
  resource: "orders",
  noteField: "note",
  connect: connectTo,
  beforeWalk: () => Effect.void,
  beforeEdit: () => Effect.void,
  walksToCatchUp: 1,
  simVersions
}

describe("Shopify incremental pull", () => {
  // Shopify timestamps have second precision; the admin API gives ids as GIDs.
  startsAtSince(driver, ({ now }) => now.replace(/\.\d{3}Z$/, "Z"), (gid) => String(gid).split("/").pop()!)
  resumesAfterACrash(driver)
  answersNoneForAnUnknownOrder(driver)
  refusesWrongCredentials(driver, {
    refused: (sim) => connectTo(sim, { accessToken: Redacted.make("shpat_wrong") }),
    secret: "shpat_",
    orderId: "1"
  })

  it.scopedLive("walks many pages while orders are edited mid-walk, losing and duplicating nothing", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const { ids } = yield* admin<{ ids: Array<string> }>(sim, "POST", "orders/bulk", { count: 45 })
      const legacy = ids.map((gid) => gid.split("/").pop()!)
      const connector = yield* connectTo(sim, { pageSize: 10 })

      const pages = yield* pullAll(connector, null, (page, index) =>
        Effect.gen(function*() {
          if (index === 0) {
            // An order already handed out changes: it must come again, as its new version.
            yield* admin(sim, "PATCH", `orders/${page.orders[0]!.storeOrderId}`, { note: "edited after it was pulled" })
            // An order not reached yet changes: it must come once, as its new version.
            yield* admin(sim, "PATCH", `orders/${legacy[30]}`, { note: "edited before it was reached" })
          }
          if (index === 1) {
            yield* admin(sim, "POST", `orders/${legacy[40]}/cancel`, {})
            yield* admin(sim, "POST", "orders", {})
            yield* admin(sim, "PATCH", `orders/${legacy[12]}`, { financialStatus: "REFUNDED" })
          }
        }))
      const final = yield* simVersions(sim)
      expect(final.size).toBe(46)
      expect(handedOutOnce(pages)).toEqual(final)
      const last = pagedToTheEnd(pages)
      expect(last.cursor.watermark).toBe([...final.values()].sort().pop())
      const cancelled = pages.flatMap((p) => p.orders).filter((o) => o.storeOrderId === legacy[40]).pop()
      expect(cancelled).toMatchObject({ cancelled: true })

      // The next pull re-reads the overlap but hands out nothing already handed out.
      const again = yield* pullAll(connector, last.cursor)
      expect(versionsOf(again)).toEqual([])

      // Then one change: exactly that version comes.
      const edited = yield* admin(sim, "PATCH", `orders/${legacy[5]}`, { tags: ["podsync:test"] })
      const third = yield* pullAll(connector, again[again.length - 1]!.cursor)
      // As instants on both sides: a version on a whole second may be written with or without its milliseconds.
      const instant = (iso: string) => new Date(iso).toISOString()
      expect(versionsOf(third, instant)).toEqual([`${legacy[5]}@${instant(edited.updatedAt)}`])
    }))

  it.scopedLive("reads an order with more line items than one page whole, in the pull and by id", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const lineItems = Array.from({ length: 27 }, (_, i) => ({
        sku: `TEE-BLK-${i}`,
        title: `Tee ${i}`,
        quantity: 1 + (i % 3),
        customAttributes: [{ key: "design_url", value: `https://cdn.example.com/d/${i}.png` }]
      }))
      const created = yield* admin(sim, "POST", "orders", { lineItems })
      const connector = yield* connectTo(sim)
      const byId = Option.getOrThrow(yield* connector.getOrder(created.legacyResourceId))
      expect(byId.lines.map((l) => l.sku)).toEqual(lineItems.map((l) => l.sku))
      expect(byId.lines.map((l) => l.quantity)).toEqual(lineItems.map((l) => l.quantity))
      const pulled = Chunk.toReadonlyArray(yield* Stream.runCollect(connector.pull(null))).flatMap((p) => p.orders)
      expect(pulled).toHaveLength(1)
      expect(pulled[0]!.lines).toEqual(byId.lines)
    }))

  it.scopedLive("never mixes line item pages of two versions when the order changes while it is read", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const lineItems = Array.from({ length: 15 }, (_, i) => ({ sku: `SKU-${i}`, title: `Item ${i}`, quantity: 1 }))
      const created = yield* admin(sim, "POST", "orders", { lineItems })
      const connector = yield* connectTo(sim)
      // The follow-up for line items 11-15 is slowed down; the order is edited meanwhile.
      yield* admin(sim, "POST", "faults", { operation: "order", kind: "latency", latencyMs: [400, 400], count: 1 })
      const fiber = yield* Effect.fork(Stream.runCollect(connector.pull(null)))
      yield* eventually(admin<{ faults: Array<unknown> }>(sim, "GET", "faults"), (f) => f.faults.length === 0, "the slowed request")
      const lastLine = created.lineItems[14]
      const edited = yield* admin(sim, "PATCH", `orders/${created.legacyResourceId}`, {
        lineItems: [{ id: lastLine.id, customAttributes: [{ key: "design_url", value: "https://cdn.example.com/v2.png" }] }]
      })
      const orders = Chunk.toReadonlyArray(yield* Fiber.join(fiber)).flatMap((p) => p.orders)
      // Only the new version is handed out, once, whole.
      expect(orders.map((o) => o.updatedAt)).toEqual([edited.updatedAt])
      expect(orders[0]!.lines).toHaveLength(15)
      expect(orders[0]!.lines[14]!.attributes).toEqual([{ key: "design_url", value: "https://cdn.example.com/v2.png" }])
    }))

  it.scopedLive("re-reads the overlap without reading a version it handed out again (no line item pages, nothing handed out)", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const lineItems = Array.from({ length: 27 }, (_, i) => ({ sku: `SKU-${i}`, title: `Item ${i}`, quantity: 1 }))
      yield* admin(sim, "POST", "orders", { lineItems })
      const connector = yield* connectTo(sim)
      const first = yield* pullAll(connector, null)
      expect(first.flatMap((p) => p.orders)).toHaveLength(1)
      const before = yield* admin<{ operations: Record<string, number> }>(sim, "GET", "stats")
      expect(before.operations["PodsyncOrderLineItems"] ?? 0).toBeGreaterThan(0)
      // The next pull reads the same version again (the overlap): it is skipped by its identity alone.
      const again = yield* pullAll(connector, first[first.length - 1]!.cursor)
      expect(again.flatMap((p) => p.orders)).toEqual([])
      const after = yield* admin<{ operations: Record<string, number> }>(sim, "GET", "stats")
      expect(after.operations["PodsyncOrdersPage"]).toBe((before.operations["PodsyncOrdersPage"] ?? 0) + 1)
      expect(after.operations["PodsyncOrderLineItems"]).toBe(before.operations["PodsyncOrderLineItems"])
    }))
})
