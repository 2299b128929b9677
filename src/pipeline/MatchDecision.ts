import type { OrderState } from "../domain/OrderState.js"
import { HELD_BY_PERSON, SKIPPED_BY_PERSON } from "../domain/PersonAction.js"
import type { planDraft } from "../mapping/DraftPlan.js"
import { economyHoldStands, type EconomyUncoveredPolicy } from "../mapping/EconomyShipping.js"
import type { Move, StoredOrder, TransitionChange } from "../repos/OrdersRepo.js"

// Also re-planned every minute: a refused Economy destination depends on the store's shipping config,
// which a restart may have changed (nothing else wakes a held order then).
const CATALOG_HOLDS: ReadonlyArray<string> = ["unknown_variant", "discontinued", "out_of_stock", "economy_unavailable"]
const CATALOG_RECHECK_MS = 60_000

/** What matching decided for one order: a move (with the claim given back in it), or only the claim given back. */
export type MatchDecision = { readonly move: Move } | { readonly release: Date | null }

export const decideMatch = (
  stored: StoredOrder,
  plan: ReturnType<typeof planDraft>,
  nowMs: number,
  actor: string,
  economyUncovered: EconomyUncoveredPolicy
): MatchDecision => {
  const from = stored.state
  // A person said it is not a POD order (the console): a mapping or catalog change does not undo that.
  if (from === "not_pod" && stored.heldReason === SKIPPED_BY_PERSON) return { release: null }
  // A person held it by hand: it stays held until a person releases it (unless the store cancels it).
  if (from === "held" && stored.heldReason === HELD_BY_PERSON && plan._tag !== "Cancelled") return { release: null }
  // Holds that depend on the catalog cache are looked at again every minute: another replica's
  // refresh (or a first refresh still filling the cache) changes the answer without waking anyone.
  // Planning is pure, so this costs no API call. Other holds wait for what wakes them.
  const retryAt = plan._tag === "Ready"
    ? new Date(0)
    : plan._tag === "Held" && CATALOG_HOLDS.includes(plan.code)
    ? new Date(nowMs + CATALOG_RECHECK_MS)
    : null
  const move = (to: OrderState, change: Partial<TransitionChange> & { readonly reason: string }): MatchDecision => ({
    move: { id: stored.id, from, to, change: { actor, release: actor, nextAttemptAt: retryAt, ...change } }
  })
  switch (plan._tag) {
    case "Cancelled":
      return from !== "cancelled" ? move("cancelled", { reason: "cancelled in the store before a draft was made" }) : { release: retryAt }
    case "NotPod":
      return from !== "not_pod" ? move("not_pod", { reason: plan.message }) : { release: retryAt }
    case "Held":
      return from !== "held" || stored.heldReason !== plan.code ||
          JSON.stringify((stored.heldDetails as { message?: string } | null)?.message) !== JSON.stringify(plan.message)
        ? move("held", { reason: plan.message, held: { code: plan.code, details: { message: plan.message, problems: plan.problems } } })
        : { release: retryAt }
    case "Ready": {
      // Held by the draft stage for an uncovered Economy ZIP: planning cannot see coverage, so the hold
      // stands until the order or the policy changes, or the coverage is due a new check.
      if (from === "held" && stored.heldReason === "economy_uncovered") {
        const stands = economyHoldStands(stored.heldDetails, plan.draft, economyUncovered, nowMs)
        if ("lookAgainAt" in stands) return { release: stands.lookAgainAt }
        return move("ready", { reason: stands.release })
      }
      return move("ready", { reason: from === "held" ? "released: the reason to hold it is gone" : "matched every line" })
    }
  }
}
