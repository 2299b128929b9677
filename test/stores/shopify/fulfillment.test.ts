import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { DRAFTED_TAG, draftedAnnotation } from "../../../src/domain/StoreTypes.js"
import type { RunningShopifySimulator } from "../../../src/simulator/shopify/index.js"
import { fulfilsByLines, threeLines, upsTracking, type LinesDriver, type PlacedOrder } from "../contract/FulfillmentContract.js"
import { admin, connectTo, startSimulator } from "./harness.js"

interface SimLine {
  readonly id: string
  readonly quantity: number
}
interface SimOrder {
  readonly legacyResourceId: string
  readonly updatedAt: string
  readonly lineItems: ReadonlyArray<SimLine>
  readonly tags: ReadonlyArray<string>
  readonly metafields: ReadonlyArray<{ namespace: string; key: string; value: string }>
  readonly fulfillmentOrders: ReadonlyArray<{ id: string; status: string }>
  readonly fulfillments: ReadonlyArray<{
    id: string
    status: string
    notifyCustomer: boolean
    tracking: ReadonlyArray<{ company: string | null; number: string | null; url: string | null }>
    lines: ReadonlyArray<{ lineItemId: string; quantity: number }>
  }>
}

const driver: LinesDriver<RunningShopifySimulator, SimOrder> = {
  platform: "Shopify",
  start: startSimulator,
  connect: connectTo,
  place: (sim) =>
    Effect.map(admin<SimOrder>(sim, "POST", "orders", { lineItems: threeLines }), (raw) => ({
      id: raw.legacyResourceId,
      lineIds: raw.lineItems.map((l) => l.id),
      raw
    })),
  tracking: upsTracking,
  fulfilOperation: "fulfillmentCreate",
  counters: { fulfilments: "fulfillmentsByOrder", emails: "notificationsByOrder" },
  fulfilled: (stored) => stored.fulfillments.map((f) => [f.tracking[0]!.number!, f.lines.map((l) => [l.lineItemId, l.quantity] as const)]),
  hold: (sim, order) =>
    Effect.as(admin(sim, "POST", `orders/${order.id}/hold`, { reason: "HIGH_RISK_OF_FRAUD" }), [
      { heldId: order.raw.fulfillmentOrders[0]!.id, reason: "HIGH_RISK_OF_FRAUD", notes: "Held from the simulator admin" }
    ]),
  linesField: "lineItems",
  unknownOrderId: "99999999"
}

const read = (sim: Parameters<typeof admin>[0], order: PlacedOrder<SimOrder>) => admin<SimOrder>(sim, "GET", `orders/${order.id}`)

describe("Shopify fulfillment push", () => {
  fulfilsByLines(driver, {
    shown: (stored) => stored.fulfillments.flatMap((f) => f.tracking.flatMap((t) => (t.number === null ? [] : [t.number]))),
    first: (sim, order, request) =>
      Effect.map(
        read(sim, order),
        (stored) => expect(stored.fulfillments[0]).toMatchObject({ notifyCustomer: true, tracking: [request.tracking] })
      ),
    replayNumber: "1Z999AA10123456784",
    packed: (sim, order) =>
      Effect.map(read(sim, order), (stored) => expect(stored.fulfillmentOrders.every((fo) => fo.status === "CLOSED")).toBe(true))
  })
})

describe("Shopify annotations", () => {
  it.scopedLive("tags the order podsync:drafted and keeps the draft id in a metafield, repeatably", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", { lineItems: threeLines, tags: ["vip"] })
      const connector = yield* connectTo(sim)
      yield* connector.annotate(order.legacyResourceId, draftedAnnotation("dft_01HZX"))
      yield* connector.annotate(order.legacyResourceId, draftedAnnotation("dft_01HZX"))
      const stored = yield* admin<SimOrder>(sim, "GET", `orders/${order.legacyResourceId}`)
      expect(stored.tags).toEqual(["vip", DRAFTED_TAG])
      expect(stored.metafields.map((m) => [m.namespace, m.key, m.value])).toEqual([["podsync", "draft", "dft_01HZX"]])
      const failure = yield* Effect.flip(connector.annotate("424242", draftedAnnotation("dft_x")))
      expect(failure).toMatchObject({ _tag: "StoreApiError" })
    }))
})
