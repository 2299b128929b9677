/**
 * Fulfilment orders as Shopify keeps them, over real HTTP against the simulator: more than a page
 * of them (an order shipped from many locations), those a move closed (`displayable: true` leaves
 * them out), a pre-order's SCHEDULED ones (the push waits, saying until when), and a batched read
 * Shopify refuses as too costly (it splits until each part fits).
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Stream } from "effect"
import type { FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import { FULFILLMENT_STATES_PER_QUERY } from "../../../src/stores/shopify/ShopifyQueries.js"
import { admin, connectTo, startSimulator } from "./harness.js"

interface SimOrder {
  readonly legacyResourceId: string
  readonly lineItems: ReadonlyArray<{ readonly id: string; readonly quantity: number }>
  readonly fulfillmentOrders: ReadonlyArray<{ readonly id: string; readonly status: string }>
}

interface Stats {
  readonly requests: number
  readonly fulfillmentsByOrder: Record<string, number>
  readonly operations: Record<string, number>
}

const stats = (sim: Parameters<typeof admin>[0]) => admin<Stats>(sim, "GET", "stats")

/** An order with one line at each of `locations` locations: Shopify gives each its own fulfillment order. */
const spread = (locations: number) => ({
  financialStatus: "PAID",
  lineItems: Array.from({ length: locations }, (_, i) => ({
    sku: `POSTER-A${i + 1}`,
    title: `Gallery Poster A${i + 1}`,
    quantity: 1 + (i % 2),
    price: "18.90",
    location: `Print Partner ${i + 1}`
  }))
})

const pushOf = (order: SimOrder, lineIndexes: ReadonlyArray<number>, number: string): FulfillmentPush => ({
  storeOrderId: order.legacyResourceId,
  lines: lineIndexes.map((i) => ({ lineId: order.lineItems[i]!.id, quantity: order.lineItems[i]!.quantity })) as unknown as FulfillmentPush[
    "lines"
  ],
  tracking: { company: "DHL Express", number }
})

describe("Shopify fulfillment orders over more than one page", () => {
  it.scopedLive("a push reads every page of them, alone and batched, and fulfils a line on the last page", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      // 12 fulfillment orders: the single read's first page holds 5, two follow-ups the rest.
      const order = yield* admin<SimOrder>(sim, "POST", "orders", spread(12))
      const other = yield* admin<SimOrder>(sim, "POST", "orders", spread(12))
      expect(order.fulfillmentOrders).toHaveLength(12)
      const connector = yield* connectTo(sim)
      const before = yield* stats(sim)
      expect(yield* connector.pushFulfillment(pushOf(order, [11], "DHL-LAST-PAGE"))).toMatchObject({ _tag: "Created" })
      const after = yield* stats(sim)
      expect(after.operations["PodsyncFulfillmentOrdersState"]! - (before.operations["PodsyncFulfillmentOrdersState"] ?? 0)).toBe(2)
      // Batched: the batch's short read says there are more; the order is read again whole.
      const [batched] = yield* connector.pushFulfillments!([pushOf(other, [10, 11], "DHL-BATCH")])
      expect(Either.getOrThrow(batched!)).toMatchObject({ _tag: "Created" })
      const fulfilled = yield* admin<SimOrder>(sim, "GET", `orders/${other.legacyResourceId}`)
      expect(fulfilled.fulfillmentOrders.slice(10).map((fo) => fo.status)).toEqual(["CLOSED", "CLOSED"])
    }))

  it.scopedLive("a pull reads every page of them: a hold on the last page holds the order", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", spread(8))
      yield* admin(sim, "POST", `orders/${order.legacyResourceId}/hold`, { reason: "INCORRECT_ADDRESS" })
      const connector = yield* connectTo(sim)
      const [pulled] = Chunk.toReadonlyArray(yield* Stream.runCollect(connector.pull(null))).flatMap((p) => p.orders)
      expect(pulled?.holds.map((h) => h.heldId)).toEqual(order.fulfillmentOrders.map((fo) => fo.id))
      expect(pulled?.holds.every((h) => h.reason === "INCORRECT_ADDRESS")).toBe(true)
    }))
})

