import { Clock, Effect } from "effect"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import type { OrderState } from "../domain/OrderState.js"
import { OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { OPEN_PUSH_STATES, type PushState, type Shipment, ShipmentsRepo } from "../repos/ShipmentsRepo.js"
import { StoreConnectors } from "../stores/StoreConnector.js"
import { whileLeased } from "./Lease.js"

export const FULFILL_STATES: ReadonlyArray<OrderState> = ["shipped"]

const later = (ms: number) => Effect.map(Clock.currentTimeMillis, (now) => new Date(now + ms))

/** The POD lines a draft was made of; for an order drafted before they were recorded, the lines still to ship. */
const linesOf = (stored: StoredOrder, order: NormalizedOrder) =>
  stored.plannedLines.length > 0
    ? stored.plannedLines
    : order.lines.filter((l) => l.fulfillableQuantity > 0).map((l) => ({ lineId: l.lineId, quantity: l.fulfillableQuantity }))

/**
 * Pushes each shipment of one claimed order to its store, exactly once:
 * the connector reads the store's fulfillments back and matches the
 * tracking number before creating anything, so a retry after any doubt is
 * safe. The order is fulfilled when every shipment is settled.
 */
export const fulfillOrder = (stored: StoredOrder, owner: string, known?: ReadonlyArray<Shipment>) =>
  whileLeased(stored.id, owner, Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const shipments = yield* ShipmentsRepo
    const connector = (yield* StoreConnectors).get(stored.storeKey)
    if (connector === undefined) return yield* repo.release(stored.id, owner, null)
    const lines = linesOf(stored, stored.order)
    let retryInMs: number | undefined
    // Every shipment of the order, read once: where each stands after this turn decides the order.
    // (Read with the claimed batch when given: only the lease holder pushes, and a shipment recorded
    // since is caught by the guard on the final move.)
    const all = known ?? (yield* shipments.forOrder(stored.id))
    const standing = new Map<number, PushState>(all.map((s) => [s.id, s.pushState]))
    const settle = (id: number, state: PushState, detail?: Parameters<typeof shipments.mark>[2]) =>
      Effect.zipRight(shipments.mark(id, state, detail), Effect.sync(() => standing.set(id, state)))
    for (const shipment of all.filter((s) => OPEN_PUSH_STATES.includes(s.pushState))) {
      const [first, ...rest] = lines
      if (first === undefined) {
        yield* settle(shipment.id, "skipped")
        yield* repo.note(stored.id, owner, `tracking ${shipment.trackingNo} was not pushed: the order has no POD lines left to fulfil`)
        continue
      }
      // No write-ahead mark: every connector reads the store's fulfilments back before creating one,
      // so a push repeated after a crash finds the first (AlreadyPushed). The attempt is counted with its outcome.
      const outcome = yield* connector.pushFulfillment({
        storeOrderId: stored.storeOrderId,
        lines: [first, ...rest],
        tracking: { company: shipment.carrier || "Other", number: shipment.trackingNo, ...(shipment.trackingUrl ? { url: shipment.trackingUrl } : {}) }
      }).pipe(Effect.either)
      if (outcome._tag === "Left") {
        const error = outcome.left
        const ambiguous = "ambiguous" in error && error.ambiguous === true
        yield* settle(shipment.id, ambiguous ? "in_doubt" : "pending", { attempt: true, error: { tag: error._tag, message: error.message } })
        retryInMs = Math.min(retryInMs ?? Infinity, ambiguous ? 2_000 : Math.min(300_000, 5_000 * 2 ** Math.min(shipment.attempts, 6)))
        continue
      }
      const result = outcome.right
      switch (result._tag) {
        case "Created":
        case "AlreadyPushed":
          yield* settle(shipment.id, "pushed", { attempt: true, fulfillmentId: result.fulfillmentIds.join(",") })
          break
        case "OnHold":
          yield* settle(shipment.id, "on_hold", { attempt: true })
          yield* repo.note(stored.id, owner, `the store holds this order's fulfillment (${result.holds.map((h) => h.reason ?? h.heldId).join(", ")}): tracking ${shipment.trackingNo} waits until the hold is released`)
          retryInMs = Math.min(retryInMs ?? Infinity, 600_000)
          break
        case "NothingToFulfil":
          yield* settle(shipment.id, "skipped", { attempt: true, error: { reason: result.reason } })
          yield* repo.note(stored.id, owner, `tracking ${shipment.trackingNo} was not pushed: ${result.reason}`)
          break
        case "Rejected":
          yield* settle(shipment.id, "rejected", { attempt: true, error: { reason: result.reason, messages: result.messages } })
          yield* repo.note(stored.id, owner, `the store refused tracking ${shipment.trackingNo}: ${result.reason}. Add it in the store by hand`, { messages: result.messages })
          break
      }
    }
    const states = [...standing.values()]
    if (!states.some((state) => OPEN_PUSH_STATES.includes(state))) {
      // Nothing reached the buyer: not fulfilled, and a person must act.
      const failed = states.includes("rejected") && !states.includes("pushed")
      // A tracking recorded while this ran (another package) keeps the order shipped: the guard
      // makes the move fail, and the order comes straight back here.
      return yield* repo.transition(stored.id, "shipped", failed ? "failed" : "fulfilled", {
        actor: owner, nextAttemptAt: null, release: owner, unlessOpenShipments: true,
        reason: failed ? "the store refused every tracking of this order: add the tracking in the store by hand" : "tracking pushed to the store"
      }).pipe(
        Effect.as(failed ? "failed" as const : "fulfilled" as const),
        Effect.catchTag("StaleTransitionError", () => Effect.as(repo.release(stored.id, owner, new Date(0)), "pending" as const))
      )
    }
    yield* repo.release(stored.id, owner, yield* later(retryInMs ?? 30_000))
    return "pending" as const
  })).pipe(Effect.annotateLogs({ store: stored.storeKey, order: stored.storeOrderId }), Effect.withSpan("pipeline.fulfill"))
