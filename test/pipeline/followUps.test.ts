// POD webhook hints followed up together: status events by one list call, known packages by none, other packages read whole.
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { followUpMany } from "../../src/pipeline/ReconcileStage.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { ShipmentsRepo } from "../../src/repos/ShipmentsRepo.js"
import { testDatabases } from "../support/database.js"
import { admin, recordingPodClientLayer, sharedPodSimulator } from "../pod/podSim.js"
import { shippedOrder as shippedAt } from "./podFollowing.js"

const sim = sharedPodSimulator()

/** The client under test, with a gate that records each operation it lets through. */
const operations: Array<string> = []
const podLayer = recordingPodClientLayer(() => sim.url, operations)

const shippedOrder = (id: string) => shippedAt(sim.url, id)

type Shipped = Effect.Effect.Success<ReturnType<typeof shippedOrder>>

/** One more box of an order, shipped at the simulator. */
const shipBox = (order: Shipped, number: string) =>
  Effect.promise(() => admin(sim.url, "POST", `/orders/${order.podOrderId}/ship`, { trackings: [{ tracking_no: number, carrier: "UPS" }] }))

/** The POD calls that following one tracking event naming `number` made. */
const trackingEvent = (order: Shipped, number: string) =>
  Effect.gen(function*() {
    operations.length = 0
    const hint = { podOrderId: order.podOrderId, referenceId: order.reference, topic: "tracking_order_updated", trackingNumber: number }
    yield* followUpMany([hint], "webhook")
    return [...operations]
  })

for (const database of testDatabases()) {
  layer(Layer.mergeAll(OrdersRepo.Default, ShipmentsRepo.Default, podLayer).pipe(Layer.provideMerge(database.layer)), {
    excludeTestServices: true
  })(
    `followUpMany on ${database.name}`,
    (it) => {
      it.effect(
        "answers status events with one list call, known packages with none, and reads an order whole only for another package",
        () =>
          Effect.gen(function*() {
            const repo = yield* OrdersRepo
            const shipments = yield* ShipmentsRepo
            const suffix = database.name.slice(0, 2)
            const orders = yield* Effect.forEach([1, 2, 3], (n) => shippedOrder(`${suffix}${n}`))
            operations.length = 0

            // Completed events for three orders, one of them delivered twice, and the V1 shape (POD id only).
            const hints = [
              ...orders.map((o) => ({ podOrderId: o.podOrderId, referenceId: o.reference, topic: "order_completed" })),
              { podOrderId: orders[0]!.podOrderId, topic: "order_completed" }
            ]
            yield* followUpMany(hints, "webhook")
            expect(operations).toEqual(["orders.list"])
            for (const o of orders) {
              expect((yield* repo.byId(o.rowId)).state).toBe("shipped")
              expect((yield* shipments.forOrder(o.rowId)).map((s) => s.trackingNo)).toHaveLength(1)
            }

            // The tracking events of those packages name numbers podsync holds now: answered with no call.
            operations.length = 0
            const delivered = yield* followUpMany(
              orders.map((o, i) => ({
                podOrderId: o.podOrderId,
                referenceId: o.reference,
                topic: "tracking_order_updated",
                trackingNumber: `1Z${suffix}${i + 1}A`
              })),
              "webhook"
            )
            expect(operations).toEqual([])
            expect(delivered).toMatchObject({ answered: 3, listed: 0, readWhole: 0 })

            // The tracking event of an order that shipped while its other events were lost: one list call shows it.
            const quiet = yield* shippedOrder(`${suffix}4`)
            expect(yield* trackingEvent(quiet, `1Z${suffix}4A`)).toEqual(["orders.list"])
            expect((yield* repo.byId(quiet.rowId)).state).toBe("shipped")

            // A second package: the tracking event reads that order whole and records it.
            const second = orders[1]!
            yield* shipBox(second, `1Z${suffix}2B`)
            operations.length = 0
            yield* followUpMany([
              { podOrderId: second.podOrderId, referenceId: second.reference, topic: "tracking_order_updated" },
              { podOrderId: second.podOrderId, referenceId: second.reference, topic: "order_completed" }
            ], "webhook")
            expect(operations).toEqual(["orders.get"])
            expect((yield* shipments.forOrder(second.rowId)).map((s) => s.trackingNo).sort()).toEqual([`1Z${suffix}2A`, `1Z${suffix}2B`])
            // Its number named by the delivery: the order already has a tracking, so the list could not show it; read whole.
            const third = orders[2]!
            yield* shipBox(third, `1Z${suffix}3B`)
            expect(yield* trackingEvent(third, `1Z${suffix}3B`)).toEqual(["orders.get"])
            expect(yield* shipments.forOrder(third.rowId)).toHaveLength(2)

            // An order we do not hold: read whole, found not ours, nothing recorded.
            operations.length = 0
            const stranger = yield* Effect.promise(() =>
              admin<{ order_id: string }>(sim.url, "POST", "/drafts/none/checkout", { paid: true }).catch(() => ({ order_id: "missing" }))
            )
            yield* followUpMany([{ podOrderId: stranger.order_id, topic: "order_completed" }], "webhook").pipe(Effect.ignore)
            expect(operations).toEqual(["orders.get"])
          }),
        30_000
      )
    }
  )
}
