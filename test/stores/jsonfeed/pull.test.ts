import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Option, Redacted, Stream } from "effect"
import type { StoreCursor } from "../../../src/domain/StoreTypes.js"
import type { PulledPage, StoreConnector } from "../../../src/stores/StoreConnector.js"
import { admin, connectTo, settle, type SimOrder, startSimulator, stats } from "./harness.js"
import type { RunningJsonFeedSimulator } from "../../../src/simulator/jsonfeed/index.js"
import { type PullDriver, refusesWrongCredentials, resumesAfterACrash, startsAtSince } from "../contract/PullContract.js"
import { handedOutOnce, pagedToTheEnd, pullAll, versionsOf } from "../contract/PullWalks.js"

/** Pulls one walk to its end, letting `between` act after each page is "stored"; with the cursor it ends on. */
const walk = (
  connector: StoreConnector,
  cursor: StoreCursor | null,
  between: (page: PulledPage, index: number) => Effect.Effect<void> = () => Effect.void
) => Effect.map(pullAll(connector, cursor, between), (pages) => ({ pages, cursor: pages[pages.length - 1]!.cursor }))

/** Final `updated_at` of every order in the simulator, by id, canonical like the connector's. */
const simVersions = (sim: Parameters<typeof admin>[0]) =>
  Effect.map(admin<{ orders: Array<SimOrder> }>(sim, "GET", "orders"), ({ orders }) =>
    // As instants: "…08.000Z" from the storefront and the connector's canonical "…08Z" are the same version.
    new Map(orders.map((o) => [o.id, new Date(o.updated_at).toISOString()])))

/** A version as an instant's canonical text: the storefront's "…08.000Z" and the connector's "…08Z" are one version. */
const instant = (iso: string) => new Date(iso).toISOString()

const driver: PullDriver<RunningJsonFeedSimulator> = {
  test: it.scopedLive,
  start: startSimulator,
  resource: "orders",
  noteField: "note",
  connect: connectTo,
  // A walk covers orders updated strictly before it started: the storefront's clock moves on first.
  beforeWalk: (sim) => Effect.asVoid(settle(sim)),
  beforeEdit: () => Effect.void,
  walksToCatchUp: 2,
  simVersions,
  versionForm: instant
}

/** `count` orders on a storefront whose clock has moved on past them, and a connector paging `pageSize` at a time. */
const settledOrders = (count: number, pageSize: number) =>
  Effect.gen(function*() {
    const sim = yield* startSimulator()
    const { ids } = yield* admin<{ ids: Array<string> }>(sim, "POST", "orders/bulk", { count })
    yield* settle(sim)
    return { sim, ids, connector: yield* connectTo(sim, { pageSize }) }
  })

