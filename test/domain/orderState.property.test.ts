import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  canTransition,
  isPodCondition,
  ORDER_STATES,
  type OrderState,
  podProgress,
  STATE_OF_POD_STATUS
} from "../../src/domain/OrderState.js"
import { type Conditions, decideConditions } from "../../src/pipeline/PodConditions.js"
import { decidePodOrder } from "../../src/pipeline/ReconcileStage.js"
import type { OrderProgress } from "../../src/pod/schemas/Orders.js"
import type { Move } from "../../src/repos/OrdersRepo.js"

/**
 * The order state machine after the draft, driven by what the POD service
 * says in any order: answers about the order (reconciliation and webhook
 * follow-ups, `decidePodOrder`) and draft checks for an address or stock
 * condition (`decideConditions`), each decided by the pure rules and applied
 * as the repository applies a move.
 */

/** What the rules read of a stored order, and what a move changes of it (OrdersRepo.transitionMany). */
interface Order {
  readonly state: OrderState
  readonly heldReason: string | null
  readonly heldDetails: unknown
  readonly podDraftId: string | null
  readonly podOrderId: string | null
  readonly podStatus: string | null
}

const DRAFTED: Order = { state: "drafted", heldReason: null, heldDetails: null, podDraftId: "draft-1", podOrderId: null, podStatus: null }

const applyMove = (order: Order, move: { readonly to: OrderState; readonly change: Move["change"] }): Order => ({
  state: move.to,
  heldReason: move.change.held === undefined ? order.heldReason : move.change.held?.code ?? null,
  heldDetails: move.change.held === undefined ? order.heldDetails : move.change.held?.details ?? null,
  podDraftId: move.change.podDraftId ?? order.podDraftId,
  podOrderId: move.change.podOrderId ?? order.podOrderId,
  podStatus: move.change.podStatus ?? order.podStatus
})

type Event =
  | { readonly _tag: "Answer"; readonly status: string; readonly trackings: number; readonly newTrackings: number }
  | { readonly _tag: "DraftCheck"; readonly now: Conditions }

const answer: fc.Arbitrary<Event> = fc.record({
  _tag: fc.constant("Answer" as const),
  // Every status the table knows, one it does not, and none at all.
  status: fc.constantFrom(...Object.keys(STATE_OF_POD_STATUS), "VENDOR_ORDER_STATUS_SOMETHING_NEW", ""),
  trackings: fc.nat({ max: 2 }),
  newTrackings: fc.nat({ max: 2 })
})

const draftCheck: fc.Arbitrary<Event> = fc.record({
  _tag: fc.constant("DraftCheck" as const),
  now: fc.record({
    addressUnverified: fc.boolean(),
    outOfStock: fc.boolean(),
    variants: fc.constant([])
  })
})

const events = fc.array(fc.oneof(answer, draftCheck), { minLength: 1, maxLength: 40 })

const progressOf = (status: string, trackings: number, id: string): OrderProgress => ({
  order_id: id,
  // Open at the service (an unknown status decodes too): any text here, none when empty.
  ...(status === "" ? {} : { order_status: status as NonNullable<OrderProgress["order_status"]> }),
  ...(trackings > 0 ? { order_trackings: Array.from({ length: trackings }, (_, i) => ({ tracking_no: `T-${i}` })) } : {})
})

/** One event, decided and applied: the move made, if any. */
const step = (order: Order, event: Event): { readonly from: OrderState; readonly to: OrderState; readonly next: Order } | undefined => {
  if (event._tag === "Answer") {
    const stored = { id: 1, referenceId: "acme:1", state: order.state, heldReason: order.heldReason }
    const { move } = decidePodOrder(
      stored,
      progressOf(event.status, event.trackings, order.podOrderId ?? "ord-1"),
      "test",
      event.newTrackings
    )
    return move === undefined ? undefined : { from: move.from, to: move.to, next: applyMove(order, move) }
  }
  const decision = decideConditions(order, [], event.now)
  if (decision.kind !== "move") return undefined
  return {
    from: order.state,
    to: decision.to,
    next: applyMove(order, { to: decision.to, change: { actor: "test", reason: decision.reason, held: decision.held } })
  }
}

