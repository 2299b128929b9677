import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { changeMatters } from "../../src/pipeline/ChangeDecision.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { ShipmentsRepo } from "../../src/repos/ShipmentsRepo.js"
import { testDatabases } from "../support/database.js"
import { sampleLine, sampleOrder } from "../support/orders.js"
import * as ReferenceId from "../../src/domain/ReferenceId.js"

const page = (orders: ReadonlyArray<ReturnType<typeof sampleOrder>>) =>
  orders.map((order) => ({ order, referenceId: ReferenceId.keyOf(order.storeKey, order.storeOrderId) }))

for (const database of testDatabases()) {
  // A standalone layer per backend (it.layer would share one memo map between them).
  layer(Layer.provideMerge(Layer.merge(OrdersRepo.Default, ShipmentsRepo.Default), database.layer))(
    `storePage and one-statement moves on ${database.name}`,
    (it) => {
      it.effect("stores a page in a few statements: new rows, newer versions that matter, and quiet ones (our own annotation coming back)", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          yield* TestClock.setTime(Date.parse("2026-11-21T08:00:00Z"))
          const first = yield* repo.storePage(
            "acme-shopify",
            page([sampleOrder({ storeOrderId: "p1" }), sampleOrder({ storeOrderId: "p2" }), sampleOrder({ storeOrderId: "p3" })]),
            changeMatters
          )
          expect([...first.values()].map((o) => o.outcome)).toEqual(["inserted", "inserted", "inserted"])
          const [p1, p2, p3] = ["p1", "p2", "p3"].map((id) => first.get(id)!.id)
          // p1 and p2 get drafts; p3 stays before its draft.
          for (const id of [p1!, p2!]) {
            yield* repo.transition(id, "pulled", "ready", { actor: "t", reason: "matched" })
            yield* repo.transition(id, "ready", "drafted", { actor: "t", reason: "drafted", nextAttemptAt: null })
          }
          yield* repo.transition(p3!, "pulled", "held", {
            actor: "t",
            reason: "no row",
            held: { code: "unmatched", details: {} },
            nextAttemptAt: null
          })

          yield* TestClock.adjust("1 minute")
          const later = "2026-11-20T11:00:00Z"
          const second = yield* repo.storePage(
            "acme-shopify",
            page([
              // Our annotation: a tag and a newer updatedAt, and the address's keys in another order.
              sampleOrder({
                storeOrderId: "p1",
                updatedAt: later,
                tags: ["podsync:drafted"],
                shipTo: { ...sampleOrder().shipTo!, name: "Anna Schmidt" }
              }),
              // The buyer's address changed after the draft: that matters.
              sampleOrder({ storeOrderId: "p2", updatedAt: later, shipTo: { ...sampleOrder().shipTo!, city: "Berlin" } }),
              // A line edited before the draft: that matters too.
              sampleOrder({
                storeOrderId: "p3",
                updatedAt: later,
                lines: [sampleLine({ quantity: 3, currentQuantity: 3, fulfillableQuantity: 3 })]
              }),
              // The same version twice in one page, and an older one of p1: the newest counts once.
              sampleOrder({ storeOrderId: "p1", updatedAt: "2026-11-20T10:30:00Z" })
            ]),
            changeMatters
          )
          expect(second.get("p1")).toMatchObject({ id: p1, outcome: "quiet", state: "drafted" })
          expect(second.get("p2")).toMatchObject({ id: p2, outcome: "changed", state: "drafted" })
          expect(second.get("p3")).toMatchObject({ id: p3, outcome: "changed", state: "held" })

          // Quiet: the newest version is stored, with no event and nothing made due.
          const quiet = yield* repo.byId(p1!)
          expect(quiet.order.tags).toEqual(["podsync:drafted"])
          expect((yield* repo.story(p1!)).map((e) => e.reason)).toEqual(["pulled from the store (#1001)", "matched", "drafted"])
          // A change that matters is recorded, and a held order is due again at once.
          expect((yield* repo.story(p3!)).map((e) => e.reason).at(-1)).toBe("the order changed in the store")
          expect((yield* repo.claim(["held"], 10, "m", 60)).map((o) => o.id)).toContain(p3)
          // The same version again: unchanged.
          const third = yield* repo.storePage(
            "acme-shopify",
            page([sampleOrder({ storeOrderId: "p2", updatedAt: later, shipTo: { ...sampleOrder().shipTo!, city: "Berlin" } })]),
            changeMatters
          )
          expect(third.get("p2")?.outcome).toBe("unchanged")
        }))

      it.effect("stores an order whose reference id would pass 255 characters under a stand-in, so its page is stored and planning can hold it", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          yield* TestClock.setTime(Date.parse("2026-11-21T08:30:00Z"))
          const long = `L-${"9".repeat(298)}`
          const stored = yield* repo.storePage(
            "acme-shopify",
            page([sampleOrder({ storeOrderId: long }), sampleOrder({ storeOrderId: "beside-long" })]),
            changeMatters
          )
          expect([...stored.values()].map((o) => o.outcome)).toEqual(["inserted", "inserted"])
          const row = yield* repo.byId(stored.get(long)!.id)
          expect(row.storeOrderId).toBe(long)
          expect(row.referenceId).toBe(ReferenceId.keyOf("acme-shopify", long))
          expect(row.referenceId.length).toBeLessThanOrEqual(255)
          expect((yield* repo.byReference(row.referenceId))?.id).toBe(row.id)
          // Pulled again: the same row, found by store key and store order id as always.
          const again = yield* repo.storePage("acme-shopify", page([sampleOrder({ storeOrderId: long })]), changeMatters)
          expect(again.get(long)?.outcome).toBe("unchanged")
        }))

      it.effect("stores the same version again when it now has what the store withheld, never when it has less", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          const withheld = [{ fields: ["email", "shipTo.line1"], reason: "Shopify withholds the buyer's details" }]
          const partial = sampleOrder({ storeOrderId: "w1", email: undefined, withheld })
          const stored = yield* repo.storePage("acme-shopify", page([partial]), changeMatters)
          const id = stored.get("w1")!.id
          yield* repo.transition(id, "pulled", "held", {
            actor: "t",
            reason: "withheld",
            held: { code: "withheld_by_store", details: {} },
            nextAttemptAt: null
          })
          // The same version, still withheld: nothing to store.
          expect((yield* repo.storePage("acme-shopify", page([partial]), changeMatters)).get("w1")?.outcome).toBe("unchanged")
          // The same version, now whole (the app was given access): stored, made due, and said.
          const whole = sampleOrder({ storeOrderId: "w1" })
          expect((yield* repo.storePage("acme-shopify", page([whole]), changeMatters)).get("w1")).toMatchObject({
            id,
            outcome: "changed",
            state: "held"
          })
          const after = yield* repo.byId(id)
          expect(after.order.email).toBe(whole.email)
          expect(after.order.withheld).toBeUndefined()
          // Due again at once: the match stage re-plans it.
          expect((yield* repo.claim(["held"], 10, "t", 30)).map((o) => o.id)).toContain(id)
          const story = yield* repo.story(id)
          expect(story[story.length - 1]?.reason).toBe("the store now gives podsync what it withheld before")
          // A less whole read of the same version (access taken away again) does not replace it.
          expect((yield* repo.storePage("acme-shopify", page([partial]), changeMatters)).get("w1")?.outcome).toBe("unchanged")
        }))

      it.effect("moves, records and gives back the claim in one statement; a guarded move waits for open shipments", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          const shipments = yield* ShipmentsRepo
          yield* TestClock.setTime(Date.parse("2026-11-21T09:00:00Z"))
          const { id } = yield* repo.upsertPulled(sampleOrder({ storeOrderId: "g1" }), ReferenceId.keyOf("acme-shopify", "g1"))
          const [claimed] = (yield* repo.claim(["pulled"], 50, "worker", 60)).filter((o) => o.id === id)
          expect(claimed).toBeDefined()
          const moved = yield* repo.transition(id, "pulled", "ready", {
            actor: "worker",
            reason: "matched",
            release: "worker",
            nextAttemptAt: new Date(0)
          })
          expect(moved.storeUpdatedAt?.toISOString()).toBe("2026-11-20T10:05:00.000Z")
          // Released: claimable again at once, by anyone.
          expect((yield* repo.claim(["ready"], 50, "other", 60)).map((o) => o.id)).toContain(id)
          // Another holder's claim is not given back by a move that names a different owner.
          yield* repo.transition(id, "ready", "drafted", {
            actor: "worker",
            reason: "drafted",
            release: "worker",
            nextAttemptAt: new Date(0)
          })
          yield* TestClock.adjust("1 second")
          expect((yield* repo.claim(["drafted"], 50, "third", 60)).map((o) => o.id)).not.toContain(id)

          yield* repo.transition(id, "drafted", "shipped", { actor: "t", reason: "shipped" })
          const counts = yield* shipments.recordMany([
            { orderId: id, podOrderId: "o-1", tracking: { number: "T-1" } },
            { orderId: id, podOrderId: "o-1", tracking: { number: "T-1" } },
            { orderId: id, podOrderId: "o-1", tracking: { number: "T-2", carrier: "DHL" } }
          ])
          expect(counts.get(id)).toBe(2)
          expect((yield* shipments.recordMany([{ orderId: id, podOrderId: "o-1", tracking: { number: "T-2" } }])).get(id)).toBeUndefined()
          const open = yield* shipments.forOrder(id)
          expect(open.map((s) => s.trackingNo)).toEqual(["T-1", "T-2"])
          yield* shipments.mark(open[0]!.id, "pushed", { attempt: true })
          // T-2 is still to push: the guarded move is refused and nothing is recorded.
          const refused = yield* repo.transition(id, "shipped", "fulfilled", { actor: "t", reason: "pushed", unlessOpenShipments: true })
            .pipe(Effect.flip)
          expect(refused._tag).toBe("StaleTransitionError")
          yield* shipments.mark(open[1]!.id, "pushed", { attempt: true })
          yield* repo.transition(id, "shipped", "fulfilled", { actor: "t", reason: "pushed", unlessOpenShipments: true })
          expect((yield* repo.byId(id)).state).toBe("fulfilled")
          expect((yield* repo.story(id)).map((e) => e.to)).toEqual(["pulled", "ready", "drafted", "shipped", "fulfilled"])
          expect((yield* shipments.forOrders([id, 999_999])).get(999_999)).toEqual([])
        }))
    }
  )
}