describe("JSON feed incremental pull", () => {
  startsAtSince(driver, ({ now }) => now)
  refusesWrongCredentials(driver, {
    refused: (sim) => connectTo(sim, { token: Redacted.make("jf_wrong_token") }),
    secret: "jf_wrong",
    orderId: "ord_1001",
    operation: "order"
  })
  resumesAfterACrash(driver)

  it.scopedLive("walks many pages while orders are edited mid-walk, losing and duplicating nothing", () =>
    Effect.gen(function*() {
      const { sim, ids, connector } = yield* settledOrders(45, 10)
      let created = ""
      let editedAfterPull = ""

      const first = yield* walk(connector, null, (page, index) =>
        Effect.gen(function*() {
          if (index === 0) {
            editedAfterPull = page.orders[0]!.storeOrderId
            yield* admin(sim, "PATCH", `orders/${editedAfterPull}`, { note: "edited after it was pulled" })
            yield* admin(sim, "PATCH", `orders/${ids[30]}`, { note: "edited before it was reached" })
          }
          if (index === 1) {
            yield* admin(sim, "POST", `orders/${ids[40]}/cancel`, {})
            created = (yield* admin<SimOrder>(sim, "POST", "orders", {})).id
            yield* admin(sim, "PATCH", `orders/${ids[12]}`, { financialStatus: "refunded" })
          }
        }))
      pagedToTheEnd(first.pages)
      expect(first.cursor.continuation).toBeUndefined()
      // Orders edited before the walk reached them left it for the next one: none is lost meanwhile.
      const firstIds = new Set(first.pages.flatMap((p) => p.orders.map((o) => o.storeOrderId)))
      expect(firstIds.has(ids[30]!)).toBe(false)
      expect(firstIds.has(ids[40]!)).toBe(false)
      expect(firstIds.has(created)).toBe(false)

      yield* settle(sim)
      const second = yield* walk(connector, first.cursor)
      expect(second.pages.flatMap((p) => p.orders.map((o) => o.storeOrderId)).sort()).toEqual(
        [editedAfterPull, ids[30]!, ids[40]!, created, ids[12]!].sort()
      )
      const final = yield* simVersions(sim)
      expect(final.size).toBe(46)
      expect(handedOutOnce([...first.pages, ...second.pages], instant)).toEqual(final)
      expect(second.pages.flatMap((p) => p.orders).find((o) => o.storeOrderId === ids[40])).toMatchObject({ cancelled: true })

      // The overlap is re-read, but nothing already handed out comes again; then one change comes once.
      const third = yield* walk(connector, second.cursor)
      expect(versionsOf(third.pages)).toEqual([])
      const edited = yield* admin<SimOrder>(sim, "PATCH", `orders/${ids[5]}`, { tags: ["podsync:test"] })
      yield* settle(sim)
      const fourth = yield* walk(connector, third.cursor)
      expect(versionsOf(fourth.pages, instant)).toEqual([`${ids[5]}@${instant(edited.updated_at)}`])
    }))

  it.scopedLive("converges under a storefront that keeps editing orders while podsync pages", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      yield* admin(sim, "POST", "orders/bulk", { count: 60 })
      yield* admin(sim, "POST", "churn", { perPage: 4 })
      const connector = yield* connectTo(sim, { pageSize: 7 })
      const walks: Array<ReadonlyArray<PulledPage>> = []
      let cursor: StoreCursor | null = null
      for (let i = 0; i < 3; i++) {
        const result: { pages: ReadonlyArray<PulledPage>; cursor: StoreCursor } = yield* walk(connector, cursor)
        walks.push(result.pages)
        cursor = result.cursor
      }
      yield* admin(sim, "POST", "churn", { perPage: 0 })
      yield* settle(sim)
      walks.push((yield* walk(connector, cursor)).pages)
      expect(handedOutOnce(walks.flat(), instant)).toEqual(yield* simVersions(sim))
    }))

  it.scopedLive("walks the window again from its start when the storefront refuses a persisted cursor", () =>
    Effect.gen(function*() {
      const { ids, connector } = yield* settledOrders(12, 5)
      const stale: StoreCursor = {
        watermark: "1970-01-01T00:00:00Z",
        continuation: JSON.stringify({ since: null, cursor: "expired-or-from-another-deploy", high: "1970-01-01T00:00:00Z", upper: null })
      }
      const result = yield* walk(connector, stale)
      expect(result.pages.flatMap((p) => p.orders.map((o) => o.storeOrderId))).toEqual(ids)
    }))

  it.scopedLive("reads one order by id, none for an unknown one, and sends the limit asked", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", {})
      const connector = yield* connectTo(sim, { pageSize: 3 })
      expect(Option.map(yield* connector.getOrder(order.id), (o) => o.updatedAt)).toEqual(Option.some(order.updated_at))
      expect(yield* connector.getOrder("ord_999999")).toEqual(Option.none())
      expect(yield* connector.getOrder("no/such order?")).toEqual(Option.none())
      const before = (yield* stats(sim)).requestsByOperation["listOrders"] ?? 0
      yield* admin(sim, "POST", "orders/bulk", { count: 6 })
      yield* settle(sim)
      const pages = Chunk.toReadonlyArray(yield* Stream.runCollect(connector.pull(null)))
      expect(pages.map((p) => p.orders.length)).toEqual([3, 3, 1])
      expect((yield* stats(sim)).requestsByOperation["listOrders"]).toBe(before + 3)
    }))
})
