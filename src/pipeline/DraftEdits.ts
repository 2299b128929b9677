import { Effect } from "effect"
import { planDraft } from "../mapping/DraftPlan.js"
import { PodClient } from "../pod/PodClient.js"
import { OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { PlanningInputs } from "./PlanningInputs.js"

/**
 * The store edited an order's lines after its draft was made but before
 * checkout: bring the draft's lines in line (PATCH, quantities, variants and
 * designs). The API can update lines but not add or remove them, so a change
 * in the number of POD lines is left for a person, with the reason.
 */
export const patchDraftLines = (stored: StoredOrder, actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const client = yield* PodClient
    const inputs = yield* PlanningInputs
    const settings = inputs.settingsFor(stored.storeKey)
    if (stored.state !== "drafted" || stored.podDraftId === null || settings === undefined) return "not_applicable" as const
    const flag = (reason: string) => Effect.as(repo.note(stored.id, actor, reason), "flagged" as const)
    const plan = planDraft(stored.order, yield* inputs.tableFor(stored.storeKey), yield* inputs.catalog, settings)
    if (plan._tag !== "Ready") {
      return yield* flag(`the order's lines changed in the store after the draft was made and it can no longer be drafted as it is (${plan._tag === "Held" ? plan.message : plan._tag}): fix the POD draft by hand`)
    }
    const call = { lane: "urgent" as const, storeKey: stored.storeKey }
    const draft = yield* client.getDraft(stored.podDraftId, call)
    const draftLines = draft.line_items ?? []
    if (draftLines.length !== plan.draft.line_items.length || draftLines.some((l) => !l.line_item_id)) {
      return yield* flag(`the store now has ${plan.draft.line_items.length} POD line(s) where the draft has ${draftLines.length}: lines cannot be added or removed through the API, fix the POD draft by hand`)
    }
    yield* client.patchDraftLineItems({
      order_id: stored.podDraftId,
      line_items: plan.draft.line_items.map((item, i) => ({ ...item, line_item_id: draftLines[i]!.line_item_id! }))
    }, call)
    yield* repo.transition(stored.id, "drafted", "drafted", {
      actor, reason: "the store edited the lines before checkout: the draft's lines were updated to match", plannedLines: plan.lines,
      data: { lines: plan.lines }
    })
    return "patched" as const
  })
