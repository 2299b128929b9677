import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import type { FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import { idempotencyKeyFor } from "../../../src/stores/jsonfeed/JsonFeedFulfillmentPlan.js"
import type { RunningJsonFeedSimulator } from "../../../src/simulator/jsonfeed/index.js"
import {
  annotatesNothing,
  fulfilsByLines,
  threeLines,
  upsTracking,
  type LinesDriver,
  type PlacedOrder,
  pushOf,
  whileTheWriteIsSlow
} from "../contract/FulfillmentContract.js"
import { admin, connectTo, type SimOrder, startSimulator, stats } from "./harness.js"

const driver: LinesDriver<RunningJsonFeedSimulator, SimOrder> = {
  platform: "JSON feed",
  start: startSimulator,
  connect: connectTo,
  place: (sim) =>
    Effect.map(
      admin<SimOrder>(sim, "POST", "orders", { lines: threeLines }),
      (raw) => ({ id: raw.id, lineIds: raw.lines.map((l) => l.id), raw })
    ),
  tracking: upsTracking,
  fulfilOperation: "createFulfillment",
  counters: { fulfilments: "fulfillmentsByOrder", emails: "buyerEmailsByOrder" },
  fulfilled: (stored) => stored.fulfillments.map((f) => [f.tracking.number, f.lines.map((l) => [l.line_id, l.quantity] as const)]),
  hold: (sim, order) =>
    Effect.map(
      admin<SimOrder>(sim, "POST", `orders/${order.id}/hold`, { reason: "fraud_review" }),
      (held) => [{ heldId: held.holds[0]!.id, reason: "fraud_review" }]
    ),
  linesField: "lines",
  unknownOrderId: "ord_404"
}

const read = (sim: Parameters<typeof admin>[0], order: PlacedOrder<SimOrder>) => admin<SimOrder>(sim, "GET", `orders/${order.id}`)
const push = pushOf(upsTracking)

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
  fulfilsByLines(driver, {
    shown: (stored) => stored.fulfillments.map((f) => f.tracking.number),
    first: (sim, order, request) =>
      Effect.map(read(sim, order), (stored) =>
        expect(stored.fulfillments[0]).toMatchObject({
          notify_customer: true,
          tracking: request.tracking,
          idempotency_key: idempotencyKeyFor("acme-feed", request)
        })),
    // The same number, however it is cased and spaced.
    replayNumber: "1z999aa1 0123456784",
    ambiguousFailure: (failure) => expect((failure as Error).message).toContain("read the store back before retrying")
  })
  annotatesNothing(driver)

  it.scopedLive("emails the buyer when the push asks, though the store's config says not to", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* driver.place(sim)
      const connector = yield* connectTo(sim, { notifyCustomer: false })
      const loud = { ...push(order, [[1, 1]], "TRACK-LOUD"), notifyCustomer: true }
      expect(yield* connector.pushFulfillment(loud)).toMatchObject({ _tag: "Created", notifiedCustomer: true })
      expect((yield* stats(sim)).buyerEmailsByOrder).toEqual({ [order.id]: 1 })
    }))

  it.scopedLive("two replicas pushing the same package at once create one fulfillment: the storefront holds the key", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* driver.place(sim)
      const replicaA = yield* connectTo(sim)
      const replicaB = yield* connectTo(sim)
      const request = push(order, [[0, 2]], "1ZRACE0001")
      // A's POST takes a while at the storefront; B reads back meanwhile, finds nothing, and POSTs too.
      const [a, bFailure] = yield* whileTheWriteIsSlow(
        sim,
        "createFulfillment",
        400,
        replicaA.pushFulfillment(request),
        Effect.flip(replicaB.pushFulfillment(request))
      )
      expect(bFailure).toMatchObject({ _tag: "StoreUnavailableError", status: 409, ambiguous: true })
      expect((yield* Fiber.join(a))._tag).toBe("Created")
      expect((yield* replicaB.pushFulfillment(request))._tag).toBe("AlreadyPushed")
      const s = yield* stats(sim)
      expect(s.keysInUse).toBe(1)
      expect(s.fulfillmentsByOrder).toEqual({ [order.id]: 1 })
      expect(s.buyerEmailsByOrder).toEqual({ [order.id]: 1 })
    }))

  it.scopedLive("a storefront written before §6.5 refuses a later box without lines: rejected, saying the buyer cannot be shown it", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ trackingOnlyFulfillments: false })
      const connector = yield* connectTo(sim)
      const order = yield* driver.place(sim)
      const all = [[0, 2], [1, 1], [2, 1]] as const
      expect((yield* connector.pushFulfillment(push(order, all, "BOX-1")))._tag).toBe("Created")
      const refused = yield* connector.pushFulfillment({ ...push(order, all, "BOX-2"), earlierTrackingNumbers: ["BOX-1"] })
      expect(refused).toMatchObject({ _tag: "Rejected", reason: "tracking_only_refused" })
      expect(refused._tag === "Rejected" && refused.messages[0]).toContain("docs/jsonfeed.md §6.5")
      expect((yield* stats(sim)).fulfillmentsByOrder).toEqual({ [order.id]: 1 })
    }))

  it.scopedLive("refuses a line of another order", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const connector = yield* connectTo(sim)
      const order = yield* driver.place(sim)
      const other = yield* driver.place(sim)
      const foreign = { ...push(order, [[2, 1]], "FOREIGN"), lines: [{ lineId: other.lineIds[0]!, quantity: 1 }] } as FulfillmentPush
      expect(yield* connector.pushFulfillment(foreign)).toMatchObject({ _tag: "Rejected", reason: "unknown_lines" })
      expect((yield* stats(sim)).fulfillmentsByOrder).toEqual({})
    }))

  it.scopedLive("plans again when the units go elsewhere between its read and its POST", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* driver.place(sim)
      const connector = yield* connectTo(sim)
      const [fiber, status] = yield* whileTheWriteIsSlow(
        sim,
        "createFulfillment",
        300,
        connector.pushFulfillment(push(order, [[0, 2]], "PODSYNC-LATE")),
        otherClientFulfils(sim, order.raw, {
          lines: [{ line_id: order.lineIds[0]!, quantity: 2 }],
          tracking: { company: "DHL", number: "WAREHOUSE-1" }
        })
      )
      expect(status).toBe(201)
      expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "NothingToFulfil" })
      expect((yield* stats(sim)).fulfillmentsByOrder).toEqual({ [order.id]: 1 })
    }))
})
