// The fulfil stage on a claimed batch: every order's shipments pushed to a real store (the Shopify
// simulator over HTTP) in a few batched requests, each tracking exactly once, even when the batch
// is worked again after a crash left the push states unwritten.
import { afterAll, beforeAll, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { fulfillMany } from "../../src/pipeline/FulfillStage.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { ShipmentsRepo } from "../../src/repos/ShipmentsRepo.js"
import type { RunningShopifySimulator } from "../../src/simulator/shopify/index.js"
import { startShopifySimulator } from "../../src/simulator/shopify/index.js"
import { StoreConnectors } from "../../src/stores/StoreConnector.js"
import { testDatabases } from "../support/database.js"
import * as ReferenceId from "../../src/domain/ReferenceId.js"
import { simAdmin } from "../support/simAdmin.js"
import { connectTo, roomyBucket } from "../stores/shopify/harness.js"

let sim: RunningShopifySimulator
beforeAll(async () => {
  sim = await startShopifySimulator({ bucket: roomyBucket })
})
afterAll(() => sim.close())

const connectors = Layer.scoped(StoreConnectors, Effect.suspend(() => Effect.map(connectTo(sim), (c) => new Map([["acme-shopify", c]]))))

interface SimStats {
  readonly fulfillmentsByOrder: Record<string, number>
  readonly operations: Record<string, number>
}

/** A store order, pulled and stored, taken through its draft to shipped with these trackings recorded. */
const shippedOrder = (trackings: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const shipments = yield* ShipmentsRepo
    const store = (yield* StoreConnectors).get("acme-shopify")!
    const created = yield* Effect.promise(() =>
      simAdmin(sim.url, "POST", "orders", {
        financialStatus: "PAID",
        lineItems: [{ sku: "UTS01-WHITE-S", title: "Tee", quantity: 2, price: "24.00" }]
      })
    )
    const order = Option.getOrThrow(yield* store.getOrder(created.legacyResourceId as string))
    const { id } = yield* repo.upsertPulled(order, ReferenceId.keyOf("acme-shopify", order.storeOrderId))
    const lines = order.lines.map((l) => ({ lineId: l.lineId, quantity: l.currentQuantity }))
    yield* repo.transition(id, "pulled", "ready", { actor: "t", reason: "matched" })
    yield* repo.transition(id, "ready", "drafted", { actor: "t", reason: "drafted", podDraftId: `d-${id}`, plannedLines: lines })
    yield* repo.transition(id, "drafted", "shipped", { actor: "t", reason: "shipped", nextAttemptAt: new Date(0) })
    for (const number of trackings) yield* shipments.record(id, `pod-${id}`, { number, carrier: "UPS" })
    return { id, storeOrderId: order.storeOrderId }
  })

for (const database of testDatabases()) {
  layer(Layer.mergeAll(OrdersRepo.Default, ShipmentsRepo.Default, connectors).pipe(Layer.provideMerge(database.layer)), {
    excludeTestServices: true
  })(
    `the fulfil stage on ${database.name}`,
    (it) => {
      it.effect("pushes a claimed batch in a few requests, one store fulfilment per tracking, and not again when the batch is repeated", () =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          const shipments = yield* ShipmentsRepo
          const tag = database.name.slice(0, 2).toUpperCase()
          const plain = yield* Effect.forEach([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], (n) => shippedOrder([`1Z${tag}${n}`]))
          // Two packages: the first covers every planned line, so the second joins its fulfilment.
          const twoPackages = yield* shippedOrder([`1Z${tag}A1`, `1Z${tag}A2`])
          const cancelled = yield* shippedOrder([`1Z${tag}C`])
          yield* Effect.promise(() => simAdmin(sim.url, "POST", `orders/${cancelled.storeOrderId}/cancel`, {}))
          const before = (yield* Effect.promise(() => simAdmin(sim.url, "GET", "stats"))) as SimStats
          const ours = [...plain, twoPackages, cancelled].map((o) => o.id)
          const claimed = (yield* repo.claim(["shipped"], 50, "fulfil-1", 60)).filter((o) => ours.includes(o.id))
          expect(claimed.length).toBe(14)

          yield* fulfillMany(claimed, "fulfil-1")

          const after = (yield* Effect.promise(() => simAdmin(sim.url, "GET", "stats"))) as SimStats
          for (const o of [...plain, twoPackages]) {
            expect(after.fulfillmentsByOrder[o.storeOrderId]).toBe(1)
            expect((yield* repo.byId(o.id)).state).toBe("fulfilled")
          }
          expect(after.fulfillmentsByOrder[cancelled.storeOrderId]).toBeUndefined()
          expect((yield* repo.byId(cancelled.id)).state).toBe("failed")
          expect((yield* shipments.forOrder(twoPackages.id)).map((s) => s.pushState)).toEqual(["pushed", "pushed"])
          expect((yield* repo.story(twoPackages.id)).map((e) => e.reason).join("\n")).toContain(
            `tracking 1Z${tag}A2 was added to the store's fulfilment of the earlier package`
          )
          const stored = (yield* Effect.promise(() => simAdmin(sim.url, "GET", `orders/${twoPackages.storeOrderId}`))) as {
            fulfillments: Array<{ tracking: Array<{ number: string }> }>
          }
          expect(stored.fulfillments.map((f) => f.tracking.map((t) => t.number))).toEqual([[`1Z${tag}A1`, `1Z${tag}A2`]])
          // Two rounds (the second only for the two-package order): 14 orders read in one query, then 1; one mutation per round.
          const delta = (name: string) => (after.operations[name] ?? 0) - (before.operations[name] ?? 0)
          expect(delta("PodsyncFulfillmentStates")).toBe(2)
          expect(delta("PodsyncFulfillmentCreateMany")).toBe(1)
          expect(delta("PodsyncFulfillmentTrackingInfoUpdate")).toBe(1)
          expect(delta("PodsyncFulfillmentState") + delta("PodsyncFulfillmentCreate")).toBe(0)

          // A crash after the pushes but before their states were written: the batch comes again.
          const again = plain.slice(0, 5)
          for (const o of again) {
            const [s] = yield* shipments.forOrder(o.id)
            yield* shipments.markMany([{ id: s!.id, state: "pending" }])
            yield* repo.transition(o.id, "fulfilled", "shipped", { actor: "t", reason: "replayed", nextAttemptAt: new Date(0) })
          }
          const reclaimed = (yield* repo.claim(["shipped"], 50, "fulfil-2", 60)).filter((o) => ours.includes(o.id))
          expect(reclaimed.map((o) => o.id).sort()).toEqual(again.map((o) => o.id).sort())
          yield* fulfillMany(reclaimed, "fulfil-2")
          const last = (yield* Effect.promise(() => simAdmin(sim.url, "GET", "stats"))) as SimStats
          for (const o of again) {
            expect(last.fulfillmentsByOrder[o.storeOrderId]).toBe(1)
            expect((yield* repo.byId(o.id)).state).toBe("fulfilled")
          }
        }))
    }
  )
}
