import { Array as Arr, Effect } from "effect"
import { isDryRun } from "../config/DryRun.js"
import { Db } from "../db/Db.js"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import { hasDraft } from "../domain/OrderState.js"
import * as ReferenceId from "../domain/ReferenceId.js"
import type { OrderFixes } from "../domain/OrderFix.js"
import { planDraft, type PlannedLine } from "../mapping/DraftPlan.js"
import { PodClient } from "../pod/PodClient.js"
import type { PatchDraftLineItemsInput } from "../pod/schemas/DraftRequests.js"
import { OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { changeMatters, decideChangeAfterDraft } from "./ChangeDecision.js"
import { wouldUpdateDraftLines } from "./DryRunRecords.js"
import { PlanningInputs } from "./PlanningInputs.js"

/**
 * What the pipeline does when the store sends a newer version of an order: store it (the pull,
 * a webhook's named read) and, once it is stored, react to a change after the POD draft (also the
 * draft stage, for a change that came in while the draft was being made). One module, so that no
 * stage reaches into another.
 */

/**
 * Stores versions of a store's orders in one transaction (with `alsoInTransaction`, e.g. the
 * pull's cursor), then reacts to those that changed after their draft (no HTTP inside the
 * transaction). Answers how many were new and how many changed.
 */
export const storeOrderVersions = <E = never, R = never>(
  storeKey: string,
  versions: ReadonlyArray<NormalizedOrder>,
  alsoInTransaction?: Effect.Effect<void, E, R>
) =>
  Effect.gen(function*() {
    const orders = yield* OrdersRepo
    const db = yield* Db
    const counts = { inserted: 0, changed: 0 }
    const changedAfterDraft: Array<[number, NormalizedOrder]> = []
    yield* db.transaction(Effect.gen(function*() {
      const outcomes = yield* orders.storePage(
        storeKey,
        versions.map((order) => ({ order, referenceId: ReferenceId.keyOf(storeKey, order.storeOrderId) })),
        changeMatters
      )
      for (const result of outcomes.values()) {
        if (result.outcome === "inserted") counts.inserted++
        if (result.outcome === "changed") {
          counts.changed++
          if (hasDraft(result.state)) changedAfterDraft.push([result.id, result.previous])
        }
      }
      if (alsoInTransaction !== undefined) yield* alsoInTransaction
    }))
    for (const [id, previous] of changedAfterDraft) yield* reactToChangeAfterDraft(id, previous)
    return counts
  })

/** After the page is stored (no HTTP inside its transaction): react to orders that changed after their draft. */
export const reactToChangeAfterDraft = (id: number, previous: NormalizedOrder) =>
  Effect.gen(function*() {
    const orders = yield* OrdersRepo
    const stored = yield* orders.byId(id)
    const change = yield* storeChangeAfterDraft(stored, previous, "pull")
    if (change === "lines_changed" && stored.state === "drafted") {
      yield* patchDraftLines(stored, "pull").pipe(
        Effect.catchAll((error) =>
          orders.note(
            id,
            "pull",
            `the lines changed in the store after the draft; updating the draft failed (${error._tag}): check the POD draft by hand`
          )
        )
      )
    } else if (change === "address_changed" || change === "lines_changed") {
      const what = change === "address_changed" ? "shipping address" : "line items"
      yield* orders.note(
        id,
        "pull",
        `the ${what} changed in the store after the POD draft was made (${stored.state}): the POD service cannot change it through the API, fix it there by hand`,
        { change }
      )
    }
  })

/** An order that already has a draft changed in the store: a cancel is moved to cancel_pending here; the rest is answered. */
export const storeChangeAfterDraft = (stored: StoredOrder, previous: NormalizedOrder, actor: string) =>
  Effect.gen(function*() {
    const change = decideChangeAfterDraft(stored.state, stored.order, previous)
    if (change === "cancel_pending") {
      yield* (yield* OrdersRepo).transition(stored.id, stored.state, "cancel_pending", {
        actor,
        reason: "cancelled in the store after the POD draft was made: cancel it at the POD service by hand (the API has no cancel)",
        nextAttemptAt: null
      })
    }
    return change
  })

/** Why a drafted order's draft was not brought in line with its plan. */
export type DraftPatchRefusal =
  | { readonly _tag: "NotApplicable" }
  | { readonly _tag: "CannotPlan"; readonly why: string }
  | { readonly _tag: "CheckedOut"; readonly status: string }
  | { readonly _tag: "LineCount"; readonly planned: number; readonly drafted: number }

export type DraftPatch =
  | { readonly _tag: "Patched"; readonly lines: ReadonlyArray<PlannedLine> }
  /** A daemon in dry run: the update it would have sent, not sent. */
  | { readonly _tag: "DryRun"; readonly body: PatchDraftLineItemsInput }
  | { readonly _tag: "Refused"; readonly refusal: DraftPatchRefusal }

// Once checked out (or gone) a draft's lines no longer change: the service refuses the update.
const FINISHED_DRAFT = ["VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT", "VENDOR_ORDER_DRAFT_STATUS_DELETED", "VENDOR_ORDER_DRAFT_STATUS_ARCHIVED"]

/**
 * Brings a drafted order's POD draft lines in line with its plan (with what a person fixed:
 * `fixes`), through the POD service's draft update (PATCH /api/v3/orders/draft/line-items:
 * variant, quantity, designs of existing lines; never the address, never a line added or
 * removed), while the draft is not checked out. Never makes a draft: one store order is one draft.
 */
export const patchDraftToPlan = (stored: StoredOrder, fixes: OrderFixes) =>
  Effect.gen(function*() {
    const client = yield* PodClient
    const inputs = yield* PlanningInputs
    const settings = inputs.settingsFor(stored.storeKey)
    const refused = (refusal: DraftPatchRefusal): DraftPatch => ({ _tag: "Refused", refusal })
    if (stored.state !== "drafted" || stored.podDraftId === null || settings === undefined) return refused({ _tag: "NotApplicable" })
    const plan = planDraft(stored.order, yield* inputs.tableFor(stored.storeKey), yield* inputs.catalog, settings, fixes)
    if (plan._tag !== "Ready") return refused({ _tag: "CannotPlan", why: plan._tag === "Held" ? plan.message : plan._tag })
    const call = { lane: "urgent" as const, storeKey: stored.storeKey }
    const draft = yield* client.getDraft(stored.podDraftId, call)
    if (draft.status !== undefined && FINISHED_DRAFT.includes(draft.status)) return refused({ _tag: "CheckedOut", status: draft.status })
    const draftLines = draft.line_items ?? []
    const lineItemIds = draftLines.flatMap((l) => (l.line_item_id ? [l.line_item_id] : []))
    if (draftLines.length !== plan.draft.line_items.length || lineItemIds.length !== draftLines.length) {
      return refused({ _tag: "LineCount", planned: plan.draft.line_items.length, drafted: draftLines.length })
    }
    const body: PatchDraftLineItemsInput = {
      order_id: stored.podDraftId,
      // Same length, and every draft line has its id: checked above.
      line_items: Arr.zipWith(plan.draft.line_items, lineItemIds, (item, line_item_id) => ({ ...item, line_item_id }))
    }
    if (yield* isDryRun) return { _tag: "DryRun", body } satisfies DraftPatch
    yield* client.patchDraftLineItems(body, call)
    return { _tag: "Patched", lines: plan.lines } satisfies DraftPatch
  })

/**
 * The store edited an order's lines after its draft was made but before
 * checkout: bring the draft's lines in line (PATCH, quantities, variants and
 * designs). The API can update lines but not add or remove them, so a change
 * in the number of POD lines is left for a person, with the reason.
 */
export const patchDraftLines = (stored: StoredOrder, actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const flag = (reason: string) => Effect.as(repo.note(stored.id, actor, reason), "flagged" as const)
    const patch = yield* patchDraftToPlan(stored, yield* repo.fixes.forOrder(stored.id))
    if (patch._tag === "Refused") {
      const refusal = patch.refusal
      switch (refusal._tag) {
        case "NotApplicable":
          return "not_applicable" as const
        case "CannotPlan":
          return yield* flag(
            `the order's lines changed in the store after the draft was made and it can no longer be drafted as it is (${refusal.why}): fix the POD draft by hand`
          )
        case "CheckedOut":
          return yield* flag(
            `the order's lines changed in the store after the draft was made, but the POD draft is ${
              refusal.status.replace("VENDOR_ORDER_DRAFT_STATUS_", "").toLowerCase().replaceAll("_", " ")
            } and its lines no longer change: fix it at the POD service by hand`
          )
        case "LineCount":
          return yield* flag(
            `the store now has ${refusal.planned} POD line(s) where the draft has ${refusal.drafted}: lines cannot be added or removed through the API, fix the POD draft by hand`
          )
      }
    }
    if (patch._tag === "DryRun") {
      yield* repo.recordDryRun(stored.id, actor, {
        reason: "dry run: the store edited the lines before checkout; the draft's lines would be updated to match (not sent)",
        request: wouldUpdateDraftLines(patch.body)
      })
      return "dry_run" as const
    }
    yield* repo.transition(stored.id, "drafted", "drafted", {
      actor,
      reason: "the store edited the lines before checkout: the draft's lines were updated to match",
      plannedLines: patch.lines,
      data: { lines: patch.lines }
    })
    return "patched" as const
  })
