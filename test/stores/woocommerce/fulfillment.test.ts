import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { DRAFTED_TAG, draftedAnnotation, type FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import { isAmbiguous } from "../../../src/stores/StoreErrors.js"
import { upsTracking } from "../contract/FulfillmentContract.js"
import { simTeeLine } from "./fixtures.js"
import { admin, connectTo, eventually, type Sim, startSimulator, stats, T0 } from "./harness.js"

interface SimOrder {
  readonly id: number
  readonly status: string
  readonly line_items: ReadonlyArray<{ id: number; quantity: number }>
  readonly meta_data: ReadonlyArray<{ key: string; value: unknown }>
  readonly notes: ReadonlyArray<{ id: number; note: string; customer_note: boolean; seq: number }>
  readonly emails: ReadonlyArray<
    {
      type: string
      seq: number
      trackingNumbers: ReadonlyArray<string>
      tracking: ReadonlyArray<{ provider: string; number: string; link: string }>
      note?: string
    }
  >
  readonly shipment_trackings: ReadonlyArray<
    { tracking_id: string; tracking_provider: string; tracking_number: string; tracking_link: string; date_shipped: string }
  >
}

const twoLineOrder = {
  lineItems: [
    simTeeLine,
    { name: "Ceramic Mug", productId: 362, sku: "MUG-WHT-11OZ", quantity: 1, price: "16.00" }
  ]
}

const push = (
  order: SimOrder,
  lines: ReadonlyArray<[index: number, quantity: number]>,
  tracking: FulfillmentPush["tracking"]
): FulfillmentPush => ({
  storeOrderId: String(order.id),
  lines: lines.map(([index, quantity]) => ({
    lineId: String(order.line_items[index]!.id),
    quantity
  })) as unknown as FulfillmentPush["lines"],
  tracking
})

const read = (sim: Sim, order: SimOrder) => admin<SimOrder>(sim, "GET", `orders/${order.id}`)
const completedEmails = (order: SimOrder) => order.emails.filter((e) => e.type === "customer_completed_order")
/** The notes podsync wrote for the buyer: one per package, carrier, number and link. */
const podsyncNotes = (order: SimOrder) => order.notes.filter((n) => n.customer_note && n.note.includes("Tracking number:"))
const noteEmails = (order: SimOrder) => order.emails.filter((e) => e.type === "customer_note")

/** A simulator and a connector at T0 (so `date_shipped` is 2026-03-02), the extension on or off. */
const setUp = (shipmentTracking: boolean) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const sim = yield* startSimulator({ shipmentTracking })
    const order = yield* admin<SimOrder>(sim, "POST", "orders", twoLineOrder)
    return { sim, order, connector: yield* connectTo(sim) }
  })

/** `setUp`, then the whole order pushed as one package under `number`: the push, its answer, and the order after. */
const pushWhole = (shipmentTracking: boolean, number: string) =>
  Effect.gen(function*() {
    const { sim, order, connector } = yield* setUp(shipmentTracking)
    const request = push(order, [[0, 2], [1, 1]], upsTracking(number))
    const first = yield* connector.pushFulfillment(request)
    return { sim, order, connector, request, first, stored: yield* read(sim, order) }
  })

