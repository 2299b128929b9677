import { isDeepStrictEqual } from "node:util"
import { Clock, Effect } from "effect"
import type { NormalizedOrder, NormalizedOrderEncoded } from "../domain/NormalizedOrder.js"
import { hasDraft, type OrderState } from "../domain/OrderState.js"
import { planDraft } from "../mapping/DraftPlan.js"
import { OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { PlanningInputs } from "./PlanningInputs.js"

const CATALOG_HOLDS: ReadonlyArray<string> = ["unknown_variant", "discontinued", "out_of_stock"]
const CATALOG_RECHECK_MS = 60_000

/** States the match stage re-plans when they are due (new, changed, or woken by a mapping/catalog change). */
export const MATCH_STATES: ReadonlyArray<OrderState> = ["pulled", "held", "cancelled", "not_pod"]

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

/**
 * Plans one claimed order (pure planDraft over the mapping table and the
 * catalog cache) and moves it: held with the seller-facing reason, ready,
 * cancelled, or not_pod. Held orders come back here when they are woken.
 */
export const matchOrder = (stored: StoredOrder, actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const inputs = yield* PlanningInputs
    const settings = inputs.settingsFor(stored.storeKey)
    if (settings === undefined) {
      // A store removed from the config: leave its orders alone.
      return yield* repo.release(stored.id, actor, null)
    }
    const plan = planDraft(stored.order, yield* inputs.tableFor(stored.storeKey), yield* inputs.catalog, settings)
    const from = stored.state
    // Holds that depend on the catalog cache are looked at again every minute: another replica's
    // refresh (or a first refresh still filling the cache) changes the answer without waking anyone.
    // Planning is pure, so this costs no API call. Other holds wait for what wakes them.
    const retryAt = plan._tag === "Ready"
      ? new Date(0)
      : plan._tag === "Held" && CATALOG_HOLDS.includes(plan.code)
      ? new Date((yield* Clock.currentTimeMillis) + CATALOG_RECHECK_MS)
      : null
    // The move and the claim's release are one statement; with no move, only the release.
    const move = { actor, release: actor, nextAttemptAt: retryAt }
    switch (plan._tag) {
      case "Cancelled":
        if (from !== "cancelled") return yield* repo.transition(stored.id, from, "cancelled", { ...move, reason: "cancelled in the store before a draft was made" })
        break
      case "NotPod":
        if (from !== "not_pod") return yield* repo.transition(stored.id, from, "not_pod", { ...move, reason: plan.message })
        break
      case "Held":
        if (from !== "held" || stored.heldReason !== plan.code || JSON.stringify((stored.heldDetails as { message?: string } | null)?.message) !== JSON.stringify(plan.message)) {
          return yield* repo.transition(stored.id, from, "held", {
            ...move, reason: plan.message, held: { code: plan.code, details: { message: plan.message, problems: plan.problems } }
          })
        }
        break
      case "Ready":
        return yield* repo.transition(stored.id, from, "ready", { ...move, reason: from === "held" ? "released: the reason to hold it is gone" : "matched every line" })
    }
    yield* repo.release(stored.id, actor, retryAt)
  })

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
