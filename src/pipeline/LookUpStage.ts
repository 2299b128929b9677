import { Array as Arr, Effect } from "effect"
import { planDraft } from "../mapping/DraftPlan.js"
import { PodClient } from "../pod/PodClient.js"
import { type FollowedOrder, type Move, OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { backoffMs, decideLookedUp } from "./DraftDecision.js"
import { PlanningInputs } from "./PlanningInputs.js"
import { applyListed } from "./ReconcileStage.js"
import { giveBack, StageWakeups } from "./StageLoop.js"

/**
 * Look before the first create (ARCHITECTURE.md "exactly once across databases"). An order this
 * database never tried to draft may have been drafted through another one: a trial database, a
 * lost volume, an old backup, a move. Its reference id is looked up at the POD service first,
 * many orders a call, and what stands there is adopted instead of drafting again:
 *
 * - a live draft is this order's draft (the order moves to drafted with it);
 * - a POD order (checked out) is followed like any order podsync created, at once (shipped: its
 *   trackings are recorded and pushed, and the store's own read-back keeps a package it already
 *   shows from being pushed twice);
 * - a deleted or archived draft is not the order's: the draft is made as usual.
 *
 * The look-up is recorded (`pod_looked_up_at`) and the draft stage takes only orders looked up
 * within LOOK_UP_FRESH_MS (or with an attempt of their own, which look their draft up themselves).
 */

/** How recent a look-up lets the draft stage create a draft without looking again (an old backup's look is stale). */
export const LOOK_UP_FRESH_MS = 10 * 60_000

/**
 * How long an order due a look-up waits, at most, for others to share the call with: the call goes as
 * soon as LOOK_UP_BATCH are due (a backlog goes at once, LOOK_UP_BATCH a call).
 */
export const LOOK_UP_GATHER = "3 seconds"

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many)

/** Looks the claimed ready orders up at the POD service (two calls for up to 100), adopts what stands there, hands the rest to the draft stage. */
export const lookUpMany = (claimed: ReadonlyArray<StoredOrder>, owner: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const client = yield* PodClient
    const inputs = yield* PlanningInputs
    const wakeups = yield* StageWakeups
    // What the look-up logs (a refusal, an outage) names the store and the store orders it concerns.
    const stores = [...new Set(claimed.map((o) => o.storeKey))]
    const found = yield* client.lookUpByReferenceIds(claimed.map((o) => o.referenceId), { lane: "normal" }).pipe(
      Effect.either,
      Effect.annotateLogs({
        ...(stores.length === 1 ? { store: stores[0] } : { stores: stores.join(", ") }),
        orders: claimed.map((o) => o.storeOrderId).join(", ")
      })
    )
    if (found._tag === "Left") {
      // Nothing is drafted without the look: the orders wait, and the next turn asks again.
      yield* Effect.logWarning("could not look orders up at the POD service before drafting them; they are looked up again shortly").pipe(
        Effect.annotateLogs({ count: claimed.length, error: `${found.left._tag}: ${found.left.message}` })
      )
      yield* giveBack(claimed, owner, backoffMs(0))
      return { adopted: 0, followed: 0, toDraft: 0 }
    }
    const draftsOf = Arr.groupBy(found.right.drafts, (d) => d.reference_id ?? "")
    const ordersOf = Arr.groupBy(found.right.orders, (o) => o.reference_id ?? "")
    const moves: Array<Move> = []
    const toDraft: Array<number> = []
    const notes: Array<{ readonly id: number; readonly reason: string }> = []
    const release: Array<number> = []
    const followed = new Set<number>()

    for (const stored of claimed) {
      const decision = decideLookedUp(draftsOf[stored.referenceId] ?? [], ordersOf[stored.referenceId] ?? [])
      if (decision._tag === "Nothing") {
        toDraft.push(stored.id)
        if (decision.gone.length > 0) {
          notes.push({
            id: stored.id,
            reason: `found at the POD service: ${plural(decision.gone.length, "draft", "drafts")} ${
              decision.gone.join(", ")
            } deleted or archived there, not this order's; a new draft is made`
          })
        }
        continue
      }
      const settings = inputs.settingsFor(stored.storeKey)
      if (settings === undefined) {
        // A store removed from the configuration: its orders are left alone.
        release.push(stored.id)
        continue
      }
      const planned = planDraft(stored.order, yield* inputs.tableFor(stored.storeKey), undefined, settings)
      const plannedLines = planned._tag === "Ready" ? planned.lines : []
      if (decision._tag === "Draft") {
        const { draft, duplicates } = decision
        moves.push({
          id: stored.id,
          from: "ready",
          to: "drafted",
          change: {
            actor: owner,
            reason: `found at the POD service: adopted draft ${draft.order_id}, made before for this order${
              duplicates.length > 0 ? ` (and ${duplicates.length} duplicate(s): ${duplicates.join(", ")})` : ""
            }; no new draft is made`,
            podDraftId: draft.order_id,
            podStatus: draft.status ?? "unknown",
            plannedLines,
            nextAttemptAt: null,
            release: owner,
            ...(draft.origin_order_id ? { podOrderId: draft.origin_order_id } : {}),
            data: { adoptedDraft: draft.order_id, ...(duplicates.length > 0 ? { duplicateDrafts: duplicates } : {}) }
          }
        })
        continue
      }
      const { order, draftId } = decision
      followed.add(stored.id)
      moves.push({
        id: stored.id,
        from: "ready",
        to: "drafted",
        change: {
          actor: owner,
          reason: `found at the POD service: ${
            draftId === undefined ? "this order's draft" : `draft ${draftId}`
          } was already checked out as POD order ${order.order_id}; adopted and followed from here, no new draft is made`,
          ...(draftId === undefined ? {} : { podDraftId: draftId }),
          podOrderId: order.order_id,
          podStatus: String(order.order_status ?? "unknown"),
          plannedLines,
          nextAttemptAt: null,
          release: owner,
          data: { adoptedOrder: order.order_id, ...(draftId === undefined ? {} : { adoptedDraft: draftId }) }
        }
      })
    }

    const moved = yield* repo.transitionMany(moves)
    // Not moved: changed meanwhile (a store cancel); due again at once, looked up again.
    yield* repo.releaseMany(
      [...release, ...moves.filter((m) => !moved.has(m.id)).map((m) => m.id)].map((id) => ({ id, nextAttemptAt: new Date(0) })),
      owner
    )
    yield* repo.markLookedUp(toDraft, owner)
    yield* Effect.forEach(notes, (n) => repo.note(n.id, owner, n.reason), { discard: true })
    // A checked-out order is brought in line with the service's answer now, as reconciliation would.
    const follow: Array<FollowedOrder> = claimed.filter((o) => followed.has(o.id) && moved.has(o.id)).map((o) => ({
      id: o.id,
      referenceId: o.referenceId,
      state: "drafted",
      heldReason: null
    }))
    if (follow.length > 0) {
      yield* applyListed(follow, found.right.orders.filter((o) => o.reference_id !== undefined), owner)
      yield* wakeups.fulfill.kick
    }
    const adopted = moves.filter((m) => moved.has(m.id)).length
    if (adopted > 0) {
      yield* Effect.logInfo("adopted what the POD service already held instead of drafting again").pipe(
        Effect.annotateLogs({ adopted, followed: follow.length })
      )
    }
    return { adopted, followed: follow.length, toDraft: toDraft.length }
  }).pipe(Effect.withSpan("pipeline.lookUp"))