describe("WooCommerce fulfilment push with the Shipment Tracking extension", () => {
  it.scoped("adds the tracking item, then completes the order: one email, listing the tracking; a replay changes nothing", () =>
    Effect.gen(function*() {
      const { sim, order, connector, request, first, stored } = yield* pushWhole(true, "1Z999AA10123456784")
      expect(stored.shipment_trackings).toEqual([
        expect.objectContaining({
          tracking_provider: "UPS",
          tracking_number: "1Z999AA10123456784",
          date_shipped: "2026-03-02",
          tracking_link: "https://www.ups.com/track?loc=en_US&tracknum=1Z999AA10123456784"
        })
      ])
      expect(first).toEqual({
        _tag: "Created",
        fulfillmentIds: [stored.shipment_trackings[0]!.tracking_id],
        lines: [{ lineId: String(order.line_items[0]!.id), quantity: 2 }, { lineId: String(order.line_items[1]!.id), quantity: 1 }],
        notifiedCustomer: true
      })
      expect(stored.status).toBe("completed")
      expect(completedEmails(stored)).toEqual([expect.objectContaining({ trackingNumbers: ["1Z999AA10123456784"] })])
      expect(stored.meta_data.find((m) => m.key === "_podsync_shipments")?.value).toEqual([
        {
          number: "1Z999AA10123456784",
          company: "UPS",
          url: "https://www.ups.com/track?tracknum=1Z999AA10123456784",
          lines: first._tag === "Created" ? first.lines : [],
          trackingRecordId: stored.shipment_trackings[0]!.tracking_id
        }
      ])

      expect(yield* connector.pushFulfillment(request)).toEqual({
        _tag: "AlreadyPushed",
        fulfillmentIds: [stored.shipment_trackings[0]!.tracking_id]
      })
      const s = yield* stats(sim)
      expect([s.trackingsByOrder[order.id], s.completedEmailsByOrder[order.id]]).toEqual([1, 1])
    }))

  it.scoped("sends a carrier the extension does not know as a custom provider with the tracking link", () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* setUp(true)
      yield* connector.pushFulfillment(
        push(order, [[0, 2], [1, 1]], {
          company: "YunExpress",
          number: "YT2612345678",
          url: "https://www.yuntrack.com/track?id=YT2612345678"
        })
      )
      expect((yield* read(sim, order)).shipment_trackings).toEqual([
        expect.objectContaining({
          tracking_provider: "YunExpress",
          tracking_number: "YT2612345678",
          tracking_link: "https://www.yuntrack.com/track?id=YT2612345678"
        })
      ])
    }))

  const faults = ["trackings.create", "orders.update"].flatMap((operation) =>
    (["commitThenDrop", "error5xx", "reset"] as const).map((kind) => [operation, kind] as const)
  )
  for (const [operation, kind] of faults) {
    it.scoped(`after an ambiguous failure (${kind} on ${operation}), the retried push makes one tracking item and one email`, () =>
      Effect.gen(function*() {
        const { sim, order, connector } = yield* setUp(true)
        const request = push(order, [[0, 2], [1, 1]], upsTracking("1ZAMBIGUOUS0001"))
        yield* admin(sim, "POST", "faults", { operation, kind, count: 1 })
        const failure = yield* Effect.flip(connector.pushFulfillment(request))
        expect(isAmbiguous(failure)).toBe(true)

        const retried = yield* connector.pushFulfillment(request)
        // Once the tracking item exists, the retry only finishes the push.
        expect(retried._tag).toBe(operation === "trackings.create" && kind !== "commitThenDrop" ? "Created" : "AlreadyPushed")
        const stored = yield* read(sim, order)
        expect(stored.shipment_trackings.map((t) => t.tracking_number)).toEqual(["1ZAMBIGUOUS0001"])
        expect(stored.status).toBe("completed")
        expect(completedEmails(stored)).toEqual([expect.objectContaining({ trackingNumbers: ["1ZAMBIGUOUS0001"] })])
        expect(yield* connector.pushFulfillment(request)).toMatchObject({ _tag: "AlreadyPushed" })
        expect((yield* stats(sim)).completedEmailsByOrder).toEqual({ [order.id]: 1 })
      }))
  }

  it.scopedLive("a push that timed out is ambiguous; retried once the store has finished, it completes without a second item", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", twoLineOrder)
      const connector = yield* connectTo(sim, { requestTimeout: "150 millis" })
      const request = push(order, [[0, 2], [1, 1]], upsTracking("1ZSLOWSTORE001"))
      yield* admin(sim, "POST", "faults", { operation: "trackings.create", kind: "latency", latencyMs: [400, 400], count: 1 })
      const failure = yield* Effect.flip(connector.pushFulfillment(request))
      expect(failure).toMatchObject({ _tag: "StoreUnavailableError", operation: "trackings.create", ambiguous: true })
      // The store went on with the request after we stopped waiting.
      yield* eventually(read(sim, order), (o) => o.shipment_trackings.length === 1, "the late tracking item")
      expect(yield* connector.pushFulfillment(request)).toMatchObject({ _tag: "AlreadyPushed" })
      const stored = yield* read(sim, order)
      expect([stored.shipment_trackings.length, stored.status, completedEmails(stored).length]).toEqual([1, "completed", 1])
    }))

  it.scoped("records each package and completes the order (one email, both numbers) once the packages cover it", () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* setUp(true)
      const boxA = yield* connector.pushFulfillment(push(order, [[0, 2]], upsTracking("BOX-A-0001")))
      expect(boxA).toMatchObject({ _tag: "Created", notifiedCustomer: false })
      expect((yield* read(sim, order)).status).toBe("processing")
      const boxB = yield* connector.pushFulfillment(push(order, [[1, 1]], upsTracking("BOX-B-0002")))
      expect(boxB).toMatchObject({ _tag: "Created", notifiedCustomer: true })
      const stored = yield* read(sim, order)
      expect(stored.status).toBe("completed")
      expect(completedEmails(stored)).toEqual([expect.objectContaining({ trackingNumbers: ["BOX-A-0001", "BOX-B-0002"] })])
    }))

  it.scoped("leaves an order with lines podsync does not ship for the seller to complete", () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* setUp(true)
      expect(yield* connector.pushFulfillment(push(order, [[0, 2]], upsTracking("ONLY-THE-TEE")))).toMatchObject({
        _tag: "Created",
        notifiedCustomer: false
      })
      const stored = yield* read(sim, order)
      expect([stored.status, stored.shipment_trackings.length, completedEmails(stored).length]).toEqual(["processing", 1, 0])
    }))

  it.scoped("refuses cancelled, unknown and on-hold orders, and ships nothing of refunded units", () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* setUp(true)
      const cancelled = yield* admin<SimOrder>(sim, "POST", "orders", twoLineOrder)
      yield* admin(sim, "PATCH", `orders/${cancelled.id}`, { status: "cancelled" })
      expect(yield* connector.pushFulfillment(push(cancelled, [[0, 2]], upsTracking("TOO-LATE")))).toMatchObject({
        _tag: "Rejected",
        reason: "order_cancelled"
      })
      expect(yield* connector.pushFulfillment({ ...push(order, [[0, 1]], upsTracking("X")), storeOrderId: "99999999" })).toMatchObject({
        _tag: "Rejected",
        reason: "unknown_order"
      })
      expect(yield* connector.pushFulfillment({ ...push(order, [[0, 1]], upsTracking("X")), lines: [{ lineId: "1", quantity: 1 }] }))
        .toMatchObject(
          { _tag: "Rejected", reason: "unknown_lines" }
        )

      const held = yield* admin<SimOrder>(sim, "POST", "orders", twoLineOrder)
      yield* admin(sim, "PATCH", `orders/${held.id}`, { status: "on-hold" })
      expect(yield* connector.pushFulfillment(push(held, [[0, 2]], upsTracking("HELD")))).toEqual({
        _tag: "OnHold",
        holds: [{ heldId: String(held.id), reason: "on-hold" }]
      })

      yield* admin(sim, "POST", `orders/${order.id}/refund`, { line_items: [{ id: order.line_items[1]!.id, quantity: 1 }] })
      expect(yield* connector.pushFulfillment(push(order, [[1, 1]], upsTracking("REFUNDED-MUG")))).toMatchObject({
        _tag: "NothingToFulfil"
      })
      const s = yield* stats(sim)
      expect([s.trackingsByOrder, s.completedEmailsByOrder]).toEqual([{}, {}])
    }))
})

