import { isDeepStrictEqual } from "node:util"
import type { NormalizedOrder, NormalizedOrderEncoded } from "../domain/NormalizedOrder.js"
import { hasDraft, type OrderState } from "../domain/OrderState.js"

/**
 * Pure decisions about a newer version of an order the store sent: whether it matters to the
 * pipeline at all, and what a change after the POD draft asks for. Used by the pull (as it
 * stores versions) and by the draft stage (for a change that came in while drafting).
 */
/** What the change checks read of an order; the decoded and the stored (encoded) forms both have it. */
interface Comparable {
  readonly cancelled: boolean
  readonly shipTo: unknown
  readonly lines: ReadonlyArray<
    {
      readonly lineId: string
      readonly variantId?: string | undefined
      readonly sku?: string | undefined
      readonly currentQuantity: number
    }
  >
}

// The buyer's units (currentQuantity), not what is left to ship: our own fulfillment push changes
// fulfillableQuantity, and that must not read as an edit in the store.
export const lineSignature = (order: Comparable) =>
  order.lines.map((l) => `${l.lineId}:${l.variantId ?? ""}:${l.sku ?? ""}:${l.currentQuantity}`).sort().join("|")

/** Whatever order its keys come in (a stored address comes back from jsonb with its keys reordered). */
export const sameAddress = (a: Comparable, b: Comparable) => isDeepStrictEqual(asJson(a.shipTo), asJson(b.shipTo))

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

/** What a store change after the draft asks for; `none` when the order has no draft or nothing that counts changed. */
export type ChangeAfterDraft = "cancel_pending" | "address_changed" | "lines_changed" | "none"

/**
 * The API cannot cancel or edit an order after checkout, so: cancelled → cancel_pending for a
 * person; the address changed → flagged for a person; the lines changed → the draft's lines are
 * patched while it is still a draft, else flagged.
 */
export const decideChangeAfterDraft = (state: OrderState, current: NormalizedOrder, previous: NormalizedOrder): ChangeAfterDraft => {
  if (!hasDraft(state)) return "none"
  if (current.cancelled && !previous.cancelled && state !== "cancel_pending" && state !== "pod_cancelled") return "cancel_pending"
  if (!sameAddress(current, previous)) return "address_changed"
  if (lineSignature(current) !== lineSignature(previous)) return "lines_changed"
  return "none"
}
