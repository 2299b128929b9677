import { Effect } from "effect"
import { isOrderState, type OrderState } from "../domain/OrderState.js"
import { type PersonAction, planPersonAction } from "../domain/PersonAction.js"
import { AttentionRepo, type PersonMoveRow } from "../repos/AttentionRepo.js"

/** An order as the person saw it when they chose the action: acted on only if it is still so. */
export interface SeenOrder {
  readonly id: number
  readonly state: OrderState
  readonly updatedAt: Date
}

export interface ActionOutcome {
  readonly id: number
  readonly referenceId: string | null
  readonly outcome: "done" | "already_done" | "refused"
  /** For a refusal, why (in the seller's words); for the others, what was done. */
  readonly message: string
}

/**
 * A person's action on orders (the console's buttons), as the pipeline would move them: each
 * order planned by `planPersonAction` on what the person saw, then moved in one statement that
 * acts only on orders still in that state and version, recorded in order_events with the person
 * as its actor. A second submission with the same `actionKey` acts no more: it answers
 * already_done.
 */
export const actOnOrders = Effect.fn("PersonActions.actOnOrders")(function*(
  action: PersonAction,
  seen: ReadonlyArray<SeenOrder>,
  person: { readonly user: string; readonly actionKey: string }
) {
  const repo = yield* AttentionRepo
  const current = new Map((yield* repo.byIds(seen.map((s) => s.id))).map((o) => [o.id, o]))
  const refusals: Array<ActionOutcome> = []
  const moves: Array<PersonMoveRow> = []
  for (const order of seen) {
    const stored = current.get(order.id)
    const plan = planPersonAction(
      action,
      { state: order.state, podDraftId: stored?.podDraftId ?? null, heldReason: stored?.heldReason ?? null },
      person.user
    )
    if (stored === undefined) {
      refusals.push({ id: order.id, referenceId: null, outcome: "refused", message: "no such order" })
    } else if (plan._tag === "Refused") {
      refusals.push({ id: order.id, referenceId: stored.referenceId, outcome: "refused", message: plan.why })
    } else {
      moves.push({
        id: order.id,
        from: order.state,
        seenAt: order.updatedAt,
        to: plan.move.to,
        actor: `console:${person.user}`,
        reason: plan.move.reason,
        actionKey: `${person.actionKey}:${order.id}`,
        dueNow: plan.move.dueNow,
        ...(plan.move.held === undefined ? {} : { held: plan.move.held }),
        data: { action, user: person.user }
      })
    }
  }
  const outcomes = yield* repo.applyMoves(moves)
  const referenceOf = (id: number) => current.get(id)?.referenceId ?? null
  return [
    ...outcomes.map((o): ActionOutcome => {
      const move = moves.find((m) => m.id === o.id)
      switch (o.outcome) {
        case "moved":
          return { id: o.id, referenceId: referenceOf(o.id), outcome: "done", message: move?.reason ?? "done" }
        case "already_done":
          return { id: o.id, referenceId: referenceOf(o.id), outcome: "already_done", message: "already done by this same request" }
        case "changed":
          return {
            id: o.id,
            referenceId: referenceOf(o.id),
            outcome: "refused",
            message: o.state === null
              ? "the order is gone"
              : o.state === move?.from
              ? `it changed since the page was shown (it is still ${o.state}, but moved again): look at it again`
              : `it is now ${o.state} (it was ${move?.from ?? "?"} when the page was shown): look at it again`
          }
      }
    }),
    ...refusals
  ]
})

/** Reads `<id>|<state>|<updatedAt ms>`, the form value a page gives each order it offers an action on. */
export const seenOrderOf = (value: string): SeenOrder | undefined => {
  const [id, state, at] = value.split("|")
  const idNumber = Number(id)
  const atMs = Number(at)
  if (!Number.isSafeInteger(idNumber) || state === undefined || !isOrderState(state) || !Number.isFinite(atMs)) return undefined
  return { id: idNumber, state, updatedAt: new Date(atMs) }
}

/** The form value of an order as a page shows it (see `seenOrderOf`). */
export const seenOrderValue = (order: SeenOrder) => `${order.id}|${order.state}|${order.updatedAt.getTime()}`
