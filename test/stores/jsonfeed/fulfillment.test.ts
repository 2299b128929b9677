import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { draftedAnnotation, type FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import { idempotencyKeyFor } from "../../../src/stores/jsonfeed/JsonFeedFulfillmentPlan.js"
import { isAmbiguous } from "../../../src/stores/StoreErrors.js"
import { admin, connectTo, eventually, type SimOrder, startSimulator, stats } from "./harness.js"

const threeLineOrder = {
  lines: [
    { sku: "TEE-BLK-M", title: "Organic Tee", quantity: 2 },
    { sku: "MUG-WHT-12OZ", title: "Enamel Mug", quantity: 1 },
    { sku: "PRINT-MAT-A3", title: "Art Print", quantity: 1 }
  ]
}

const tracking = (number: string) => ({ company: "UPS", number, url: `https://www.ups.com/track?tracknum=${number}` })

const push = (order: SimOrder, lines: ReadonlyArray<[index: number, quantity: number]>, number: string): FulfillmentPush => ({
  storeOrderId: order.id,
  lines: lines.map(([index, quantity]) => ({ lineId: order.lines[index]!.id, quantity })) as unknown as FulfillmentPush["lines"],
  tracking: tracking(number)
})

const read = (sim: Parameters<typeof admin>[0], order: SimOrder) => admin<SimOrder>(sim, "GET", `orders/${order.id}`)

/** A client of the storefront other than podsync (the seller's warehouse, say). */
const otherClientFulfils = (sim: { baseUrl: string; token: string }, order: SimOrder, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${sim.baseUrl}/orders/${order.id}/fulfillments`, {
      method: "POST",
      headers: { Authorization: `Bearer ${sim.token}`, "Content-Type": "application/json", "Idempotency-Key": "warehouse-1" },
      body: JSON.stringify(body)
    })
    return response.status
  })

describe("JSON feed fulfillment push", () => {
  it.scopedLive("creates one fulfillment with tracking, the configured notify and an Idempotency-Key, once per tracking number", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      const connector = yield* connectTo(sim, { notifyCustomer: true })
      const request = push(order, [[0, 2], [1, 1], [2, 1]], "1Z999AA10123456784")

      const first = yield* connector.pushFulfillment(request)
      expect(first).toMatchObject({
        _tag: "Created",
        notifiedCustomer: true,
        lines: order.lines.map((l) => ({ lineId: l.id, quantity: l.quantity }))
      })
      const again = yield* connector.pushFulfillment({ ...request, tracking: { ...request.tracking, number: "1z999aa1 0123456784" } })
      expect(again).toEqual({ _tag: "AlreadyPushed", fulfillmentIds: first._tag === "Created" ? first.fulfillmentIds : [] })

      const stored = yield* read(sim, order)
      expect(stored.fulfillments).toHaveLength(1)
      expect(stored.fulfillments[0]).toMatchObject({
        notify_customer: true,
        tracking: tracking("1Z999AA10123456784"),
        idempotency_key: idempotencyKeyFor("acme-feed", request)
      })
      expect((yield* stats(sim)).buyerEmailsByOrder).toEqual({ [order.id]: 1 })
    }))

  it.scopedLive("does not email the buyer when the store's config says not to, unless the push asks", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      const connector = yield* connectTo(sim, { notifyCustomer: false })
      expect(yield* connector.pushFulfillment(push(order, [[0, 2]], "TRACK-QUIET"))).toMatchObject({
        _tag: "Created",
        notifiedCustomer: false
      })
      expect((yield* stats(sim)).buyerEmailsByOrder).toEqual({})
      const loud = { ...push(order, [[1, 1]], "TRACK-LOUD"), notifyCustomer: true }
      expect(yield* connector.pushFulfillment(loud)).toMatchObject({ _tag: "Created", notifiedCustomer: true })
      expect((yield* stats(sim)).buyerEmailsByOrder).toEqual({ [order.id]: 1 })
    }))

  for (const kind of ["commitThenDrop", "error5xx", "reset"] as const) {
    it.scopedLive(`a push that failed ambiguously (${kind}), then retried, creates one fulfillment and emails the buyer once`, () =>
      Effect.gen(function*() {
        const sim = yield* startSimulator()
        const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
        const connector = yield* connectTo(sim)
        const request = push(order, [[0, 2], [1, 1]], "1ZAMBIGUOUS0001")
        yield* admin(sim, "POST", "faults", { operation: "createFulfillment", kind, count: 1 })

        const failure = yield* Effect.flip(connector.pushFulfillment(request))
        expect(isAmbiguous(failure)).toBe(true)
        expect(failure.message).toContain("read the store back before retrying")

        const retried = yield* connector.pushFulfillment(request)
        // The drop came after the commit: the read-back finds it. Otherwise the retry creates it.
        expect(retried._tag).toBe(kind === "commitThenDrop" ? "AlreadyPushed" : "Created")
        const stored = yield* read(sim, order)
        expect(stored.fulfillments.map((f) => f.lines)).toEqual([
          [{ line_id: order.lines[0]!.id, quantity: 2 }, { line_id: order.lines[1]!.id, quantity: 1 }]
        ])
        const s = yield* stats(sim)
        expect(s.fulfillmentsByOrder).toEqual({ [order.id]: 1 })
        expect(s.buyerEmailsByOrder).toEqual({ [order.id]: 1 })
      }))
  }

  it.scopedLive("two replicas pushing the same package at once create one fulfillment: the storefront holds the key", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      const replicaA = yield* connectTo(sim)
      const replicaB = yield* connectTo(sim)
      const request = push(order, [[0, 2]], "1ZRACE0001")
      // A's POST takes a while at the storefront; B reads back meanwhile, finds nothing, and POSTs too.
      yield* admin(sim, "POST", "faults", { operation: "createFulfillment", kind: "latency", latencyMs: 400, count: 1 })
      const a = yield* Effect.fork(replicaA.pushFulfillment(request))
      yield* eventually(admin<{ faults: Array<unknown> }>(sim, "GET", "faults"), (f) => f.faults.length === 0, "A's slow POST")

      const bFailure = yield* Effect.flip(replicaB.pushFulfillment(request))
      expect(bFailure).toMatchObject({ _tag: "StoreUnavailableError", status: 409, ambiguous: true })
      expect((yield* Fiber.join(a))._tag).toBe("Created")
      expect((yield* replicaB.pushFulfillment(request))._tag).toBe("AlreadyPushed")
      const s = yield* stats(sim)
      expect(s.keysInUse).toBe(1)
      expect(s.fulfillmentsByOrder).toEqual({ [order.id]: 1 })
      expect(s.buyerEmailsByOrder).toEqual({ [order.id]: 1 })
    }))

  it.scopedLive("turns several packages of one order into their own fulfillments of the right lines", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      const connector = yield* connectTo(sim)
      const boxA = yield* connector.pushFulfillment(push(order, [[0, 1], [1, 1]], "BOX-A-0001"))
      const boxB = yield* connector.pushFulfillment(push(order, [[0, 1], [2, 1]], "BOX-B-0002"))
      expect(boxA).toMatchObject({
        _tag: "Created",
        lines: [{ lineId: order.lines[0]!.id, quantity: 1 }, { lineId: order.lines[1]!.id, quantity: 1 }]
      })
      expect(boxB).toMatchObject({
        _tag: "Created",
        lines: [{ lineId: order.lines[0]!.id, quantity: 1 }, { lineId: order.lines[2]!.id, quantity: 1 }]
      })
      const stored = yield* read(sim, order)
      expect(Object.fromEntries(stored.fulfillments.map((f) => [f.tracking.number, f.lines.map((l) => [l.line_id, l.quantity])]))).toEqual({
        "BOX-A-0001": [[order.lines[0]!.id, 1], [order.lines[1]!.id, 1]],
        "BOX-B-0002": [[order.lines[0]!.id, 1], [order.lines[2]!.id, 1]]
      })
      expect((yield* connector.pushFulfillment(push(order, [[0, 1], [1, 1]], "BOX-A-0001")))._tag).toBe("AlreadyPushed")
      expect((yield* stats(sim)).fulfillmentsByOrder).toEqual({ [order.id]: 2 })
    }))

  it.scopedLive("reports a held order instead of forcing it, and pushes once released", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      const held = yield* admin<SimOrder>(sim, "POST", `orders/${order.id}/hold`, { reason: "fraud_review" })
      const connector = yield* connectTo(sim)
      const request = push(order, [[0, 2]], "HELD-0001")
      expect(yield* connector.pushFulfillment(request)).toEqual({
        _tag: "OnHold",
        holds: [{ heldId: held.holds[0]!.id, reason: "fraud_review" }]
      })
      expect((yield* stats(sim)).fulfillmentsByOrder).toEqual({})
      yield* admin(sim, "POST", `orders/${order.id}/release`)
      expect((yield* connector.pushFulfillment(request))._tag).toBe("Created")
    }))

  it.scopedLive("fulfils only what is left after a refund; nothing for a refunded line, a cancelled or unknown order, or a foreign line", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const connector = yield* connectTo(sim)
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      yield* admin(sim, "PATCH", `orders/${order.id}`, {
        lines: [{ id: order.lines[0]!.id, currentQuantity: 1 }, { id: order.lines[1]!.id, currentQuantity: 0 }]
      })
      expect(yield* connector.pushFulfillment(push(order, [[1, 1]], "REFUNDED-MUG"))).toMatchObject({ _tag: "NothingToFulfil" })
      expect(yield* connector.pushFulfillment(push(order, [[0, 2]], "ONE-TEE-LEFT"))).toMatchObject({
        _tag: "Created",
        lines: [{ lineId: order.lines[0]!.id, quantity: 1 }]
      })

      const cancelled = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      yield* admin(sim, "POST", `orders/${cancelled.id}/cancel`, { reason: "customer" })
      expect(yield* connector.pushFulfillment(push(cancelled, [[0, 2]], "TOO-LATE"))).toMatchObject({
        _tag: "Rejected",
        reason: "order_cancelled"
      })
      expect(yield* connector.pushFulfillment({ ...push(order, [[2, 1]], "X"), storeOrderId: "ord_404" })).toMatchObject({
        _tag: "Rejected",
        reason: "unknown_order"
      })
      const foreign = { ...push(order, [[2, 1]], "FOREIGN"), lines: [{ lineId: cancelled.lines[0]!.id, quantity: 1 }] } as FulfillmentPush
      expect(yield* connector.pushFulfillment(foreign)).toMatchObject({ _tag: "Rejected", reason: "unknown_lines" })
      expect((yield* stats(sim)).fulfillmentsByOrder).toEqual({ [order.id]: 1 })
    }))

  it.scopedLive("plans again when the units go elsewhere between its read and its POST", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      const connector = yield* connectTo(sim)
      yield* admin(sim, "POST", "faults", { operation: "createFulfillment", kind: "latency", latencyMs: 300, count: 1 })
      const fiber = yield* Effect.fork(connector.pushFulfillment(push(order, [[0, 2]], "PODSYNC-LATE")))
      yield* eventually(admin<{ faults: Array<unknown> }>(sim, "GET", "faults"), (f) => f.faults.length === 0, "podsync's slow POST")
      const status = yield* otherClientFulfils(sim, order, {
        lines: [{ line_id: order.lines[0]!.id, quantity: 2 }],
        tracking: { company: "DHL", number: "WAREHOUSE-1" }
      })
      expect(status).toBe(201)
      expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "NothingToFulfil" })
      expect((yield* stats(sim)).fulfillmentsByOrder).toEqual({ [order.id]: 1 })
    }))

  it.scopedLive("annotates nothing: the contract has no annotation endpoint, so no request is made", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", threeLineOrder)
      const connector = yield* connectTo(sim)
      yield* connector.annotate(order.id, draftedAnnotation("dft_01"))
      expect(connector.capabilities.annotations).toEqual([])
      expect((yield* stats(sim)).requests).toBe(0)
    }))
})
