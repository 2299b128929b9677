import { Schema } from "effect"
import type { ShipTo } from "./NormalizedOrder.js"
import { hasDraft, type OrderState } from "./OrderState.js"

/**
 * Fixing in place (issue 34): what a person corrected of one order in the console. podsync keeps
 * it beside the order (the store's copy is never changed) and the draft plan applies it, so the
 * POD draft carries it: a corrected shipping address, and for a line the POD variant to use
 * instead of its mapping row's.
 */

/** A POD variant as a mapping row names it: by variant id, or by the service's legacy id. */
export const PodVariantChoice = Schema.Union(
  Schema.Struct({ variantId: Schema.String.pipe(Schema.minLength(1)) }),
  Schema.Struct({ legacyId: Schema.String.pipe(Schema.pattern(/^\d+$/)) })
)
export type PodVariantChoice = typeof PodVariantChoice.Type

/** Who fixed it (the console's actor, `console:<user>`) and when. */
export interface FixedBy {
  readonly by: string
  readonly at: Date
}

export interface AddressFix extends FixedBy {
  readonly shipTo: ShipTo
}

export interface VariantFix extends FixedBy {
  readonly lineId: string
  readonly pod: PodVariantChoice
}

export interface OrderFixes {
  readonly address?: AddressFix | undefined
  readonly variants: ReadonlyArray<VariantFix>
}

export const NO_FIXES: OrderFixes = { variants: [] }

export const isEmptyFix = (fixes: OrderFixes) => fixes.address === undefined && fixes.variants.length === 0

/** The variant a person chose for `lineId`, if any. */
export const variantFixOf = (fixes: OrderFixes | undefined, lineId: string): VariantFix | undefined =>
  fixes?.variants.find((v) => v.lineId === lineId)

/** "variant abc" / "legacy variant 1234": how the page and the story name a choice. */
export const podVariantInWords = (pod: PodVariantChoice) =>
  "variantId" in pod ? `POD variant ${pod.variantId}` : `POD legacy variant ${pod.legacyId}`

/** Reads what a person typed for a variant: digits are a legacy id, anything else a variant id. */
export const podVariantOfInput = (text: string): PodVariantChoice | undefined => {
  const value = text.trim()
  if (value === "" || value.length > 100) return undefined
  return /^\d+$/.test(value) ? { legacyId: value } : { variantId: value }
}

/** What the fixes' rules look at of an order. */
export interface FixedOrder {
  readonly state: OrderState
  readonly podDraftId: string | null
}

/**
 * Whether the shipping address can be fixed in podsync: only before the draft is made. The POD
 * service's draft update (PATCH /api/v3/orders/draft/line-items) changes lines only, never the
 * address, so after a draft the address is fixed at the POD service.
 */
export const addressFixRefusal = ({ podDraftId, state }: FixedOrder): string | undefined =>
  (state === "held" || state === "failed" || state === "pulled") && podDraftId === null
    ? undefined
    : state === "ready"
    ? "the order is about to be drafted: hold it first, then fix its address"
    : hasDraft(state) || podDraftId !== null
    ? `the order already has a POD draft (${
      state.replaceAll("_", " ")
    }): the POD service's draft update cannot change an address, fix it at the POD service`
    : `the order is ${state.replaceAll("_", " ")}: there is no draft to fix the address for`

/** Whether a line's POD variant can be chosen: before the draft (the plan uses it) or while the draft is not checked out (the draft update). */
export const variantFixRefusal = ({ podDraftId, state }: FixedOrder): string | undefined =>
  ((state === "held" || state === "failed" || state === "pulled") && podDraftId === null) || (state === "drafted" && podDraftId !== null)
    ? undefined
    : state === "ready"
    ? "the order is about to be drafted: hold it first, then choose the variant"
    : hasDraft(state) || podDraftId !== null
    ? `the order's draft is ${
      state.replaceAll("_", " ")
    }: a draft's lines change only until it is checked out, change it at the POD service`
    : `the order is ${state.replaceAll("_", " ")}: there is no draft to choose a variant for`