describe("Shopify fulfillment orders closed by a move", () => {
  it.scopedLive("are left out (displayable: true), so the open one is found however often the order was moved", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", spread(1))
      // Six moves: six closed fulfillment orders before the open one, more than a first page of 5 would show.
      const moved = yield* admin<SimOrder>(sim, "POST", `orders/${order.legacyResourceId}/move`, { times: 6 })
      expect(moved.fulfillmentOrders.map((fo) => fo.status)).toEqual([...Array(6).fill("CLOSED"), "OPEN"])
      const connector = yield* connectTo(sim)
      const before = yield* stats(sim)
      const [batched] = yield* connector.pushFulfillments!([pushOf(order, [0], "DHL-MOVED-1")])
      expect(Either.getOrThrow(batched!)).toMatchObject({ _tag: "Created" })
      // One read and one create: the closed ones neither fill the batch's page nor ask for more pages.
      expect((yield* stats(sim)).requests - before.requests).toBe(2)
      const again = yield* admin<SimOrder>(sim, "POST", "orders", spread(1))
      yield* admin(sim, "POST", `orders/${again.legacyResourceId}/move`, { times: 6 })
      const beforeSingle = yield* stats(sim)
      expect(yield* connector.pushFulfillment(pushOf(again, [0], "DHL-MOVED-2"))).toMatchObject({ _tag: "Created" })
      expect((yield* stats(sim)).requests - beforeSingle.requests).toBe(2)
    }))
})

describe("Shopify scheduled fulfillment orders", () => {
  it.scopedLive("a pre-order's push waits until its date (said with the date), then goes", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const fulfillAt = "2030-03-14T09:00:00Z"
      const order = yield* admin<SimOrder>(sim, "POST", "orders", { ...spread(1), fulfillAt })
      const connector = yield* connectTo(sim)
      const push = pushOf(order, [0], "DHL-PREORDER")
      const scheduled = { _tag: "Scheduled", scheduled: [{ heldId: order.fulfillmentOrders[0]!.id, fulfillAt }] }
      expect(yield* connector.pushFulfillment(push)).toEqual(scheduled)
      expect((yield* connector.pushFulfillments!([push])).map(Either.getOrThrow)).toEqual([scheduled])
      const [pulled] = Chunk.toReadonlyArray(yield* Stream.runCollect(connector.pull(null))).flatMap((p) => p.orders)
      expect(pulled?.fulfillmentStatus).toBe("scheduled")
      yield* admin(sim, "POST", "clock/advance", { seconds: (Date.parse(fulfillAt) - Date.now()) / 1000 + 60 })
      expect(yield* connector.pushFulfillment(push)).toMatchObject({ _tag: "Created" })
    }))
})

describe("Shopify batched read refused as too costly", () => {
  it.scopedLive("splits in halves until each part fits (25 → 13 + 12 → 7 + 6 + 6 + 6), then reads 6 at a time", () =>
    Effect.gen(function*() {
      // Plain lists charged by their `first`: an order of the batched read is 91 points, 25 are 2,275.
      const sim = yield* startSimulator({ plainListsByFirst: true })
      const orders = yield* Effect.forEach(
        Array.from({ length: FULFILLMENT_STATES_PER_QUERY }),
        () => admin<SimOrder>(sim, "POST", "orders", spread(1))
      )
      const connector = yield* connectTo(sim)
      const before = yield* stats(sim)
      const results = yield* connector.pushFulfillments!(orders.map((o, i) => pushOf(o, [0], `DHL-SPLIT-${i}`)))
      expect(results.map((r) => Either.getOrThrow(r)._tag)).toEqual(orders.map(() => "Created"))
      const after = yield* stats(sim)
      // Refused: 25, 13 and 12 (nothing ran); read: 7, 6, 6 and 6; then one mutation.
      expect(after.requests - before.requests).toBe(3 + 4 + 1)
      expect(after.operations["PodsyncFulfillmentStates"]! - (before.operations["PodsyncFulfillmentStates"] ?? 0)).toBe(4)
      for (const o of orders) expect(after.fulfillmentsByOrder[o.legacyResourceId]).toBe(1)

      // The next claim asks for what fits at once: no refused request.
      const more = yield* Effect.forEach(Array.from({ length: 12 }), () => admin<SimOrder>(sim, "POST", "orders", spread(1)))
      const beforeMore = yield* stats(sim)
      yield* connector.pushFulfillments!(more.map((o, i) => pushOf(o, [0], `DHL-AGAIN-${i}`)))
      const afterMore = yield* stats(sim)
      expect(afterMore.requests - beforeMore.requests).toBe(2 + 1)
    }))
})
