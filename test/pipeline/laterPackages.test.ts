// Reconciliation finds a box the POD service ships after the order was fulfilled, with no webhook:
// each fulfilled order is read whole at a fixed spacing for a while, then no more (TestClock).
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { followUp, lookForLaterPackages } from "../../src/pipeline/ReconcileStage.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { ShipmentsRepo } from "../../src/repos/ShipmentsRepo.js"
import { testDatabases } from "../support/database.js"
import { admin, recordingPodClientLayer, sharedPodSimulator } from "../pod/podSim.js"
import { shippedOrder } from "./podFollowing.js"

const sim = sharedPodSimulator()
const operations: Array<string> = []
const HOUR = 3_600_000
const looks = { everyMs: HOUR, forMs: 2 * HOUR }

for (const database of testDatabases()) {
  layer(
    Layer.mergeAll(OrdersRepo.Default, ShipmentsRepo.Default, recordingPodClientLayer(() => sim.url, operations)).pipe(
      Layer.provideMerge(database.layer)
    )
  )(`looks for later packages on ${database.name}`, (it) => {
    it.effect("reads a fulfilled order once an hour for two hours, records a later box, then stops", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.parse("2026-11-25T12:00:00Z"))
        const repo = yield* OrdersRepo
        const shipments = yield* ShipmentsRepo
        const id = `lp${database.name.slice(0, 2)}`
        const order = yield* shippedOrder(sim.url, id)
        yield* followUp({ podOrderId: order.podOrderId, referenceId: order.reference, event: "order_completed" }, "t")
        yield* repo.transition(order.rowId, "shipped", "fulfilled", { actor: "t", reason: "tracking pushed to the store" })
        const look = () =>
          Effect.gen(function*() {
            operations.length = 0
            const result = yield* lookForLaterPackages("reconcile", looks)
            return { ...result, calls: [...operations] }
          })

        // Not due yet: nothing is read.
        expect(yield* look()).toEqual({ looked: 0, found: 0, calls: [] })
        // A second box ships; an hour later the look reads the order whole and the order is shipped again.
        yield* Effect.promise(() =>
          admin(sim.url, "POST", `/orders/${order.podOrderId}/ship`, { trackings: [{ tracking_no: `1Z${id}B`, carrier: "UPS" }] })
        )
        yield* TestClock.adjust("1 hour")
        expect(yield* look()).toEqual({ looked: 1, found: 1, calls: ["orders.get"] })
        expect((yield* repo.byId(order.rowId)).state).toBe("shipped")
        expect((yield* shipments.forOrder(order.rowId)).map((s) => s.trackingNo)).toEqual([`1Z${id}A`, `1Z${id}B`])
        // Pushed again; the next look finds nothing new, and the one after is past the window.
        yield* repo.transition(order.rowId, "shipped", "fulfilled", { actor: "t", reason: "tracking pushed to the store" })
        expect(yield* look()).toEqual({ looked: 0, found: 0, calls: [] })
        yield* TestClock.adjust("1 hour")
        expect(yield* look()).toEqual({ looked: 1, found: 0, calls: ["orders.get"] })
        yield* TestClock.adjust("1 hour")
        expect(yield* look()).toEqual({ looked: 0, found: 0, calls: [] })
        yield* TestClock.adjust("5 days")
        expect(yield* look()).toEqual({ looked: 0, found: 0, calls: [] })
        // Turned off: not even the due orders are looked for.
        expect(yield* lookForLaterPackages("reconcile", { everyMs: HOUR, forMs: 0 })).toEqual({ looked: 0, found: 0 })
      }), 30_000)
  })
}
