import { Either } from "effect"
import type { CatalogLookup } from "../domain/MappingTable.js"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import { pricePlatformName } from "../domain/PodEnums.js"
import type { RehearsedState, RehearsalOutcome } from "../domain/Rehearsal.js"
import type { CreateDraftInput } from "../pod/schemas/DraftRequests.js"
import type { PriceQuoteInput } from "../pod/schemas/Price.js"
import type { DraftPlan } from "./DraftPlan.js"

/**
 * The rehearsal's decisions, pure: how a plan (planDraft's answer, the very
 * one the match stage acts on) reads in a rehearsal, and the price quote
 * that asks what its draft would cost without creating it.
 */

export interface PlanReading {
  readonly outcome: RehearsalOutcome
  readonly reason: string
  readonly message: string
  readonly state: RehearsedState
}

/** A plan that is not Ready, as the rehearsal reports it (and the state the match stage would move the order to). */
export const readPlan = (order: NormalizedOrder, plan: Exclude<DraftPlan, { readonly _tag: "Ready" }>): PlanReading => {
  switch (plan._tag) {
    case "Cancelled":
      return { outcome: "skipped", reason: "cancelled", message: "cancelled in the store", state: "cancelled" }
    case "NotPod": {
      const toShip = order.lines.some((l) => l.fulfillableQuantity > 0 && l.requiresShipping)
      return toShip
        ? { outcome: "skipped", reason: "not_pod", message: plan.message, state: "not_pod" }
        : { outcome: "skipped", reason: "fulfilled_elsewhere", message: "already fulfilled (nothing left to ship)", state: "not_pod" }
    }
    case "Held":
      // Unpaid orders wait in the pipeline (held, drafted once paid): the rehearsal counts them as skipped for now.
      return plan.code === "unpaid"
        ? { outcome: "skipped", reason: "unpaid", message: plan.message, state: "held" }
        : { outcome: "held", reason: plan.code, message: plan.message, state: "held" }
  }
}

/** The SKUs (else the store variant ids) of a held plan's unmatched lines. */
export const linesToMap = (
  order: NormalizedOrder,
  plan: DraftPlan
): ReadonlyArray<{ readonly sku: string; readonly title: string; readonly variantId: string | undefined }> => {
  if (plan._tag !== "Held") return []
  const ids = new Set(plan.problems.filter((p) => p.code === "unmatched").map((p) => p.lineId))
  return order.lines.filter((l) => ids.has(l.lineId)).map((l) => ({
    sku: l.sku ?? l.variantId ?? l.lineId,
    title: [l.title, l.variantTitle].filter(Boolean).join(" / "),
    variantId: l.variantId
  }))
}

/**
 * The price quote of a planned draft: the same lines, print locations, destination, shipping,
 * billing and gift message, so the service prices it as it would the draft. A line mapped by
 * legacy id is quoted by the variant id the catalog cache gives it; without one, it cannot be.
 */
export const quoteOfDraft = (draft: CreateDraftInput, catalog: CatalogLookup | undefined): Either.Either<PriceQuoteInput, string> => {
  const items: Array<PriceQuoteInput["line_items"][number]> = []
  for (const item of draft.line_items) {
    const variantId = item.variant_id ??
      (item.legacy_id === undefined ? undefined : catalog?.({ legacyId: String(item.legacy_id) })?.variantId)
    if (variantId === undefined) {
      return Either.left(
        `POD legacy variant ${String(item.legacy_id)} is not in the catalog cache, so its price cannot be asked: ` +
          "let the daemon refresh the catalog (it does at start), or map the item by pod_variant_id"
      )
    }
    items.push({
      variant_id: variantId,
      quantity: item.quantity,
      print_locations: [...new Set(item.printing_options.map((p) => p.location_code))]
    })
  }
  const billing = draft.billing_option
  return Either.right({
    order_platform: pricePlatformName(draft.platform),
    ...(billing !== undefined ? { billing: { ...billing } } : {}),
    shipping: {
      address: {
        method: draft.shipping_method ?? "METHOD_STANDARD",
        state_code: draft.address.state_code ?? "",
        country_code: draft.address.country_code
      }
    },
    line_items: items,
    // The quote charges a gift message per message; its text is limited to 300 characters there.
    ...(draft.gift_message_body !== undefined
      ? { gift_messages: [{ gift_message_id: "gift", content: draft.gift_message_body.slice(0, 300) }] }
      : {})
  })
}

const AT_RISK = /AT_RISK|OUT_OF_STOCK_5D|LOW/

/**
 * What the service's draft answer would warn about, as far as podsync can tell before it exists:
 * variants the catalog cache marks at risk, and a P.O. box address some carriers cannot reach.
 */
export const expectedWarnings = (draft: CreateDraftInput, catalog: CatalogLookup | undefined): ReadonlyArray<string> => [
  ...draft.line_items.flatMap((item, index) => {
    const key = item.variant_id !== undefined ? { variantId: item.variant_id } : { legacyId: String(item.legacy_id) }
    const entry = catalog?.(key)
    return entry !== undefined && AT_RISK.test(entry.stockLabel)
      ? [`line_items[${index}]: ${entry.name} (${entry.variantId}) is at risk of running out of stock`]
      : []
  }),
  ...(/\bP\.?\s*O\.?\s*BOX\b/i.test(draft.address.street_1) ? ["address.street_1: a P.O. box; some carriers cannot deliver to it"] : [])
]

/** The least whole seconds `calls` requests take under a budget of `allowed` per window (the first window is free). */
export const secondsUnderBudget = (calls: number, allowed: number, windowSeconds: number): number =>
  calls <= allowed ? 0 : (Math.ceil(calls / Math.max(1, allowed)) - 1) * windowSeconds
