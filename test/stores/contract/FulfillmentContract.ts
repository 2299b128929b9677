/**
 * Contract cases of `StoreConnector.pushFulfillment` and `annotate`, run against every platform's
 * connector and simulator. A platform's driver says how to place, hold, refund and cancel an order on
 * its simulator, how its tracking reads, and what its simulator counts; the story and the assertions are
 * the same for all. What only one platform does stays in its own test file, beside the cases it runs.
 */
import { expect, it } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import { draftedAnnotation, type FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"
import { isAmbiguous } from "../../../src/stores/StoreErrors.js"
import { eventually, simulatorAdmin, statsOf } from "./SimulatorHarness.js"

/** An order as placed on a simulator: its id, its lines' ids in order, and the simulator's own record. */
export interface PlacedOrder<Raw> {
  readonly id: string
  readonly lineIds: ReadonlyArray<string>
  readonly raw: Raw
}

/** The lines of the order every case places: two tees, a mug and a tote, in that order. */
export const threeLines = [
  { sku: "TEE-BLK-M", title: "Classic Tee", quantity: 2 },
  { sku: "MUG-WHT-11OZ", title: "Ceramic Mug", quantity: 1 },
  { sku: "TOTE-NAT-OS", title: "Canvas Tote", quantity: 1 }
]

/** UPS tracking with its tracking page. */
export const upsTracking = (number: string) => ({ company: "UPS", number, url: `https://www.ups.com/track?tracknum=${number}` })

/** Which lines of an order, by index, and how many of each. */
export type Lines = ReadonlyArray<readonly [index: number, quantity: number]>

/** What the simulator counts, by order id. */
export interface Counts {
  readonly fulfilments: Readonly<Record<string, number>>
  readonly emails: Readonly<Record<string, number>>
}

export interface FulfillmentDriver<Sim extends { readonly url: string }, Raw> {
  readonly platform: string
  readonly start: () => Effect.Effect<Sim, never, Scope.Scope>
  readonly connect: (sim: Sim, overrides?: { readonly notifyCustomer?: boolean }) => Effect.Effect<StoreConnector, never, Scope.Scope>
  /** Places an order of several lines, the first of two units. */
  readonly place: (sim: Sim) => Effect.Effect<PlacedOrder<Raw>>
  readonly tracking: (number: string) => FulfillmentPush["tracking"]
  /** The simulator's name of the write that fulfils, for faults. */
  readonly fulfilOperation: string
  /** The names of the simulator's `/__sim/stats` tallies of fulfilments and of emails to the buyer, by order. */
  readonly counters: { readonly [K in keyof Counts]: string }
}

/**
 * A driver for platforms whose fulfilments carry lines and that hold, refund and cancel orders. Their
 * simulators share the admin API of an order's life: `POST /__sim/orders/:id/hold`, `…/release`,
 * `…/cancel`, and `PATCH /__sim/orders/:id` for what is left of each line.
 */
export interface LinesDriver<Sim extends { readonly url: string }, Raw> extends FulfillmentDriver<Sim, Raw> {
  /** The fulfilments of an order as `GET /__sim/orders/:id` answers it: the tracking number of each, and its lines and quantities. */
  readonly fulfilled: (stored: Raw) => ReadonlyArray<readonly [number: string, lines: ReadonlyArray<readonly [string, number]>]>
  /** Holds the order on the simulator; answers the holds a push should report. */
  readonly hold: (sim: Sim, order: PlacedOrder<Raw>) => Effect.Effect<ReadonlyArray<Record<string, string>>>
  /** The field of `PATCH /__sim/orders/:id` that sets what is left of each line (after a refund). */
  readonly linesField: string
  /** An order id the store never had. */
  readonly unknownOrderId: string
}

export const pushOf =
  (tracking: (number: string) => FulfillmentPush["tracking"]) =>
  (order: PlacedOrder<unknown>, lines: Lines, number: string): FulfillmentPush => ({
    storeOrderId: order.id,
    lines: lines.map(([index, quantity]) => ({ lineId: order.lineIds[index]!, quantity })) as unknown as FulfillmentPush["lines"],
    tracking: tracking(number)
  })

/** The lines of `order` by index, as a push answers them. */
const answered = (order: PlacedOrder<unknown>, lines: Lines) =>
  lines.map(([index, quantity]) => ({ lineId: order.lineIds[index]!, quantity }))

/** The lines of `order` by index, as the simulator records them. */
const recorded = (order: PlacedOrder<unknown>, lines: Lines) => lines.map(([index, quantity]) => [order.lineIds[index]!, quantity] as const)

/** What the simulator counts, by its `/__sim/stats`. */
const countsOf = (sim: { readonly url: string }, counters: { readonly [K in keyof Counts]: string }): Effect.Effect<Counts> =>
  Effect.map(statsOf<Record<string, Record<string, number>>>(sim), (stats) => ({
    fulfilments: stats[counters.fulfilments]!,
    emails: stats[counters.emails]!
  }))

const placed = <Sim extends { readonly url: string }, Raw>(driver: FulfillmentDriver<Sim, Raw>, overrides = {}) =>
  Effect.gen(function*() {
    const sim = yield* driver.start()
    const order = yield* driver.place(sim)
    return { sim, order, connector: yield* driver.connect(sim, overrides) }
  })

/**
 * Forks `push` with the simulator's `operation` slowed by `latencyMs`, runs `meanwhile` once that
 * write is under way, and answers the push's fiber and what `meanwhile` answered.
 */
export const whileTheWriteIsSlow = <A, E, B, E2>(
  sim: { readonly url: string },
  operation: string,
  latencyMs: number,
  push: Effect.Effect<A, E>,
  meanwhile: Effect.Effect<B, E2>
) =>
  Effect.gen(function*() {
    yield* simulatorAdmin(sim, "POST", "faults", { operation, kind: "latency", latencyMs, count: 1 })
    const fiber = yield* Effect.fork(push)
    const writing = simulatorAdmin<{ faults: Array<unknown> }>(sim, "GET", "faults")
    yield* eventually(writing, (f) => f.faults.length === 0, `the slowed ${operation}`)
    return [fiber, yield* meanwhile] as const
  })

/**
 * A push that failed ambiguously (the write committed and the answer was lost, a 5xx, a reset), then
 * retried, fulfils once and emails the buyer once. `check` adds what the platform says of the failure
 * and of what the store holds after.
 */
export const fulfilsOnceAfterAnAmbiguousFailure = <Sim extends { readonly url: string }, Raw>(
  driver: FulfillmentDriver<Sim, Raw>,
  check: {
    readonly failure?: ((failure: unknown) => void) | undefined
    readonly stored: (sim: Sim, order: PlacedOrder<Raw>, number: string) => Effect.Effect<void>
  }
) => {
  for (const kind of ["commitThenDrop", "error5xx", "reset"] as const) {
    it.scopedLive(`${driver.platform}: a push that failed ambiguously (${kind}), then retried, fulfils once and emails the buyer once`, () =>
      Effect.gen(function*() {
        const { sim, order, connector } = yield* placed(driver)
        const request = pushOf(driver.tracking)(order, [[0, 2], [1, 1]], "1ZAMBIGUOUS0001")
        yield* simulatorAdmin(sim, "POST", "faults", { operation: driver.fulfilOperation, kind, count: 1 })

        const failure = yield* Effect.flip(connector.pushFulfillment(request))
        expect(isAmbiguous(failure)).toBe(true)
        check.failure?.(failure)

        const retried = yield* connector.pushFulfillment(request)
        // The drop came after the commit: the read-back finds it. Otherwise the retry creates it.
        expect(retried._tag).toBe(kind === "commitThenDrop" ? "AlreadyPushed" : "Created")
        yield* check.stored(sim, order, "1ZAMBIGUOUS0001")
        expect(yield* countsOf(sim, driver.counters)).toEqual({ fulfilments: { [order.id]: 1 }, emails: { [order.id]: 1 } })
      }))
  }
}

/** The fulfilments are the ones pushed, line for line. */
export const fulfilledAsPushed =
  <Sim extends { readonly url: string }, Raw>(driver: LinesDriver<Sim, Raw>) => (sim: Sim, order: PlacedOrder<Raw>, number: string) =>
    Effect.map(fulfilmentsOf(driver, sim, order), (stored) => expect(stored).toEqual({ [number]: recorded(order, [[0, 2], [1, 1]]) }))

const fulfilmentsOf = <Sim extends { readonly url: string }, Raw>(driver: LinesDriver<Sim, Raw>, sim: Sim, order: PlacedOrder<Raw>) =>
  Effect.map(simulatorAdmin<Raw>(sim, "GET", `orders/${order.id}`), (stored) => Object.fromEntries(driver.fulfilled(stored)))

/** Cases of platforms whose fulfilments carry lines, and that hold, refund and cancel orders. */
export const fulfilsByLines = <Sim extends { readonly url: string }, Raw>(
  driver: LinesDriver<Sim, Raw>,
  platformChecks: {
    /** What the platform says of the first fulfilment, beyond the contract. */
    readonly first: (sim: Sim, order: PlacedOrder<Raw>, request: FulfillmentPush) => Effect.Effect<void>
    /** The tracking number of the first push, as a replay writes it. */
    readonly replayNumber: string
    /** What the platform says of an ambiguous failure, beyond the contract. */
    readonly ambiguousFailure?: (failure: unknown) => void
    /** What holds once the order is split over packages, beyond the contract. */
    readonly packed?: (sim: Sim, order: PlacedOrder<Raw>) => Effect.Effect<void>
    /** The tracking numbers the buyer is shown on the order, in order. */
    readonly shown: (stored: Raw) => ReadonlyArray<string>
  }
) => {
  const push = pushOf(driver.tracking)
  const all: Lines = [[0, 2], [1, 1], [2, 1]]

  it.scopedLive(`${driver.platform}: creates one fulfilment with tracking, notifying the buyer as configured, once per tracking number`, () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* placed(driver, { notifyCustomer: true })
      const request = push(order, all, "1Z999AA10123456784")

      const first = yield* connector.pushFulfillment(request)
      expect(first).toMatchObject({ _tag: "Created", notifiedCustomer: true, lines: answered(order, all) })
      const again = yield* connector.pushFulfillment({ ...request, tracking: { ...request.tracking, number: platformChecks.replayNumber } })
      expect(again).toEqual({ _tag: "AlreadyPushed", fulfillmentIds: first._tag === "Created" ? first.fulfillmentIds : [] })

      expect(Object.keys(yield* fulfilmentsOf(driver, sim, order))).toEqual(["1Z999AA10123456784"])
      yield* platformChecks.first(sim, order, request)
      expect((yield* countsOf(sim, driver.counters)).emails).toEqual({ [order.id]: 1 })
    }))

  it.scopedLive(`${driver.platform}: does not email the buyer when the store's config says not to`, () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* placed(driver, { notifyCustomer: false })
      const outcome = yield* connector.pushFulfillment(push(order, [[0, 2]], "TRACK-QUIET"))
      expect(outcome).toMatchObject({ _tag: "Created", notifiedCustomer: false })
      expect((yield* countsOf(sim, driver.counters)).emails).toEqual({})
    }))

  fulfilsOnceAfterAnAmbiguousFailure(driver, { failure: platformChecks.ambiguousFailure, stored: fulfilledAsPushed(driver) })

  it.scopedLive(`${driver.platform}: turns several packages of one order into their own fulfilments of the right lines`, () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* placed(driver)
      // One tee and the mug in the first box, the other tee and the tote in the second.
      const boxA = yield* connector.pushFulfillment(push(order, [[0, 1], [1, 1]], "BOX-A-0001"))
      const boxB = yield* connector.pushFulfillment(push(order, [[0, 1], [2, 1]], "BOX-B-0002"))
      expect(boxA).toMatchObject({ _tag: "Created", lines: answered(order, [[0, 1], [1, 1]]) })
      expect(boxB).toMatchObject({ _tag: "Created", lines: answered(order, [[0, 1], [2, 1]]) })
      expect(yield* fulfilmentsOf(driver, sim, order)).toEqual({
        "BOX-A-0001": recorded(order, [[0, 1], [1, 1]]),
        "BOX-B-0002": recorded(order, [[0, 1], [2, 1]])
      })
      yield* platformChecks.packed?.(sim, order) ?? Effect.void
      // Replaying the first box changes nothing.
      expect((yield* connector.pushFulfillment(push(order, [[0, 1], [1, 1]], "BOX-A-0001")))._tag).toBe("AlreadyPushed")
      expect((yield* countsOf(sim, driver.counters)).fulfilments).toEqual({ [order.id]: 2 })
    }))

  it.scopedLive(`${driver.platform}: adds a later box of lines an earlier box fulfilled where the buyer sees it, once`, () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* placed(driver, { notifyCustomer: true })
      expect((yield* connector.pushFulfillment(push(order, all, "BOX-1")))._tag).toBe("Created")
      const later: FulfillmentPush = { ...push(order, all, "BOX-2"), earlierTrackingNumbers: ["BOX-1"] }
      expect(yield* connector.pushFulfillment(later)).toMatchObject({ _tag: "TrackingAdded", notifiedCustomer: true })
      expect((yield* connector.pushFulfillment(later))._tag).toBe("AlreadyPushed")
      expect(platformChecks.shown(yield* simulatorAdmin<Raw>(sim, "GET", `orders/${order.id}`))).toEqual(["BOX-1", "BOX-2"])
      // One email per box, as the platform tells a buyer of each.
      expect((yield* countsOf(sim, driver.counters)).emails).toEqual({ [order.id]: 2 })
      // A box that names no earlier box has nothing to join: nothing is left to fulfil.
      expect((yield* connector.pushFulfillment(push(order, all, "BOX-3")))._tag).toBe("NothingToFulfil")
    }))

  it.scopedLive(`${driver.platform}: reports a held order instead of forcing it, and pushes once released`, () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* placed(driver)
      const holds = yield* driver.hold(sim, order)
      const request = push(order, [[0, 2]], "HELD-0001")
      expect(yield* connector.pushFulfillment(request)).toEqual({ _tag: "OnHold", holds })
      expect((yield* countsOf(sim, driver.counters)).fulfilments).toEqual({})
      yield* simulatorAdmin(sim, "POST", `orders/${order.id}/release`)
      expect((yield* connector.pushFulfillment(request))._tag).toBe("Created")
    }))

  it.scopedLive(`${driver.platform}: fulfils only what is left after a refund; nothing for a refunded line, a cancelled or unknown order`, () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* placed(driver)
      yield* simulatorAdmin(sim, "PATCH", `orders/${order.id}`, {
        [driver.linesField]: [{ id: order.lineIds[0], currentQuantity: 1 }, { id: order.lineIds[1], currentQuantity: 0 }]
      })
      expect(yield* connector.pushFulfillment(push(order, [[1, 1]], "REFUNDED-MUG"))).toMatchObject({ _tag: "NothingToFulfil" })
      expect(yield* connector.pushFulfillment(push(order, [[0, 2]], "ONE-TEE-LEFT"))).toMatchObject({
        _tag: "Created",
        lines: answered(order, [[0, 1]])
      })

      const cancelled = yield* driver.place(sim)
      yield* simulatorAdmin(sim, "POST", `orders/${cancelled.id}/cancel`, { reason: "customer" })
      expect(yield* connector.pushFulfillment(push(cancelled, [[0, 2]], "TOO-LATE"))).toMatchObject({
        _tag: "Rejected",
        reason: "order_cancelled"
      })
      expect(yield* connector.pushFulfillment({ ...push(order, [[2, 1]], "X"), storeOrderId: driver.unknownOrderId })).toMatchObject({
        _tag: "Rejected",
        reason: "unknown_order"
      })
      expect((yield* countsOf(sim, driver.counters)).fulfilments).toEqual({ [order.id]: 1 })
    }))
}

/** Platforms without annotations: annotating succeeds and makes no request. */
export const annotatesNothing = <Sim extends { readonly url: string }, Raw>(
  driver: FulfillmentDriver<Sim, Raw>
) =>
  it.scopedLive(`${driver.platform}: annotating does nothing (the store keeps no annotations) and costs no request`, () =>
    Effect.gen(function*() {
      const { sim, order, connector } = yield* placed(driver)
      yield* connector.annotate(order.id, draftedAnnotation("dft_01HZX"))
      expect(connector.capabilities.annotations).toEqual([])
      expect((yield* statsOf<{ requests: number }>(sim)).requests).toBe(0)
    }))
