import { Clock, Effect } from "effect"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import type { OrderState } from "../domain/OrderState.js"
import { OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { ShipmentsRepo } from "../repos/ShipmentsRepo.js"
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
export const fulfillOrder = (stored: StoredOrder, owner: string) =>
  whileLeased(stored.id, owner, Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const shipments = yield* ShipmentsRepo
    const connector = (yield* StoreConnectors).get(stored.storeKey)
    if (connector === undefined) return yield* repo.release(stored.id, owner, null)
    const lines = linesOf(stored, stored.order)
    let retryInMs: number | undefined
    for (const shipment of yield* shipments.toPush(stored.id)) {
      const [first, ...rest] = lines
      if (first === undefined) {
        yield* shipments.mark(shipment.id, "skipped")
        yield* repo.note(stored.id, owner, `tracking ${shipment.trackingNo} was not pushed: the order has no POD lines left to fulfil`)
        continue
      }
      yield* shipments.mark(shipment.id, "in_doubt", { attempt: true })
      const outcome = yield* connector.pushFulfillment({
        storeOrderId: stored.storeOrderId,
        lines: [first, ...rest],
        tracking: { company: shipment.carrier || "Other", number: shipment.trackingNo, ...(shipment.trackingUrl ? { url: shipment.trackingUrl } : {}) }
      }).pipe(Effect.either)
      if (outcome._tag === "Left") {
        const error = outcome.left
        const ambiguous = "ambiguous" in error && error.ambiguous === true
        yield* shipments.mark(shipment.id, ambiguous ? "in_doubt" : "pending", { error: { tag: error._tag, message: error.message } })
        retryInMs = Math.min(retryInMs ?? Infinity, ambiguous ? 2_000 : Math.min(300_000, 5_000 * 2 ** Math.min(shipment.attempts, 6)))
        continue
      }
      const result = outcome.right
      switch (result._tag) {
        case "Created":
        case "AlreadyPushed":
          yield* shipments.mark(shipment.id, "pushed", { fulfillmentId: result.fulfillmentIds.join(",") })
          break
        case "OnHold":
          yield* shipments.mark(shipment.id, "on_hold")
          yield* repo.note(stored.id, owner, `the store holds this order's fulfillment (${result.holds.map((h) => h.reason ?? h.heldId).join(", ")}): tracking ${shipment.trackingNo} waits until the hold is released`)
          retryInMs = Math.min(retryInMs ?? Infinity, 600_000)
          break
        case "NothingToFulfil":
          yield* shipments.mark(shipment.id, "skipped", { error: { reason: result.reason } })
          yield* repo.note(stored.id, owner, `tracking ${shipment.trackingNo} was not pushed: ${result.reason}`)
          break
        case "Rejected":
          yield* shipments.mark(shipment.id, "rejected", { error: { reason: result.reason, messages: result.messages } })
          yield* repo.note(stored.id, owner, `the store refused tracking ${shipment.trackingNo}: ${result.reason}. Add it in the store by hand`, { messages: result.messages })
          break
      }
    }
    if ((yield* shipments.openCount(stored.id)) === 0) {
      const settled = yield* shipments.forOrder(stored.id)
      if (settled.some((r) => r.push_state === "rejected") && !settled.some((r) => r.push_state === "pushed")) {
        // Nothing reached the buyer: not fulfilled, and a person must act.
        yield* repo.transition(stored.id, "shipped", "failed", {
          actor: owner, reason: "the store refused every tracking of this order: add the tracking in the store by hand", nextAttemptAt: null
        })
        yield* repo.release(stored.id, owner, null)
        return "failed" as const
      }
      yield* repo.transition(stored.id, "shipped", "fulfilled", { actor: owner, reason: "tracking pushed to the store", nextAttemptAt: null })
      yield* repo.release(stored.id, owner, null)
      return "fulfilled" as const
    }
    yield* repo.release(stored.id, owner, yield* later(retryInMs ?? 30_000))
    return "pending" as const
  })).pipe(Effect.annotateLogs({ store: stored.storeKey, order: stored.storeOrderId }), Effect.withSpan("pipeline.fulfill"))
