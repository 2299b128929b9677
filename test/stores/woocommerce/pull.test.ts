/**
 * Incremental pulls against the simulator. The connector's clock (TestClock) freezes each walk's upper
 * bound; the simulator's clock is the test's, so which edits land inside or past that bound is exact.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Redacted, Stream, TestClock } from "effect"
import type { NormalizedOrder } from "../../../src/domain/NormalizedOrder.js"
import { admin, connectTo, type Sim, startSimulator, T0 } from "./harness.js"
import { answersNoneForAnUnknownOrder, type PullDriver, refusesWrongCredentials, resumesAfterACrash } from "../contract/PullContract.js"
import { handedOutOnce, latestOrders, pullAll, versionsOf } from "../contract/PullWalks.js"

const isoOf = (gmt: string) => `${gmt}Z`

/** Final `date_modified_gmt` of every order in the simulator, by id. */
const simVersions = (sim: Sim) =>
  Effect.map(
    admin<{ orders: Array<{ id: number; date_modified_gmt: string; status: string }> }>(sim, "GET", "orders"),
    ({ orders }) => new Map(orders.filter((o) => o.status !== "trash").map((o) => [String(o.id), isoOf(o.date_modified_gmt)]))
  )

const latestById = latestOrders

const updatedAts = (orders: Map<string, NormalizedOrder>) => new Map([...orders].map(([id, o]) => [id, o.updatedAt]))

/** The connector's clock: each walk freezes its upper bound from it. */
const connectorTime = (ms: number) => TestClock.setTime(ms)

const driver: PullDriver<Sim> = {
  test: it.scoped,
  start: startSimulator,
  resource: "orders",
  bulk: { spacingSeconds: 1 },
  noteField: "customer_note",
  connect: connectTo,
  beforeWalk: (_sim, walk) => connectorTime(walk === 0 ? T0 + 600_000 : T0 + 900_000),
  beforeEdit: (sim) =>
    Effect.sync(() => {
      sim.clock.now += 1000
    }),
  walksToCatchUp: 1,
  simVersions
}

