import { Clock, Effect } from "effect"
import { planDraft } from "../mapping/DraftPlan.js"
import { type Move, OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { decideMatch } from "./MatchDecision.js"
import { PlanningInputs } from "./PlanningInputs.js"

/**
 * Plans claimed orders (pure planDraft over the mapping table and the
 * catalog cache) and moves them, all in one statement: held with the
 * seller-facing reason, ready, cancelled, or not_pod; the claims are given
 * back with the moves (and in one more statement for the orders that stay).
 * Held orders come back here when they are woken.
 */
export const matchMany = (claimed: ReadonlyArray<StoredOrder>, actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const inputs = yield* PlanningInputs
    const nowMs = yield* Clock.currentTimeMillis
    const moves: Array<Move> = []
    const releases: Array<{ readonly id: number; readonly nextAttemptAt: Date | null }> = []
    // What a person fixed in the console (a corrected address, a line's variant): the plan applies it.
    const fixes = yield* repo.fixes.forOrders(claimed.map((s) => s.id))
    for (const stored of claimed) {
      const settings = inputs.settingsFor(stored.storeKey)
      // A store removed from the config: leave its orders alone.
      if (settings === undefined) {
        releases.push({ id: stored.id, nextAttemptAt: null })
        continue
      }
      const plan = planDraft(stored.order, yield* inputs.tableFor(stored.storeKey), yield* inputs.catalog, settings, fixes.get(stored.id))
      const decision = decideMatch(stored, plan, nowMs, actor, settings.shipping.economyUncovered ?? "standard")
      if ("move" in decision) moves.push(decision.move)
      else releases.push({ id: stored.id, nextAttemptAt: decision.release })
    }
    const moved = yield* repo.transitionMany(moves)
    // Not moved: no longer in the state it was claimed in (changed meanwhile); it is looked at again at once.
    for (const { id } of moves) if (!moved.has(id)) releases.push({ id, nextAttemptAt: new Date(0) })
    yield* repo.releaseMany(releases, actor)
    return moved.size
  })

/** Plans one claimed order and moves it (see `matchMany`). */
export const matchOrder = (stored: StoredOrder, actor: string) => matchMany([stored], actor)
