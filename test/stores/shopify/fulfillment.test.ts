import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { DRAFTED_TAG, draftedAnnotation, type FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import { isAmbiguous } from "../../../src/stores/StoreErrors.js"
import { admin, connectTo, startSimulator, stats } from "./harness.js"

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

const threeLineOrder = {
  lineItems: [
    { sku: "TEE-BLK-M", title: "Classic Tee", quantity: 2 },
    { sku: "MUG-WHT-11OZ", title: "Ceramic Mug", quantity: 1 },
    { sku: "TOTE-NAT-OS", title: "Canvas Tote", quantity: 1 }
  ]
}

const tracking = (number: string) => ({ company: "UPS", number, url: `https://www.ups.com/track?tracknum=${number}` })

const push = (order: SimOrder, lines: ReadonlyArray<[index: number, quantity: number]>, number: string): FulfillmentPush => ({
  storeOrderId: order.legacyResourceId,
  lines: lines.map(([index, quantity]) => ({ lineId: order.lineItems[index]!.id, quantity })) as unknown as FulfillmentPush["lines"],
  tracking: tracking(number)
})

const read = (sim: Parameters<typeof admin>[0], order: SimOrder) => admin<SimOrder>(sim, "GET", `orders/${order.legacyResourceId}`)

describe("Shopify fulfillment push", () => {
  it.scopedLive("creates one fulfillment with tracking and the configured notifyCustomer, once per tracking number", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      const connector = yield* connectTo(sim, { notifyCustomer: true })
      const request = push(order, [[0, 2], [1, 1], [2, 1]], "1Z999AA10123456784")

      const first = yield* connector.pushFulfillment(request)
      expect(first).toMatchObject({
        _tag: "Created",
        notifiedCustomer: true,
        lines: order.lineItems.map((l) => ({ lineId: l.id, quantity: l.quantity }))
      })
      const again = yield* connector.pushFulfillment(request)
      expect(again).toEqual({ _tag: "AlreadyPushed", fulfillmentIds: first._tag === "Created" ? first.fulfillmentIds : [] })

      const stored = yield* read(sim, order)
      expect(stored.fulfillments).toHaveLength(1)
      expect(stored.fulfillments[0]).toMatchObject({ notifyCustomer: true, tracking: [tracking("1Z999AA10123456784")] })
      const s = yield* stats(sim)
      expect(s.notificationsByOrder[order.legacyResourceId]).toBe(1)
    }))

  it.scopedLive("does not email the buyer when the store's config says not to", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      const connector = yield* connectTo(sim, { notifyCustomer: false })
      const outcome = yield* connector.pushFulfillment(push(order, [[0, 2]], "TRACK-QUIET"))
      expect(outcome).toMatchObject({ _tag: "Created", notifiedCustomer: false })
      expect((yield* stats(sim)).notificationsByOrder[order.legacyResourceId]).toBeUndefined()
    }))

  for (const kind of ["commitThenDrop", "error5xx", "reset"] as const) {
    it.scopedLive(`a push that failed ambiguously (${kind}), then retried, creates exactly one fulfillment`, () =>
      Effect.gen(function*() {
        const sim = yield* startSimulator()
        const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
        const connector = yield* connectTo(sim)
        const request = push(order, [[0, 2], [1, 1]], "1ZAMBIGUOUS0001")
        yield* admin(sim, "POST", "faults", { operation: "fulfillmentCreate", kind, count: 1 })

        const failure = yield* Effect.flip(connector.pushFulfillment(request))
        expect(isAmbiguous(failure)).toBe(true)

        const retried = yield* connector.pushFulfillment(request)
        // The drop came after the commit: the read-back finds it. Otherwise the retry creates it.
        expect(retried._tag).toBe(kind === "commitThenDrop" ? "AlreadyPushed" : "Created")
        const stored = yield* read(sim, order)
        expect(stored.fulfillments).toHaveLength(1)
        expect(stored.fulfillments[0]!.lines).toEqual([
          { ...stored.fulfillments[0]!.lines[0], lineItemId: order.lineItems[0]!.id, quantity: 2 },
          { ...stored.fulfillments[0]!.lines[1], lineItemId: order.lineItems[1]!.id, quantity: 1 }
        ])
        expect((yield* stats(sim)).fulfillmentsByOrder[order.legacyResourceId]).toBe(1)
        expect((yield* stats(sim)).notificationsByOrder[order.legacyResourceId]).toBe(1)
      }))
  }

  it.scopedLive("turns several packages of one order into their own fulfillments of the right lines", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      const connector = yield* connectTo(sim)
      // One tee and the mug in the first box, the other tee and the tote in the second.
      const boxA = yield* connector.pushFulfillment(push(order, [[0, 1], [1, 1]], "BOX-A-0001"))
      const boxB = yield* connector.pushFulfillment(push(order, [[0, 1], [2, 1]], "BOX-B-0002"))
      expect(boxA).toMatchObject({
        _tag: "Created",
        lines: [{ lineId: order.lineItems[0]!.id, quantity: 1 }, { lineId: order.lineItems[1]!.id, quantity: 1 }]
      })
      expect(boxB).toMatchObject({
        _tag: "Created",
        lines: [{ lineId: order.lineItems[0]!.id, quantity: 1 }, { lineId: order.lineItems[2]!.id, quantity: 1 }]
      })

      const stored = yield* read(sim, order)
      const byNumber = Object.fromEntries(
        stored.fulfillments.map((f) => [f.tracking[0]!.number, f.lines.map((l) => [l.lineItemId, l.quantity])])
      )
      expect(byNumber).toEqual({
        "BOX-A-0001": [[order.lineItems[0]!.id, 1], [order.lineItems[1]!.id, 1]],
        "BOX-B-0002": [[order.lineItems[0]!.id, 1], [order.lineItems[2]!.id, 1]]
      })
      expect(stored.fulfillmentOrders.every((fo) => fo.status === "CLOSED")).toBe(true)
      // Replaying the first box changes nothing.
      expect((yield* connector.pushFulfillment(push(order, [[0, 1], [1, 1]], "BOX-A-0001")))._tag).toBe("AlreadyPushed")
      expect((yield* stats(sim)).fulfillmentsByOrder[order.legacyResourceId]).toBe(2)
    }))

  it.scopedLive("reports an ON_HOLD fulfillment order instead of forcing it, and pushes once released", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      yield* admin(sim, "POST", `orders/${order.legacyResourceId}/hold`, { reason: "HIGH_RISK_OF_FRAUD" })
      const connector = yield* connectTo(sim)
      const request = push(order, [[0, 2]], "HELD-0001")

      const held = yield* connector.pushFulfillment(request)
      expect(held).toEqual({
        _tag: "OnHold",
        holds: [{ heldId: order.fulfillmentOrders[0]!.id, reason: "HIGH_RISK_OF_FRAUD", notes: "Held from the simulator admin" }]
      })
      expect((yield* stats(sim)).fulfillmentsByOrder[order.legacyResourceId]).toBeUndefined()

      yield* admin(sim, "POST", `orders/${order.legacyResourceId}/release`)
      expect((yield* connector.pushFulfillment(request))._tag).toBe("Created")
    }))

  it.scopedLive("fulfils only what is left after a refund, and nothing for a fully refunded line or a cancelled order", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const connector = yield* connectTo(sim)
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      yield* admin(sim, "PATCH", `orders/${order.legacyResourceId}`, {
        lineItems: [{ id: order.lineItems[0]!.id, currentQuantity: 1 }, { id: order.lineItems[1]!.id, currentQuantity: 0 }]
      })
      expect(yield* connector.pushFulfillment(push(order, [[1, 1]], "REFUNDED-MUG"))).toMatchObject({ _tag: "NothingToFulfil" })
      expect(yield* connector.pushFulfillment(push(order, [[0, 2]], "ONE-TEE-LEFT"))).toMatchObject({
        _tag: "Created",
        lines: [{ lineId: order.lineItems[0]!.id, quantity: 1 }]
      })

      const cancelled = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      yield* admin(sim, "POST", `orders/${cancelled.legacyResourceId}/cancel`, { reason: "customer" })
      expect(yield* connector.pushFulfillment(push(cancelled, [[0, 2]], "TOO-LATE"))).toMatchObject({
        _tag: "Rejected",
        reason: "order_cancelled"
      })
      expect(yield* connector.pushFulfillment({ ...push(order, [[2, 1]], "X"), storeOrderId: "99999999" })).toMatchObject({
        _tag: "Rejected",
        reason: "unknown_order"
      })
      expect((yield* stats(sim)).fulfillmentsByOrder).toEqual({ [order.legacyResourceId]: 1 })
    }))
})

describe("Shopify annotations", () => {
  it.scopedLive("tags the order podsync:drafted and keeps the draft id in a metafield, repeatably", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", { ...threeLineOrder, tags: ["vip"] })
      const connector = yield* connectTo(sim)
      yield* connector.annotate(order.legacyResourceId, draftedAnnotation("dft_01HZX"))
      yield* connector.annotate(order.legacyResourceId, draftedAnnotation("dft_01HZX"))
      const stored = yield* read(sim, order)
      expect(stored.tags).toEqual(["vip", DRAFTED_TAG])
      expect(stored.metafields.map((m) => [m.namespace, m.key, m.value])).toEqual([["podsync", "draft", "dft_01HZX"]])
      const failure = yield* Effect.flip(connector.annotate("424242", draftedAnnotation("dft_x")))
      expect(failure).toMatchObject({ _tag: "StoreApiError" })
    }))
})
