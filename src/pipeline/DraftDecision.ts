import { Array as Arr } from "effect"
import type { PodError } from "../pod/PodErrors.js"
import type { DraftSummary } from "../pod/schemas/Drafts.js"

/**
 * The draft stage's decisions, pure (ARCHITECTURE.md, "Idempotency"): which of the drafts a
 * look-up by reference id found is the order's, how long to wait before trying again, and what
 * a failed create means for the order. The stage only reads, calls and writes around them.
 */

/** How long after `attempts` failed attempts the next one is due: 5 s doubling, at most 5 minutes. */
export const backoffMs = (attempts: number) => Math.min(300_000, 5_000 * 2 ** Math.min(attempts, 6))

export const describeError = (error: PodError) => {
  switch (error._tag) {
    case "PodBadRequestError":
      return error.details.length > 0 ? error.details.map((d) => `${d.field}: ${d.issue}`).join("; ") : error.message
    case "PodInvalidRequestError":
      return error.issue
    default:
      return `${error._tag}${"message" in error && typeof error.message === "string" ? `: ${error.message}` : ""}`
  }
}

/** The record of an error, for last_error and events: its tag, what it says, and whether it may have acted. */
export const errorRecord = (error: PodError) => ({ tag: error._tag, message: describeError(error), ambiguous: error.ambiguous })

/** The story line of a new draft with what the service warned about (at-risk variants, the address), in its words. */
export const withWarnings = (reason: string, warnings: ReadonlyArray<string> | undefined): string =>
  [reason, ...(warnings ?? []).map((w) => `the POD service warns: ${w}`)].join("; ")

/** Drafts carry no created_at: `order_date` (when the draft was made), then the id, tell which came first. */
export const earliest = ([first, ...rest]: Arr.NonEmptyReadonlyArray<DraftSummary>): DraftSummary =>
  rest.reduce((soFar, d) => (draftOrder(d, soFar) < 0 ? d : soFar), first)

const draftOrder = (a: DraftSummary, b: DraftSummary) =>
  (a.order_date ?? "").localeCompare(b.order_date ?? "") || a.order_id.localeCompare(b.order_id)

/** The record of a failed create, as the order's last_error and its story keep it. */
export type ErrorRecord = ReturnType<typeof errorRecord>

/** What a failed draft create means for the order. */
export type DraftFailure =
  /** The service refused the draft itself (400/422): held for a person, with the service's words. */
  | { readonly _tag: "Held"; readonly message: string; readonly error: ErrorRecord }
  /** It may have reached the service: looked up by reference id before any new attempt. */
  | { readonly _tag: "InDoubt"; readonly reason: string; readonly error: ErrorRecord; readonly lookUpInMs: number }
  /** It certainly did not act: tried again later (after Retry-After on a 429). */
  | { readonly _tag: "RetryLater"; readonly inMs: number; readonly credentialsRefused: boolean }

export const decideDraftFailure = (error: PodError, attempts: number): DraftFailure => {
  switch (error._tag) {
    case "PodBadRequestError":
    case "PodInvalidRequestError":
      return {
        _tag: "Held",
        message: `the POD service refused the draft: ${describeError(error)}. Fix the order or its mapping; it is retried when it changes`,
        error: errorRecord(error)
      }
    default:
      if (error.ambiguous) {
        return {
          _tag: "InDoubt",
          reason: `the draft request may have reached the service (${describeError(error)}): it is looked up before any new attempt`,
          error: errorRecord(error),
          lookUpInMs: 2_000
        }
      }
      return {
        _tag: "RetryLater",
        inMs: error._tag === "PodRateLimitedError" ? Math.max(1, error.retryAfterSeconds ?? 60) * 1000 : backoffMs(attempts),
        credentialsRefused: error._tag === "PodUnauthorizedError" || error._tag === "PodForbiddenError"
      }
  }
}

/** Draft statuses that no longer stand (OpenAPI `VendorOrderDraftStatus`): such a draft is not the order's, a new one is made. */
const GONE_DRAFT_STATUSES: ReadonlySet<string> = new Set(["VENDOR_ORDER_DRAFT_STATUS_DELETED", "VENDOR_ORDER_DRAFT_STATUS_ARCHIVED"])

/** Whether a draft the service lists still stands (draft, awaiting checkout, checked out, or a status added later). */
export const isLiveDraft = (draft: Pick<DraftSummary, "status">): boolean =>
  draft.status === undefined || !GONE_DRAFT_STATUSES.has(draft.status)

/** What the service holds of an order this database never drafted, as a look-up by reference id found it. */
export type LookedUp =
  /** Nothing that stands: the draft is to be made (`gone`: deleted or archived drafts found, not this order's). */
  | { readonly _tag: "Nothing"; readonly gone: ReadonlyArray<string> }
  /** A live draft, not checked out: it is this order's draft (`duplicates`: other live drafts of the reference id). */
  | { readonly _tag: "Draft"; readonly draft: DraftSummary; readonly duplicates: ReadonlyArray<string> }
  /** A POD order (checked out): followed like any order podsync created; `draftId`, the draft it came from when listed. */
  | { readonly _tag: "Order"; readonly order: OrderFound; readonly draftId: string | undefined }

/** What the decision reads of a POD order. */
export interface OrderFound {
  readonly order_id: string
  readonly order_date?: string | undefined
  readonly order_status?: string | undefined
}

/**
 * Which of what a look-up found is the order's (pure): a POD order first (the earliest, as
 * reconciliation follows duplicates), then the earliest live draft. Deleted and archived drafts
 * never count.
 */
export const decideLookedUp = (drafts: ReadonlyArray<DraftSummary>, orders: ReadonlyArray<OrderFound>): LookedUp => {
  const [firstOrder, ...laterOrders] = orders
  if (firstOrder !== undefined) {
    const order = laterOrders.reduce(
      (soFar, o) =>
        ((o.order_date ?? "").localeCompare(soFar.order_date ?? "") || o.order_id.localeCompare(soFar.order_id)) < 0 ? o : soFar,
      firstOrder
    )
    return { _tag: "Order", order, draftId: drafts.find((d) => d.origin_order_id === order.order_id)?.order_id }
  }
  const live = drafts.filter(isLiveDraft)
  if (!Arr.isNonEmptyReadonlyArray(live)) return { _tag: "Nothing", gone: drafts.map((d) => d.order_id) }
  const draft = earliest(live)
  return { _tag: "Draft", draft, duplicates: live.filter((d) => d.order_id !== draft.order_id).map((d) => d.order_id) }
}
