import { expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { ambiguousMessage, lookUpOrder } from "../../src/pipeline/Explain.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { ShipmentsRepo } from "../../src/repos/ShipmentsRepo.js"
import { testDatabases } from "../support/database.js"
import { sampleOrder } from "../support/orders.js"

for (const database of testDatabases()) {
  // A standalone layer per backend: it.layer would share one memo map and build the second suite's services on the first one's database.
  layer(Layer.provideMerge(Layer.merge(OrdersRepo.Default, ShipmentsRepo.Default), database.layer))(
    `OrdersRepo on ${database.name}`,
    (it) => {
      it.effect("stores one row per store order: the same version twice changes nothing, a newer one updates, an older one is ignored", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          const first = yield* repo.upsertPulled(sampleOrder({ storeOrderId: "u1" }), "acme-shopify:u1")
          expect(first.outcome).toBe("inserted")
          expect((yield* repo.upsertPulled(sampleOrder({ storeOrderId: "u1" }), "acme-shopify:u1")).outcome).toBe("unchanged")
          const newer = sampleOrder({ storeOrderId: "u1", updatedAt: "2026-11-20T11:00:00Z", note: "gift wrap" })
          expect((yield* repo.upsertPulled(newer, "acme-shopify:u1")).outcome).toBe("changed")
          const older = sampleOrder({ storeOrderId: "u1", updatedAt: "2026-11-20T10:30:00Z", note: "stale" })
          expect((yield* repo.upsertPulled(older, "acme-shopify:u1")).outcome).toBe("unchanged")
          const stored = (yield* repo.byReference("acme-shopify:u1"))!
          expect(stored.id).toBe(first.id)
          expect(stored.order.note).toBe("gift wrap")
          expect(stored.order).toEqual(newer)
          const story = yield* repo.story(stored.id)
          expect(story.map((e) => e.reason)).toEqual(["pulled from the store (#1001)", "the order changed in the store"])
        }))

      it.effect("never hands one order to two claimers, and reclaims a lease left by a killed process", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          yield* TestClock.setTime(Date.parse("2026-11-21T08:00:00Z"))
          for (let i = 0; i < 6; i++) yield* repo.upsertPulled(sampleOrder({ storeOrderId: `c${i}` }), `acme-shopify:c${i}`)
          const [a, b] = yield* Effect.all([repo.claim(["pulled"], 4, "replica-a", 60), repo.claim(["pulled"], 4, "replica-b", 60)], {
            concurrency: "unbounded"
          })
          const ids = [...a!, ...b!].map((o) => o.referenceId).filter((r) => r.startsWith("acme-shopify:c"))
          expect(new Set(ids).size).toBe(ids.length)
          expect(ids.length).toBe(6)
          // Replica a dies holding its leases: nothing is claimable until they expire.
          expect((yield* repo.claim(["pulled"], 10, "replica-c", 60)).filter((o) => o.referenceId.startsWith("acme-shopify:c"))).toEqual([])
          yield* TestClock.adjust("61 seconds")
          const reclaimed = (yield* repo.claim(["pulled"], 10, "replica-c", 60)).filter((o) => o.referenceId.startsWith("acme-shopify:c"))
          expect(reclaimed.length).toBe(6)
        }))

      it.effect("leaves a held order alone until something wakes it", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          const { id } = yield* repo.upsertPulled(sampleOrder({ storeOrderId: "w1" }), "acme-shopify:w1")
          const [claimed] = (yield* repo.claim(["pulled"], 50, "m", 60)).filter((o) => o.id === id)
          expect(claimed).toBeDefined()
          yield* repo.transition(id, "pulled", "held", {
            actor: "match",
            reason: "no mapping row",
            held: { code: "unmatched", details: {} },
            nextAttemptAt: null
          })
          yield* repo.release(id, "m", null)
          expect((yield* repo.claim(["held"], 50, "m", 60)).some((o) => o.id === id)).toBe(false)
          expect(yield* repo.wake(["held"], "acme-shopify")).toBeGreaterThan(0)
          expect((yield* repo.claim(["held"], 50, "m", 60)).some((o) => o.id === id)).toBe(true)
        }))

      it.effect("moves an order only from the state it is in, recording every step", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          const { id } = yield* repo.upsertPulled(sampleOrder({ storeOrderId: "t1" }), "acme-shopify:t1")
          yield* repo.transition(id, "pulled", "held", {
            actor: "match",
            reason: "no mapping row",
            held: { code: "unmatched", details: { sku: "X" } }
          })
          const illegal = yield* repo.transition(id, "held", "shipped", { actor: "test", reason: "skip ahead" }).pipe(Effect.flip)
          expect(illegal._tag).toBe("IllegalTransitionError")
          const stale = yield* repo.transition(id, "pulled", "ready", { actor: "test", reason: "late" }).pipe(Effect.flip)
          expect(stale._tag).toBe("StaleTransitionError")
          yield* repo.transition(id, "held", "ready", { actor: "match", reason: "mapping row added" })
          // Arrays in jsonb columns: node-pg would send a PostgreSQL array literal if they were not sent as JSON text.
          const lines = [{ lineId: "gid://shopify/LineItem/1", quantity: 2 }, { lineId: "gid://shopify/LineItem/2", quantity: 1 }]
          yield* repo.transition(id, "ready", "drafted", {
            actor: "draft",
            reason: "draft created",
            podDraftId: "d-1",
            plannedLines: lines,
            data: ["a", "b"]
          })
          const stored = yield* repo.byId(id)
          expect(stored).toMatchObject({ state: "drafted", podDraftId: "d-1", heldReason: null, plannedLines: lines })
          const story = yield* repo.story(id)
          expect(story.map((e) => `${e.from}->${e.to}`)).toEqual(["null->pulled", "pulled->held", "held->ready", "ready->drafted"])
        }))
      it.effect("moves many orders in one statement: each from its own state, stale ones left out, every move recorded", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          const ids: Array<number> = []
          for (let i = 0; i < 4; i++) ids.push((yield* repo.upsertPulled(sampleOrder({ storeOrderId: `m${i}` }), `acme-shopify:m${i}`)).id)
          const [a, b, c, d] = ids as [number, number, number, number]
          const claimed = (yield* repo.claim(["pulled"], 50, "owner-1", 60)).filter((o) => ids.includes(o.id))
          expect(claimed.length).toBe(4)
          yield* repo.transition(d, "pulled", "held", {
            actor: "test",
            reason: "held elsewhere",
            held: { code: "unmatched", details: { sku: "X" } }
          })
          const moved = yield* repo.transitionMany([
            {
              id: a,
              from: "pulled",
              to: "ready",
              change: { actor: "match", reason: "matched every line", release: "owner-1", nextAttemptAt: new Date(0) }
            },
            {
              id: b,
              from: "pulled",
              to: "held",
              change: {
                actor: "match",
                reason: "no mapping row",
                release: "owner-1",
                nextAttemptAt: null,
                held: { code: "unmatched", details: { sku: "Y" } }
              }
            },
            // Released only by the claim's holder: another owner's release leaves the lease alone.
            {
              id: c,
              from: "pulled",
              to: "cancelled",
              change: { actor: "match", reason: "cancelled in the store", release: "someone-else", data: { why: "test" } }
            },
            // Stale: it is held now, not pulled.
            { id: d, from: "pulled", to: "ready", change: { actor: "match", reason: "late", release: "owner-1" } }
          ])
          expect([...moved.keys()].sort()).toEqual([a, b, c].sort())
          expect(yield* repo.byId(a)).toMatchObject({ state: "ready", heldReason: null })
          expect(yield* repo.byId(b)).toMatchObject({ state: "held", heldReason: "unmatched", heldDetails: { sku: "Y" } })
          expect(yield* repo.byId(d)).toMatchObject({ state: "held", heldReason: "unmatched", heldDetails: { sku: "X" } })
          // a and b were given back (claimable again once due); c and d are still claimed by owner-1.
          yield* repo.releaseMany([{ id: d, nextAttemptAt: new Date(0) }], "not-the-owner")
          const again = (yield* repo.claim(["ready", "held", "cancelled"], 50, "owner-2", 60)).map((o) => o.id)
          expect(again).toContain(a)
          expect(again).not.toContain(c)
          expect(again).not.toContain(d)
          yield* repo.releaseMany([{ id: c, nextAttemptAt: new Date(0) }, { id: d, nextAttemptAt: null }], "owner-1")
          const third = (yield* repo.claim(["ready", "held", "cancelled"], 50, "owner-3", 60)).map((o) => o.id)
          expect(third).toContain(c)
          // Released with no next attempt: due only when something wakes it.
          expect(third).not.toContain(d)
          const story = yield* repo.story(c)
          expect(story.at(-1)).toMatchObject({
            from: "pulled",
            to: "cancelled",
            actor: "match",
            reason: "cancelled in the store",
            data: { why: "test" }
          })
          expect((yield* repo.story(d)).map((e) => e.reason)).not.toContain("late")
          const illegal = yield* repo.transitionMany([{ id: a, from: "ready", to: "fulfilled", change: { actor: "t", reason: "skip" } }])
            .pipe(Effect.flip)
          expect(illegal._tag).toBe("IllegalTransitionError")
        }))

      it.effect("keeps a shipped order shipped while one of its shipments is still to push, and renews many leases at once", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          const shipments = yield* ShipmentsRepo
          yield* TestClock.setTime(Date.parse("2026-11-21T09:00:00Z"))
          const ids: Array<number> = []
          for (let i = 0; i < 2; i++) {
            const { id } = yield* repo.upsertPulled(sampleOrder({ storeOrderId: `f${i}` }), `acme-shopify:f${i}`)
            for (const [from, to] of [["pulled", "ready"], ["ready", "drafted"], ["drafted", "shipped"]] as const) {
              yield* repo.transition(id, from, to, { actor: "test", reason: to })
            }
            yield* shipments.record(id, `pod-${i}`, { number: `TRK${i}` })
            ids.push(id)
          }
          const [open, done] = ids as [number, number]
          const byOrder = yield* shipments.forOrders(ids)
          yield* shipments.markMany([{ id: byOrder.get(done)![0]!.id, state: "pushed", detail: { attempt: true, fulfillmentId: "F-1" } }])
          expect((yield* shipments.forOrder(done))[0]).toMatchObject({ pushState: "pushed", attempts: 1 })
          expect((yield* shipments.forOrder(open))[0]).toMatchObject({ pushState: "pending", attempts: 0 })
          const claimed = (yield* repo.claim(["shipped"], 50, "f", 60)).map((o) => o.id)
          expect(claimed).toEqual(expect.arrayContaining(ids))
          yield* TestClock.adjust("30 seconds")
          expect([...(yield* repo.renewLeases([...ids, 999_999], "f", 60))].sort()).toEqual([...ids].sort())
          expect((yield* repo.renewLeases(ids, "not-f", 60)).size).toBe(0)
          const moved = yield* repo.transitionMany(ids.map((id) => ({
            id,
            from: "shipped" as const,
            to: "fulfilled" as const,
            change: { actor: "f", reason: "tracking pushed to the store", release: "f", unlessOpenShipments: true, nextAttemptAt: null }
          })))
          expect([...moved.keys()]).toEqual([done])
          expect((yield* repo.byId(open)).state).toBe("shipped")
          expect((yield* repo.byId(done)).state).toBe("fulfilled")
        }))

      it.effect("finds the order a seller means by what the store shows (#1006, 1006, the order id), per store when two have it", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          yield* repo.upsertPulled(sampleOrder({ storeOrderId: "n1", name: "#7006" }), "acme-shopify:n1")
          yield* repo.upsertPulled(sampleOrder({ storeKey: "acme-woo", storeOrderId: "7006", name: "#7006" }), "acme-woo:7006")
          yield* repo.upsertPulled(sampleOrder({ storeOrderId: "n2", name: "#7007" }), "acme-shopify:n2")
          const found = (said: string, store?: string) =>
            Effect.map(
              lookUpOrder(said, store),
              (l) => l._tag === "Found" ? l.story.referenceId : l._tag === "Ambiguous" ? l.references : l._tag
            )
          expect(yield* found("acme-shopify:n2")).toBe("acme-shopify:n2")
          expect(yield* found("#7007")).toBe("acme-shopify:n2")
          expect(yield* found("7007")).toBe("acme-shopify:n2")
          expect(yield* found("#7006")).toEqual(["acme-shopify:n1", "acme-woo:7006"])
          expect(yield* found("#7006", "acme-woo")).toBe("acme-woo:7006")
          expect(yield* found("n1", "acme-shopify")).toBe("acme-shopify:n1")
          expect(yield* found("#9999")).toBe("NotFound")
          expect(ambiguousMessage("#7006", ["acme-shopify:n1", "acme-woo:7006"])).toBe(
            "#7006 is more than one order: acme-shopify:n1, acme-woo:7006. Give the reference, or add --store KEY"
          )
        }))
    }
  )
}