for (const database of testDatabases()) {
  layer(Layer.provideMerge(OrdersRepo.Default, database.layer))(`a draft claim as the write-ahead attempt on ${database.name}`, (it) => {
    it.effect("counts the attempt in the claim and hands out the count from before it", () =>
      Effect.gen(function*() {
        const repo = yield* OrdersRepo
        yield* TestClock.setTime(Date.parse("2026-11-21T10:00:00Z"))
        const { id } = yield* repo.upsertPulled(sampleOrder({ storeOrderId: "a1" }), "acme-shopify:a1")
        yield* repo.transition(id, "pulled", "ready", { actor: "t", reason: "matched", nextAttemptAt: new Date(0) })
        const [first] = (yield* repo.claim(["ready"], 50, "d", 60, { countsAttempt: true })).filter((o) => o.id === id)
        expect(first?.attempts).toBe(0)
        // Killed before it could say how the attempt went: the next claim knows an attempt may have reached the service.
        yield* TestClock.adjust("61 seconds")
        const [second] = (yield* repo.claim(["ready"], 50, "d2", 60, { countsAttempt: true })).filter((o) => o.id === id)
        expect(second?.attempts).toBe(1)
        yield* repo.release(id, "d2", new Date(0))
        const [plain] = (yield* repo.claim(["ready"], 50, "m", 60)).filter((o) => o.id === id)
        expect(plain?.attempts).toBe(2)
      }))
  })
}

