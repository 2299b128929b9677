import { isDeepStrictEqual } from "node:util"
import { Clock, Effect } from "effect"
import type { NormalizedOrder, NormalizedOrderEncoded } from "../domain/NormalizedOrder.js"
import { hasDraft, type OrderState } from "../domain/OrderState.js"
import { planDraft } from "../mapping/DraftPlan.js"
import { economyHoldStands, type EconomyUncoveredPolicy } from "../mapping/EconomyShipping.js"
import { type Move, OrdersRepo, type StoredOrder, type TransitionChange } from "../repos/OrdersRepo.js"
import { PlanningInputs } from "./PlanningInputs.js"

// Also re-planned every minute: a refused Economy destination depends on the store's shipping config,
// which a restart may have changed (nothing else wakes a held order then).
const CATALOG_HOLDS: ReadonlyArray<string> = ["unknown_variant", "discontinued", "out_of_stock", "economy_unavailable"]
const CATALOG_RECHECK_MS = 60_000


/** What the change checks read of an order; the decoded and the stored (encoded) forms both have it. */
interface Comparable {
  readonly cancelled: boolean
  readonly shipTo: unknown
  readonly lines: ReadonlyArray<{ readonly lineId: string; readonly variantId?: string | undefined; readonly sku?: string | undefined; readonly currentQuantity: number }>
}

// The buyer's units (currentQuantity), not what is left to ship: our own fulfillment push changes
// fulfillableQuantity, and that must not read as an edit in the store.
const lineSignature = (order: Comparable) =>
  order.lines.map((l) => `${l.lineId}:${l.variantId ?? ""}:${l.sku ?? ""}:${l.currentQuantity}`).sort().join("|")

/** Whatever order its keys come in (a stored address comes back from jsonb with its keys reordered). */
const sameAddress = (a: Comparable, b: Comparable) => isDeepStrictEqual(asJson(a.shipTo), asJson(b.shipTo))

const asJson = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)))

/** An order without what a newer version may change without meaning anything to the pipeline. */
const plannable = (order: NormalizedOrderEncoded) => {
  const { raw: _raw, updatedAt: _updatedAt, tags: _tags, ...rest } = order
  return asJson(rest)
}

/**
 * Whether a newer version of a stored order asks the pipeline to act, on the
 * stored (encoded) forms, so the many versions that do not matter cost no
 * decoding. After the draft only a cancel, the address and the buyer's units
 * do (our own annotation and fulfilment come back as newer versions too, and
 * must not read as edits); before it, anything planning reads does.
 */
export const changeMatters = (state: OrderState, previous: NormalizedOrderEncoded, current: NormalizedOrderEncoded): boolean =>
  hasDraft(state)
    ? current.cancelled !== previous.cancelled || !sameAddress(current, previous) ||
      lineSignature(current) !== lineSignature(previous)
    : !isDeepStrictEqual(plannable(previous), plannable(current))

/** What matching decided for one order: a move (with the claim given back in it), or only the claim given back. */
type MatchDecision = { readonly move: Move } | { readonly release: Date | null }

const decideMatch = (
  stored: StoredOrder,
  plan: ReturnType<typeof planDraft>,
  nowMs: number,
  actor: string,
  economyUncovered: EconomyUncoveredPolicy
): MatchDecision => {
  const from = stored.state
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
    for (const stored of claimed) {
      const settings = inputs.settingsFor(stored.storeKey)
      // A store removed from the config: leave its orders alone.
      if (settings === undefined) {
        releases.push({ id: stored.id, nextAttemptAt: null })
        continue
      }
      const plan = planDraft(stored.order, yield* inputs.tableFor(stored.storeKey), yield* inputs.catalog, settings)
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

/**
 * An order that already has a draft changed in the store. The API cannot
 * cancel or edit an order after checkout, so: cancelled → cancel_pending for
 * a person; lines changed before checkout → the draft's lines are patched by
 * the draft stage (flagged here); address changed → flagged for a person.
 */
export const storeChangeAfterDraft = (stored: StoredOrder, previous: NormalizedOrder, actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    if (!hasDraft(stored.state)) return "none" as const
    if (stored.order.cancelled && !previous.cancelled && stored.state !== "cancel_pending" && stored.state !== "pod_cancelled") {
      yield* repo.transition(stored.id, stored.state, "cancel_pending", {
        actor, reason: "cancelled in the store after the POD draft was made: cancel it at the POD service by hand (the API has no cancel)", nextAttemptAt: null
      })
      return "cancel_pending" as const
    }
    if (!sameAddress(stored.order, previous)) return "address_changed" as const
    if (lineSignature(stored.order) !== lineSignature(previous)) return "lines_changed" as const
    return "none" as const
  })
