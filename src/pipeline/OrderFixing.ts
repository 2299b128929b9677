import { Effect } from "effect"
import type { ShipTo } from "../domain/NormalizedOrder.js"
import { addressFixRefusal, type OrderFixes, type PodVariantChoice, podVariantInWords, variantFixRefusal } from "../domain/OrderFix.js"
import { HELD_BY_PERSON } from "../domain/PersonAction.js"
import { addressProblems } from "../mapping/DraftPlan.js"
import type { PodError } from "../pod/PodErrors.js"
import { OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { wouldUpdateDraftLines } from "./DryRunRecords.js"
import { patchDraftToPlan } from "./OrderChanges.js"
import { actOnOrders, type ActionOutcome } from "./PersonActions.js"

/**
 * Fixing in place (issue 34): a person corrects one order in the console. The fix is kept by
 * podsync beside the store's copy (never written to the store), told in the order's story with
 * the person, and applied where the draft is planned. Before the draft a held order is re-planned
 * at once; a drafted order's lines change through the POD service's draft update while the draft
 * is not checked out. No fix ever makes a second draft: the reference id stays the order's one.
 */

const addressInOneLine = (to: ShipTo) =>
  [to.name, to.company, to.line1, to.line2, [to.postalCode, to.city].filter(Boolean).join(" "), to.regionCode ?? to.region, to.countryCode]
    .filter((part) => part !== undefined && part !== "")
    .join(", ")

const outcome = (stored: Pick<StoredOrder, "id" | "referenceId">, done: boolean, message: string): ActionOutcome => ({
  id: stored.id,
  referenceId: stored.referenceId,
  outcome: done ? "done" : "refused",
  message
})

/** A POD error in a line a seller can pass on. */
const podErrorInWords = (error: PodError) =>
  `${error._tag.replace(/^Pod|Error$/g, "")}${"message" in error && error.message !== "" ? `: ${error.message}` : ""}${
    "details" in error && error.details.length > 0 ? ` (${error.details.map((d) => `${d.field} ${d.issue}`).join("; ")})` : ""
  }`

/** A held order (not held by hand) is re-planned now, as the queue's release does: released if nothing else holds it. */
const replanIfHeld = (stored: StoredOrder, user: string, actionKey: string) =>
  Effect.gen(function*() {
    if (stored.state !== "held" || stored.heldReason === HELD_BY_PERSON) return undefined
    const [released] = yield* actOnOrders("release", [stored], { user, actionKey })
    return released
  })

/**
 * Corrects the order's shipping address for its draft, checked by the pipeline's address rules.
 * Only before the draft: the POD service's draft update changes lines, never the address.
 */
export const fixAddress = Effect.fn("OrderFixing.fixAddress")(function*(
  orderId: number,
  shipTo: ShipTo,
  person: { readonly user: string; readonly actionKey: string }
) {
  const repo = yield* OrdersRepo
  const stored = yield* repo.byId(orderId)
  const refusal = addressFixRefusal(stored)
  if (refusal !== undefined) return [outcome(stored, false, `address not changed: ${refusal}`)]
  const problems = addressProblems(shipTo)
  if (problems.length > 0) return [outcome(stored, false, `address not changed: ${problems.join("; ")}`)]
  const saved = yield* repo.fixes.save(orderId, { kind: "address", shipTo }, {
    actor: `console:${person.user}`,
    reason: `shipping address corrected by ${person.user} in the console: ${
      addressInOneLine(shipTo)
    }. podsync keeps it and the POD draft uses it; the store's copy is unchanged`,
    onlyIf: addressFixRefusal
  })
  if (saved !== undefined) return [outcome(stored, false, `address not changed: ${saved}`)]
  const fixed = outcome(stored, true, "shipping address corrected for the POD draft (the store's copy is unchanged)")
  const replanned = yield* replanIfHeld(stored, person.user, person.actionKey)
  return replanned === undefined
    ? [fixed]
    : [fixed, { ...replanned, message: replanned.outcome === "done" ? "re-planned now with the corrected address" : replanned.message }]
})

/**
 * Chooses the POD variant for one line of the order instead of its mapping row's (the row's designs
 * stay). Before the draft the plan uses it; while the draft is not checked out the draft's lines
 * are updated through the POD service (and the choice is kept only once the service took it).
 */
export const chooseVariant = Effect.fn("OrderFixing.chooseVariant")(function*(
  orderId: number,
  lineId: string,
  pod: PodVariantChoice,
  person: { readonly user: string; readonly actionKey: string }
) {
  const repo = yield* OrdersRepo
  const stored = yield* repo.byId(orderId)
  const refusal = variantFixRefusal(stored)
  if (refusal !== undefined) return [outcome(stored, false, `variant not changed: ${refusal}`)]
  const line = stored.order.lines.find((l) => l.lineId === lineId)
  if (line === undefined) return [outcome(stored, false, `variant not changed: the order has no line ${lineId}`)]
  const actor = `console:${person.user}`
  const what = `"${line.title}${line.variantTitle ? ` / ${line.variantTitle}` : ""}" is to be made as ${podVariantInWords(pod)}`
  if (stored.state === "drafted") {
    const current = yield* repo.fixes.forOrder(orderId)
    const fixes: OrderFixes = {
      ...current,
      variants: [...current.variants.filter((v) => v.lineId !== lineId), { lineId, pod, by: actor, at: new Date(0) }]
    }
    const patch = yield* patchDraftToPlan(stored, fixes).pipe(
      Effect.catchAll((error) =>
        error._tag === "DbError" ? Effect.fail(error) : Effect.succeed({ _tag: "Failed" as const, why: podErrorInWords(error) })
      )
    )
    if (patch._tag === "Failed") {
      return [
        outcome(
          stored,
          false,
          `variant not changed: the POD service did not take the draft update (${patch.why}); nothing is kept, try again or change it at the POD service`
        )
      ]
    }
    if (patch._tag === "DryRun") {
      yield* repo.recordDryRun(orderId, actor, {
        reason: `dry run: ${what}; the POD draft's lines would be updated (not sent, nothing kept)`,
        request: wouldUpdateDraftLines(patch.body)
      })
      return [
        outcome(
          stored,
          false,
          "variant not changed: podsync runs dry, so the draft update was not sent (its request is in the order's story)"
        )
      ]
    }
    if (patch._tag === "Refused") {
      const r = patch.refusal
      const why = r._tag === "CheckedOut"
        ? `the POD draft is ${
          r.status.replace("VENDOR_ORDER_DRAFT_STATUS_", "").toLowerCase().replaceAll("_", " ")
        }: its lines no longer change, change it at the POD service`
        : r._tag === "CannotPlan"
        ? `with it the order cannot be drafted (${r.why})`
        : r._tag === "LineCount"
        ? `the draft has ${r.drafted} line(s) where podsync plans ${r.planned}: lines cannot be added or removed through the draft update`
        : "the order has no draft to update"
      return [outcome(stored, false, `variant not changed: ${why}`)]
    }
    yield* repo.fixes.save(orderId, { kind: "variant", lineId, pod }, {
      actor,
      reason: `${what}, chosen by ${person.user} in the console: the POD draft ${
        stored.podDraftId ?? ""
      } was updated through the POD service's draft update (not checked out yet)`,
      data: { draftUpdated: stored.podDraftId }
    })
    return [outcome(stored, true, `${what}: the POD draft was updated`)]
  }
  const saved = yield* repo.fixes.save(orderId, { kind: "variant", lineId, pod }, {
    actor,
    reason: `${what}, chosen by ${person.user} in the console: the POD draft will use it (the mapping file is unchanged)`,
    onlyIf: (order) => (order.state === "drafted" ? "the order was drafted meanwhile: look at it again" : variantFixRefusal(order))
  })
  if (saved !== undefined) return [outcome(stored, false, `variant not changed: ${saved}`)]
  const fixed = outcome(stored, true, `${what} (kept by podsync for the draft)`)
  const replanned = yield* replanIfHeld(stored, person.user, person.actionKey)
  return replanned === undefined
    ? [fixed]
    : [fixed, { ...replanned, message: replanned.outcome === "done" ? "re-planned now with the chosen variant" : replanned.message }]
})