describe("which newer versions matter", () => {
  const stored = (order: ReturnType<typeof sampleOrder>) => JSON.parse(JSON.stringify(order)) as Parameters<typeof changeMatters>[1]
  it("after the draft: only a cancel, the address and the buyer's units, whatever order the keys come back in", () => {
    const before = stored(sampleOrder())
    const reordered = { ...before, shipTo: Object.fromEntries(Object.entries(before.shipTo!).reverse()) as typeof before.shipTo }
    expect(changeMatters("drafted", before, reordered)).toBe(false)
    expect(
      changeMatters("drafted", before, {
        ...before,
        updatedAt: "2026-11-21T00:00:00Z",
        tags: ["podsync:drafted"],
        fulfillmentStatus: "fulfilled"
      })
    ).toBe(false)
    expect(changeMatters("drafted", before, { ...before, lines: before.lines.map((l) => ({ ...l, fulfillableQuantity: 0 })) })).toBe(false)
    expect(changeMatters("drafted", before, { ...before, cancelled: true })).toBe(true)
    expect(changeMatters("shipped", before, { ...before, shipTo: { ...before.shipTo!, postalCode: "10115" } })).toBe(true)
    expect(changeMatters("drafted", before, { ...before, lines: before.lines.map((l) => ({ ...l, currentQuantity: 1 })) })).toBe(true)
  })
  it("before the draft: anything planning reads, not tags or the raw payload", () => {
    const before = stored(sampleOrder())
    expect(changeMatters("held", before, { ...before, tags: ["vip"], raw: { other: true }, updatedAt: "2026-11-21T00:00:00Z" })).toBe(false)
    expect(changeMatters("held", before, { ...before, financialStatus: "pending" })).toBe(true)
    expect(changeMatters("ready", before, { ...before, lines: before.lines.map((l) => ({ ...l, fulfillableQuantity: 1 })) })).toBe(true)
    expect(changeMatters("pulled", before, { ...before, note: "gift" })).toBe(true)
  })
})