/**
 * The service's step of an order on the main line, drafted to shipped. A fulfilled order is still
 * shipped at the service (`fulfilled → shipped` is a further package to push, not the service going
 * back). Side states (on hold, cancelled, failed) are not steps.
 */
const MAIN_LINE: ReadonlyArray<OrderState> = ["drafted", "checked_out", "in_production", "shipped", "fulfilled"]
const serviceStep = (state: OrderState) => Math.min(podProgress(state), podProgress("shipped"))

describe("order state machine (property)", () => {
  it("maps every POD status to a state of the table", () => {
    for (const state of Object.values(STATE_OF_POD_STATUS)) expect(ORDER_STATES).toContain(state)
  })

  it("moves only along the table, and never leaves it, whatever the service says in whatever order", () => {
    fc.assert(
      fc.property(events, (sequence) => {
        let order = DRAFTED
        for (const event of sequence) {
          const moved = step(order, event)
          if (moved === undefined) continue
          expect(moved.from).toBe(order.state)
          expect(canTransition(moved.from, moved.to), `${moved.from} → ${moved.to}`).toBe(true)
          expect(ORDER_STATES).toContain(moved.to)
          order = moved.next
        }
      }),
      { numRuns: 2000 }
    )
  })

  it("never moves POD progress backwards on the main line: a late or reordered answer does not undo it", () => {
    fc.assert(
      fc.property(events, (sequence) => {
        let order = DRAFTED
        let reached = serviceStep(order.state)
        for (const event of sequence) {
          const moved = step(order, event)
          order = moved?.next ?? order
          if (!MAIN_LINE.includes(order.state)) continue
          // Out of a hold the order goes where the service's answer puts it: the step before the hold is not kept
          // (see the known gap below), so progress is measured again from there.
          if (moved?.from === "pod_on_hold") reached = serviceStep(order.state)
          expect(serviceStep(order.state), `back to ${order.state} after step ${reached}`).toBeGreaterThanOrEqual(reached)
          reached = serviceStep(order.state)
        }
      }),
      { numRuns: 2000 }
    )
  })

  // Known gap, found by the property above: nothing records how far an order had come before the service
  // held it (pod_status then says ON_HOLD), so an answer that stops short of that step after the hold moves it
  // back. Fixing it needs the step before the hold kept with the order. When it is fixed, this fails: drop the
  // `.fails` and the exception above.
  it.fails("keeps production progress across a hold by the service", () => {
    let order = DRAFTED
    for (const status of ["VENDOR_ORDER_STATUS_PACKED", "VENDOR_ORDER_STATUS_ON_HOLD", "VENDOR_ORDER_STATUS_AWAITING_PAYMENT"]) {
      order = step(order, { _tag: "Answer", status, trackings: 0, newTrackings: 0 })?.next ?? order
    }
    expect(order.state).not.toBe("checked_out")
  })

  it("a single answer never lowers progress, except into a side state or for a further package", () => {
    const states = fc.constantFrom(...ORDER_STATES)
    fc.assert(
      fc.property(
        states,
        answer,
        fc.option(fc.constantFrom("address_unverified", "variant_out_of_stock", "unmatched")),
        (state, event, heldReason) => {
          if (event._tag !== "Answer") return
          const { move } = decidePodOrder(
            { id: 1, referenceId: "acme:1", state, heldReason },
            progressOf(event.status, event.trackings, "ord-1"),
            "test",
            event.newTrackings
          )
          if (move === undefined) return
          expect(canTransition(move.from, move.to)).toBe(true)
          const side = ["pod_cancelled", "pod_on_hold"].includes(move.to) || move.from === "pod_on_hold" || move.from === "cancel_pending"
          const furtherPackage = move.from === "fulfilled" && move.to === "shipped"
          if (!side && !furtherPackage) expect(podProgress(move.to)).toBeGreaterThan(podProgress(move.from))
          // An order podsync holds for a condition is released by production, shipping or a cancel, not by an answer that stops short of them.
          if (move.from === "pod_on_hold" && isPodCondition(heldReason)) {
            expect([
              "in_production",
              "shipped",
              "pod_cancelled",
              "cancel_pending"
            ]).toContain(move.to)
          }
        }
      ),
      { numRuns: 2000 }
    )
  })
})
