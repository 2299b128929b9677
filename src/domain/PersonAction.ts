import type { OrderState } from "./OrderState.js"

/**
 * What a person may do about an order that needs them (the console's buttons), pure: which
 * actions an order's state allows, and the move each one makes. Each move is one the pipeline
 * makes too (a retry is `failed → ready`, a release is the re-plan a mapping change asks for), so
 * the stages carry on from it as from their own.
 */
export const PERSON_ACTIONS = ["retry", "release", "hold", "skip", "handled"] as const
export type PersonAction = (typeof PERSON_ACTIONS)[number]
export const isPersonAction = (value: string): value is PersonAction => (PERSON_ACTIONS as ReadonlyArray<string>).includes(value)

/** The held reason of an order a person held by hand: re-planning leaves it held until a person releases it. */
export const HELD_BY_PERSON = "held_by_person"

/** The held reason a person's release leaves until the re-plan gives the order its own. */
export const RELEASED_BY_PERSON = "released_by_person"

/** The held reason a `not_pod` order carries when a person said so: re-planning leaves it where it is. */
export const SKIPPED_BY_PERSON = "skipped_by_person"

export const ACTION_LABELS: Readonly<Record<PersonAction, string>> = {
  retry: "Retry now",
  release: "Release / re-plan",
  hold: "Hold",
  skip: "Not a POD order",
  handled: "Mark handled"
}

export interface ActedOrder {
  readonly state: OrderState
  readonly podDraftId: string | null
  /** Why it is held (a person's hold is lifted only by a release). */
  readonly heldReason?: string | null
}

/** The move an action makes: to `to`, due now or not, with the held reason it leaves (undefined: as the move implies). */
export interface PersonMove {
  readonly to: OrderState
  readonly reason: string
  readonly dueNow: boolean
  readonly held?: { readonly code: string; readonly details: { readonly message: string } }
}

export type ActionPlan = { readonly _tag: "Move"; readonly move: PersonMove } | { readonly _tag: "Refused"; readonly why: string }

const refused = (why: string): ActionPlan => ({ _tag: "Refused", why })
const moveTo = (move: PersonMove): ActionPlan => ({ _tag: "Move", move })

/** What `action` does to `order`, taken by `user`; refused (with what to do instead) where it makes no sense. */
export const planPersonAction = (action: PersonAction, order: ActedOrder, user: string): ActionPlan => {
  const by = `by ${user} in the console`
  switch (action) {
    case "retry":
      if (order.state === "in_doubt") {
        // The draft stage looks the draft up at the POD service before any new attempt.
        return moveTo({ to: "in_doubt", reason: `look-up and retry asked ${by}`, dueNow: true })
      }
      if (order.state !== "failed") return refused(`only a failed or in-doubt order is retried; this one is ${order.state}`)
      if (order.podDraftId !== null) {
        return refused(
          `it already has POD draft ${order.podDraftId}: a retry would not redo it; see its story for what failed and fix it in the store`
        )
      }
      return moveTo({ to: "ready", reason: `retry asked ${by}`, dueNow: true })
    case "release":
      if (order.state !== "held") return refused(`only a held order is released; this one is ${order.state}`)
      // Re-planned now: released if what held it is fixed, held again (with today's reason) if not.
      // A person's hold is lifted here, so that the re-plan decides afresh.
      return moveTo({
        to: "held",
        reason: `re-plan asked ${by}`,
        dueNow: true,
        ...(order.heldReason === HELD_BY_PERSON
          ? { held: { code: RELEASED_BY_PERSON, details: { message: `released ${by}: re-planned now` } } }
          : {})
      })
    case "hold":
      // Before its draft is made: a draft attempt in flight is looked up by reference id on release, never made twice.
      if (!(order.state === "ready" || order.state === "pulled" || (order.state === "failed" && order.podDraftId === null))) {
        return refused(
          order.state === "held"
            ? "it is held already"
            : `only an order not yet drafted is held by hand; this one is ${order.state}${
              order.podDraftId === null ? "" : ` with POD draft ${order.podDraftId}`
            }`
        )
      }
      return moveTo({
        to: "held",
        reason: `held by hand ${by}: it is not drafted until a person releases it`,
        dueNow: false,
        held: { code: HELD_BY_PERSON, details: { message: `held by hand ${by}; release it to draft it` } }
      })
    case "skip":
      if (order.state !== "held") return refused(`only a held order can be marked not a POD order; this one is ${order.state}`)
      return moveTo({
        to: "not_pod",
        reason: `marked not a POD order ${by}`,
        dueNow: false,
        held: { code: SKIPPED_BY_PERSON, details: { message: `marked not a POD order ${by}` } }
      })
    case "handled":
      if (order.state !== "cancel_pending") return refused(`only a cancel_pending order is marked handled; this one is ${order.state}`)
      return moveTo({ to: "pod_cancelled", reason: `cancelled at the POD service by hand; marked handled ${by}`, dueNow: false })
  }
}

/** The actions worth offering for an order in `state` (those `planPersonAction` would not refuse). */
export const actionsFor = (order: ActedOrder): ReadonlyArray<PersonAction> =>
  PERSON_ACTIONS.filter((action) => planPersonAction(action, order, "anyone")._tag === "Move")