describe("WooCommerce incremental pull", () => {
  answersNoneForAnUnknownOrder(driver)
  resumesAfterACrash(driver)
  refusesWrongCredentials(driver, {
    refused: (sim) => connectTo(sim, { consumerSecret: Redacted.make("cs_wrong") }),
    secret: "cs_",
    orderId: "4021",
    operation: "orders.get"
  })

  it.scoped("walks many pages while orders are edited mid-walk, losing and duplicating nothing", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const { ids } = yield* admin<{ ids: Array<number> }>(sim, "POST", "orders/bulk", { count: 45, spacingSeconds: 1 })
      const id = (i: number) => String(ids[i])
      const connector = yield* connectTo(sim, { pageSize: 10 })
      yield* connectorTime(T0 + 600_000)

      const first = yield* pullAll(connector, null, (page, index) =>
        Effect.gen(function*() {
          sim.clock.now += 1000
          if (index === 0) {
            // Already handed out, edited inside the window: it comes again, as its new version.
            yield* admin(sim, "PATCH", `orders/${page.orders[0]!.storeOrderId}`, { customer_note: "edited after it was pulled" })
            // Not reached yet: it comes once, as its new version.
            yield* admin(sim, "PATCH", `orders/${id(30)}`, { customer_note: "edited before it was reached" })
          }
          if (index === 1) {
            yield* admin(sim, "PATCH", `orders/${id(40)}`, { status: "cancelled" })
            yield* admin(sim, "POST", "orders", {})
            const order = yield* admin(sim, "GET", `orders/${id(12)}`)
            yield* admin(sim, "POST", `orders/${id(12)}/refund`, { line_items: [{ id: order.line_items[0].id, quantity: 1 }] })
          }
          if (index === 2) {
            // Edited past the frozen upper bound: it leaves this walk's window (and shifts every later row).
            sim.clock.now += 3_600_000
            yield* admin(sim, "PATCH", `orders/${id(35)}`, { customer_note: "edited after the walk began" })
            yield* admin(sim, "PATCH", `orders/${id(1)}`, { customer_note: "edited after the walk began" })
          }
        }))
      const firstVersions = versionsOf(first)
      expect(new Set(firstVersions).size).toBe(firstVersions.length)
      expect(first.length).toBeGreaterThanOrEqual(5)
      expect(first.slice(0, -1).every((p) => !p.done && p.cursor.continuation !== undefined)).toBe(true)
      const last = first[first.length - 1]!
      expect(last.done).toBe(true)
      expect(last.cursor.continuation).toBeUndefined()

      // The next walk brings what moved past the first walk's bound, and nothing handed out before.
      yield* connectorTime(T0 + 7_200_000)
      const second = yield* pullAll(connector, last.cursor)
      const final = yield* simVersions(sim)
      expect(versionsOf(second).sort()).toEqual([id(1), id(35)].map((i) => `${i}@${final.get(i)}`).sort())
      const everything = [...first, ...second].flatMap((p) => p.orders)
      expect(new Set(versionsOf([...first, ...second])).size).toBe(everything.length)
      const latest = latestById(everything)
      expect(final.size).toBe(46)
      expect(updatedAts(latest)).toEqual(final)
      expect(latest.get(id(40))).toMatchObject({ cancelled: true, cancelReason: "cancelled" })
      expect(latest.get(id(12))!.lines[0]!.currentQuantity).toBe(latest.get(id(12))!.lines[0]!.quantity - 1)

      // A third walk hands out nothing.
      yield* connectorTime(T0 + 7_300_000)
      expect(versionsOf(yield* pullAll(connector, second[second.length - 1]!.cursor))).toEqual([])
    }))

  it.scoped("reads a full page of orders modified in one second by offset, even while some leave it", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      // 25 orders in one second (a bulk action), then 5 more a second apart.
      const burst = (yield* admin<{ ids: Array<number> }>(sim, "POST", "orders/bulk", { count: 25 })).ids
      sim.clock.now += 1000
      const after = (yield* admin<{ ids: Array<number> }>(sim, "POST", "orders/bulk", { count: 5, spacingSeconds: 1 })).ids
      const connector = yield* connectTo(sim, { pageSize: 10 })
      yield* connectorTime(T0 + 600_000)

      const first = yield* pullAll(connector, null, (_page, index) =>
        Effect.gen(function*() {
          if (index === 1) {
            // Three orders of the second being read leave it: the rows after them move up.
            sim.clock.now += 3_600_000
            for (const i of [2, 5, 14]) yield* admin(sim, "PATCH", `orders/${burst[i]}`, { customer_note: "moved on" })
          }
        }))
      yield* connectorTime(T0 + 7_200_000)
      const second = yield* pullAll(connector, first[first.length - 1]!.cursor)
      expect(handedOutOnce([...first, ...second])).toEqual(yield* simVersions(sim))
      // Orders 2 and 5 had been handed out before they left; 14 had not, so it comes only as its new version.
      const firstIds = new Set(first.flatMap((p) => p.orders.map((o) => Number(o.storeOrderId))))
      expect(firstIds).toEqual(new Set([...burst, ...after].filter((id) => id !== burst[14])))
      expect(second.flatMap((p) => p.orders.map((o) => Number(o.storeOrderId))).sort()).toEqual([burst[2], burst[5], burst[14]].sort())
    }))

  it.scoped("keeps up with a store that edits orders after every page it serves", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ seed: 5 })
      yield* admin(sim, "POST", "orders/bulk", { count: 40, spacingSeconds: 1 })
      yield* admin(sim, "POST", "churn", { perListQuery: 3 })
      const connector = yield* connectTo(sim, { pageSize: 7 })
      yield* connectorTime(T0 + 600_000)
      const first = yield* pullAll(connector, null, () =>
        Effect.sync(() => {
          sim.clock.now += 1000
        }))
      yield* admin(sim, "POST", "churn", { perListQuery: 0 })
      yield* connectorTime(T0 + 900_000)
      const second = yield* pullAll(connector, first[first.length - 1]!.cursor)
      expect(handedOutOnce([...first, ...second])).toEqual(yield* simVersions(sim))
      // Edited orders came again, as their new versions.
      expect(versionsOf([...first, ...second]).length).toBeGreaterThan(40)
    }))

  it.scoped("starts a first pull at `since`, inclusive, with GMT bounds a non-UTC site reads right", () =>
    Effect.gen(function*() {
      // The site runs at UTC−5: a bound sent with a "Z" would be shifted by five hours.
      const sim = yield* startSimulator({ gmtOffsetHours: -5 })
      const { ids } = yield* admin<{ ids: Array<number> }>(sim, "POST", "orders/bulk", { count: 6, spacingSeconds: 60 })
      const connector = yield* connectTo(sim)
      yield* connectorTime(T0 + 3_600_000)
      const since = new Date(T0 + 3 * 60_000).toISOString()
      const pages = Chunk.toReadonlyArray(yield* Stream.runCollect(connector.pull(null, { since })))
      expect(pages.flatMap((p) => p.orders.map((o) => Number(o.storeOrderId)))).toEqual(ids.slice(3))
      expect(pages[0]!.orders[0]!.updatedAt).toBe("2026-03-02T15:03:00Z")
    }))

  it.scoped("says where the REST API is not, and refuses a site without TLS", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      // A site whose REST API is not where the config says: an error that says so, not "no such order".
      const misplaced = yield* connectTo(sim, { url: `${sim.url}/shop` })
      expect(yield* Effect.flip(misplaced.getOrder("4021"))).toMatchObject({
        _tag: "StoreApiError",
        messages: [expect.stringContaining("is the REST API reachable")]
      })
      const insecure = yield* connectTo(sim, { url: "http://shop.example.com" })
      expect(yield* Effect.flip(insecure.getOrder("4021"))).toMatchObject({
        _tag: "StoreApiError",
        messages: [expect.stringContaining("https://")]
      })
    }))
})
