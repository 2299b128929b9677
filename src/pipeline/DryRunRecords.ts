import { Effect, Schema } from "effect"
import { describeParseError } from "../pod/PodAnswers.js"
import { PodInvalidRequestError } from "../pod/PodErrors.js"
import { CreateDraftBody, type CreateDraftInput, PatchDraftLineItemsInput } from "../pod/schemas/DraftRequests.js"

/**
 * What a daemon in dry run records instead of sending (config/DryRun.ts): the request as it would
 * go on the wire, kept on the order (`dry_run_request`) and in its story. Pure builders; the
 * stages decide when.
 */
export type WouldSend =
  /** The draft create: POST /api/v3/orders/draft with this body (`data.reference_id` is the order's). */
  | { readonly kind: "draft"; readonly method: "POST"; readonly path: string; readonly body: unknown }
  /** A store edit before checkout: PATCH /api/v3/orders/draft/line-items with this body. */
  | { readonly kind: "draft_update"; readonly method: "PATCH"; readonly path: string; readonly body: unknown }
  /** The trackings the store would be told of. */
  | {
    readonly kind: "tracking"
    readonly storeKey: string
    readonly packages: ReadonlyArray<{ readonly carrier: string | null; readonly trackingNumber: string }>
  }

const DRAFT_CREATE = { operation: "drafts.create", method: "POST", path: "/api/v3/orders/draft" } as const

/**
 * The draft create's body exactly as the POD client would encode it. A draft the client would refuse
 * to send fails here the same way (PodInvalidRequestError), so a dry run holds the same orders.
 */
export const wouldCreateDraft = (draft: CreateDraftInput): Effect.Effect<WouldSend, PodInvalidRequestError> =>
  Schema.encode(CreateDraftBody, { errors: "all" })({ data: draft }).pipe(
    Effect.mapError((error) => new PodInvalidRequestError({ ...DRAFT_CREATE, ambiguous: false, issue: describeParseError(error) })),
    Effect.map((body): WouldSend => ({ kind: "draft", method: "POST", path: DRAFT_CREATE.path, body }))
  )

/** The draft line update's body (already checked by the planner; an encoding problem keeps the input as it is). */
export const wouldUpdateDraftLines = (patch: typeof PatchDraftLineItemsInput.Type): WouldSend => ({
  kind: "draft_update",
  method: "PATCH",
  path: "/api/v3/orders/draft/line-items",
  body: Schema.encodeEither(PatchDraftLineItemsInput)(patch).pipe((e) => (e._tag === "Right" ? e.right : patch))
})

/** A dry run's line in the order's story for a would-be draft: what it would have sent, in a seller's words. */
export const wouldDraftReason = (request: WouldSend, shippingNote?: string): string => {
  const body = request.kind === "draft"
    ? (request.body as { data?: { line_items?: ReadonlyArray<unknown>; shipping_method?: string } }).data
    : undefined
  const lines = body?.line_items?.length ?? 0
  return [
    `dry run: would create the POD draft (${lines} line${lines === 1 ? "" : "s"}${
      body?.shipping_method === undefined ? "" : `, ${body.shipping_method}`
    }); nothing was sent, it is drafted when dry run is off`,
    ...(shippingNote === undefined ? [] : [shippingNote])
  ].join("; ")
}

/** The trackings a fulfill would push to the store (its open shipments). */
export const wouldPushTrackings = (
  storeKey: string,
  shipments: ReadonlyArray<{ readonly carrier: string | null; readonly trackingNo: string }>
): WouldSend => ({
  kind: "tracking",
  storeKey,
  packages: shipments.map((s) => ({ carrier: s.carrier, trackingNumber: s.trackingNo }))
})
