import { Effect } from "effect"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { ShipmentsRepo } from "../repos/ShipmentsRepo.js"

export interface OrderStory {
  readonly referenceId: string
  readonly name: string
  readonly state: string
  readonly heldReason: string | null
  /** What holds it and what to do, in the seller's words (held orders, and orders podsync holds in pod_on_hold). */
  readonly heldMessage?: string | null | undefined
  readonly podDraftId: string | null
  readonly podOrderId: string | null
  readonly events: ReadonlyArray<
    {
      readonly at: string
      readonly actor: string
      readonly from: string | null
      readonly to: string
      readonly reason: string | null
      /** What a dry run would have sent at this point instead (the request, as it would go). */
      readonly wouldSend?: unknown
    }
  >
  readonly shipments: ReadonlyArray<{ readonly trackingNo: string; readonly carrier: string | null; readonly pushState: string }>
}

const heldMessageOf = (details: unknown): string | null => {
  const message = typeof details === "object" && details !== null ? (details as { readonly message?: unknown }).message : undefined
  return typeof message === "string" && message !== "" ? message : null
}

/** The request a dry run recorded in an event (OrdersRepo.recordDryRun keeps it as `{ wouldSend }`). */
const wouldSendOf = (data: unknown): unknown =>
  typeof data === "object" && data !== null && "wouldSend" in data ? data.wouldSend : undefined

/** "POST /api/v3/orders/draft {…body…}", or the record as JSON (a tracking push). */
const wouldSendText = (request: unknown): string => {
  if (typeof request === "object" && request !== null && "method" in request && "path" in request && "body" in request) {
    return `${String(request.method)} ${String(request.path)} ${JSON.stringify(request.body)}`
  }
  return JSON.stringify(request)
}

/** What `explain` says of an order it cannot find (the CLI and the daemon's /explain alike). */
export const noOrderMessage = (reference: string) =>
  `no order ${reference} (give its reference <store key>:<store order id>, e.g. acme-shopify:5550001, or the store's order name, e.g. #1006)`

/** What `explain` says when what the seller gave names orders in several stores. */
export const ambiguousMessage = (said: string, references: ReadonlyArray<string>) =>
  `${said} is more than one order: ${references.join(", ")}. Give the reference, or add --store KEY`

export type Lookup =
  | { readonly _tag: "Found"; readonly story: OrderStory }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "Ambiguous"; readonly references: ReadonlyArray<string> }

/**
 * The story of the order a seller means: its reference (`acme-shopify:5550001`), or what the store
 * shows them (the order name `#1006`, with or without the #, or the order id), in `storeKey` when given.
 */
export const lookUpOrder = (said: string, storeKey?: string) =>
  Effect.gen(function*() {
    const exact = storeKey === undefined ? yield* explainOrder(said) : undefined
    if (exact !== undefined) return { _tag: "Found", story: exact } satisfies Lookup
    const orders = yield* OrdersRepo
    const named = yield* orders.referencesNamed(said, storeKey)
    const [only, ...others] = named
    if (only === undefined) return { _tag: "NotFound" } satisfies Lookup
    if (others.length > 0) return { _tag: "Ambiguous", references: named.map((n) => n.referenceId) } satisfies Lookup
    const story = yield* explainOrder(only.referenceId)
    return story === undefined ? ({ _tag: "NotFound" } satisfies Lookup) : ({ _tag: "Found", story } satisfies Lookup)
  })

/** An order's whole story from order_events, for `podsync explain`. */
export const explainOrder = (referenceId: string) =>
  Effect.gen(function*() {
    const orders = yield* OrdersRepo
    const shipments = yield* ShipmentsRepo
    const stored = yield* orders.byReference(referenceId)
    if (stored === undefined) return undefined
    const events = yield* orders.story(stored.id)
    const rows = yield* shipments.forOrder(stored.id)
    return {
      referenceId,
      name: stored.order.name,
      state: stored.state,
      heldReason: stored.heldReason,
      heldMessage: heldMessageOf(stored.heldDetails),
      podDraftId: stored.podDraftId,
      podOrderId: stored.podOrderId,
      events: events.map((e) => {
        const wouldSend = wouldSendOf(e.data)
        return {
          at: e.at.toISOString(),
          actor: e.actor,
          from: e.from,
          to: e.to,
          reason: e.reason,
          ...(wouldSend === undefined ? {} : { wouldSend })
        }
      }),
      shipments: rows.map((r) => ({ trackingNo: r.trackingNo, carrier: r.carrier, pushState: r.pushState }))
    } satisfies OrderStory
  })

export const renderStory = (story: OrderStory): string => {
  const head = `${story.referenceId} (${story.name}): ${story.state}${story.heldReason ? ` (${story.heldReason})` : ""}` +
    (story.podDraftId ? `, POD draft ${story.podDraftId}` : "") + (story.podOrderId ? `, POD order ${story.podOrderId}` : "")
  const events = story.events.flatMap((e) => [
    `  ${e.at.replace("T", " ").slice(0, 19)}  ${e.actor.padEnd(10).slice(0, 10)}  ${(e.from ?? "-").padEnd(14)} -> ${e.to.padEnd(14)} ${
      e.reason ?? ""
    }`,
    ...(e.wouldSend === undefined ? [] : [`      would send: ${wouldSendText(e.wouldSend)}`])
  ])
  const shipments = story.shipments.map((s) => `  tracking ${s.trackingNo}${s.carrier ? ` (${s.carrier})` : ""}: ${s.pushState}`)
  const why = story.heldMessage ? [`  ${story.heldMessage}`] : []
  return [head, ...why, "", ...events, ...(shipments.length > 0 ? ["", "Shipments:", ...shipments] : [])].join("\n")
}