describe("WooCommerce fulfilment push without the extension", () => {
  it.scoped("tells the buyer in a customer note (carrier, number, link), writes the package meta, then completes", () =>
    Effect.gen(function*() {
      const { sim, order, connector, request, first, stored } = yield* pushWhole(false, "1ZNOTE0000001")
      const [note] = podsyncNotes(stored)
      const text = "Your order is on its way with UPS.\nTracking number: 1ZNOTE0000001\n" +
        "Track your package: https://www.ups.com/track?tracknum=1ZNOTE0000001"
      expect(note).toMatchObject({ customer_note: true, note: text })
      // What the buyer reads: the note, emailed at once, before the Completed email (which has no tracking without the extension).
      expect(noteEmails(stored)).toEqual([expect.objectContaining({ note: text })])
      expect(first).toMatchObject({ _tag: "Created", fulfillmentIds: [String(note!.id)], notifiedCustomer: true })
      expect(stored.status).toBe("completed")
      const [email] = completedEmails(stored)
      expect(note!.seq).toBeLessThan(email!.seq)
      expect(email!.tracking).toEqual([])
      expect(stored.meta_data.find((m) => m.key === "_podsync_shipments")?.value).toMatchObject([{
        number: "1ZNOTE0000001",
        trackingRecordId: String(note!.id)
      }])
      expect(yield* connector.pushFulfillment(request)).toEqual({ _tag: "AlreadyPushed", fulfillmentIds: [String(note!.id)] })
      expect((yield* stats(sim)).completedEmailsByOrder).toEqual({ [order.id]: 1 })
    }))

  for (const [operation, kind] of [["notes.create", "commitThenDrop"], ["notes.create", "reset"], ["orders.update", "error5xx"]] as const) {
    it.scoped(`after an ambiguous failure (${kind} on ${operation}), the retried push makes one note and one email`, () =>
      Effect.gen(function*() {
        const { sim, order, connector } = yield* setUp(false)
        const request = push(order, [[0, 2], [1, 1]], upsTracking("1ZNOTEAMBIG01"))
        yield* admin(sim, "POST", "faults", { operation, kind, count: 1 })
        expect(isAmbiguous(yield* Effect.flip(connector.pushFulfillment(request)))).toBe(true)
        yield* connector.pushFulfillment(request)
        const stored = yield* read(sim, order)
        expect(podsyncNotes(stored)).toHaveLength(1)
        expect([stored.status, completedEmails(stored).length, noteEmails(stored).length]).toEqual(["completed", 1, 1])
      }))
  }

  it.scoped("refuses to fall back when the extension is required but missing", () =>
    Effect.gen(function*() {
      const { order, sim } = yield* setUp(false)
      const strict = yield* connectTo(sim, { trackingMode: "shipment-tracking" })
      expect(yield* Effect.flip(strict.pushFulfillment(push(order, [[0, 2], [1, 1]], upsTracking("STRICT"))))).toMatchObject({
        _tag: "StoreApiError",
        messages: [expect.stringContaining("Shipment Tracking extension is not installed")]
      })
    }))
})

describe("WooCommerce annotations", () => {
  it.scoped("keeps the draft id in order meta and a private note, repeatably, without tags", () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* setUp(true)
      yield* connector.annotate(String(order.id), draftedAnnotation("dft_01HZX"))
      yield* connector.annotate(String(order.id), draftedAnnotation("dft_01HZX"))
      const stored = yield* read(sim, order)
      expect(stored.meta_data.filter((m) => m.key.startsWith("_podsync_"))).toEqual([
        expect.objectContaining({ key: "_podsync_draft", value: "dft_01HZX" })
      ])
      expect(stored.notes.filter((n) => n.note === "podsync created POD draft dft_01HZX")).toEqual([
        expect.objectContaining({ customer_note: false })
      ])
      expect(JSON.stringify(stored)).not.toContain(DRAFTED_TAG)
      expect(yield* Effect.flip(connector.annotate("424242", draftedAnnotation("dft_x")))).toMatchObject({ _tag: "StoreApiError" })
    }))
})
