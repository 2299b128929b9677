/**
 * What the POD service's address and stock events mean for an order
 * (webhooks `shipping_address_unverified`, `shipping_address_verified`,
 * `product_out_of_stock`).
 *
 * A webhook is a hint; the draft read from the API is what counts (its
 * `shipping_verification_status` and its lines' `stock_label`), and only
 * where the answer does not say does the event's own word count. An order
 * whose draft cannot go on (an address the service cannot verify, a variant it
 * has run out of) needs a person: a `drafted` or `checked_out` order moves to
 * `pod_on_hold`, its held reason the condition (POD_CONDITIONS), its details
 * what happened and what to do, in the seller's words. Reconciliation keeps
 * it there until the service's answer shows the condition cleared: the draft
 * read again (on a later event, or on every reconcile for the orders so held)
 * or the order moving on into production. Then the order goes back to where it
 * stands at the service (`drafted`, `checked_out`, or still `pod_on_hold` when
 * the service itself holds it) and is followed as usual.
 *
 * Decide (pure) first, act below.
 */
import { Effect, Stream } from "effect"
import { isPodCondition, type OrderState, type PodCondition } from "../domain/OrderState.js"
import { PodClient } from "../pod/PodClient.js"
import type { PodWebhookHint } from "../pod/PodWebhookEvents.js"
import { OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"

/** A variant of the draft the service cannot produce now. */
export interface Shortfall {
  readonly variantId: string
  readonly sku?: string
  readonly name?: string
  /** The stock label the service gave it (e.g. VENDOR_STOCK_LABEL_OUT_OF_STOCK), when it gave one. */
  readonly label?: string
}

/** What holds an order at the service; none of it: nothing does. */
export interface Conditions {
  readonly addressUnverified: boolean
  readonly outOfStock: boolean
  readonly variants: ReadonlyArray<Shortfall>
}

export const NO_CONDITIONS: Conditions = { addressUnverified: false, outOfStock: false, variants: [] }

/** What a draft read says; undefined where the answer does not say (a field left out, an unknown value). */
export interface DraftFacts {
  readonly address: "verified" | "unverified" | undefined
  /** The lines the service cannot produce; undefined when no line carries a stock label. */
  readonly outOfStock: ReadonlyArray<Shortfall> | undefined
}

export const UNKNOWN_FACTS: DraftFacts = { address: undefined, outOfStock: undefined }

/** The few fields of a draft answer read here, named as the spec names them. */
export interface DraftConditionFields {
  readonly order_id?: string
  readonly shipping_verification_status?: string
  readonly is_shipping_verification_bypassed?: boolean
  readonly line_items?: ReadonlyArray<{
    readonly variant?: { readonly variant_id?: string; readonly sku?: string; readonly name?: string; readonly stock_label?: string }
  }>
}

const CANNOT_PRODUCE: ReadonlyArray<string> = ["VENDOR_STOCK_LABEL_OUT_OF_STOCK", "VENDOR_STOCK_LABEL_DISCONTINUED"]

export const draftFacts = (draft: DraftConditionFields): DraftFacts => {
  const status = draft.shipping_verification_status
  const address = draft.is_shipping_verification_bypassed === true ||
      status === "VENDOR_SHIPPING_VERIFICATION_STATUS_ADDRESS_VERIFIED" || status === "VENDOR_SHIPPING_VERIFICATION_STATUS_CONSTRAINT_VALID"
    ? "verified"
    : status === "VENDOR_SHIPPING_VERIFICATION_STATUS_ADDRESS_UNVERIFIED" ||
        status === "VENDOR_SHIPPING_VERIFICATION_STATUS_CONSTRAINT_INVALID"
    ? "unverified"
    : undefined
  const labelled = (draft.line_items ?? []).flatMap((line) => (line.variant?.stock_label === undefined ? [] : [line.variant]))
  const outOfStock = labelled.length === 0 ?
    undefined :
    labelled.filter((v) => CANNOT_PRODUCE.includes(v.stock_label ?? "")).map((v): Shortfall => ({
      variantId: v.variant_id ?? "(no id)",
      ...(v.sku === undefined ? {} : { sku: v.sku }),
      ...(v.name === undefined ? {} : { name: v.name }),
      ...(v.stock_label === undefined ? {} : { label: v.stock_label })
    }))
  return { address, outOfStock }
}

/** The conditions recorded on an order podsync holds (its held details), none otherwise. */
export const conditionsOf = (order: Pick<StoredOrder, "state" | "heldReason" | "heldDetails">): Conditions => {
  if (order.state !== "pod_on_hold" || !isPodCondition(order.heldReason)) return NO_CONDITIONS
  const recorded = (order.heldDetails as { readonly conditions?: Partial<Conditions> } | null)?.conditions
  return {
    addressUnverified: recorded?.addressUnverified ?? order.heldReason === "address_unverified",
    outOfStock: recorded?.outOfStock ?? order.heldReason === "variant_out_of_stock",
    variants: Array.isArray(recorded?.variants) ? recorded.variants : []
  }
}

type ConditionEvent = "shipping_address_unverified" | "shipping_address_verified" | "product_out_of_stock"

export const isConditionEvent = (event: PodWebhookHint["event"]): event is ConditionEvent =>
  event === "shipping_address_unverified" || event === "shipping_address_verified" || event === "product_out_of_stock"

/**
 * The conditions now, from those recorded, the events that arrived (none on a recheck) and the
 * draft read. Only the conditions an event named or already recorded are looked at, unless
 * `everything` (reconciliation's look at a draft waiting for checkout): then whatever the draft says.
 */
export const conditionsNow = (
  previous: Conditions,
  events: ReadonlyArray<PodWebhookHint>,
  facts: DraftFacts,
  everything = false
): Conditions => {
  const says = (event: ConditionEvent) => events.some((e) => e.event === event)
  const saysUnverified = says("shipping_address_unverified") ||
    events.some((e) => e.event === "shipping_address_verified" && e.addressVerified === false)
  const saysVerified = events.some((e) => e.event === "shipping_address_verified" && e.addressVerified !== false)
  let addressUnverified = previous.addressUnverified
  if (everything || saysUnverified || saysVerified || previous.addressUnverified) {
    if (facts.address !== undefined) addressUnverified = facts.address === "unverified"
    // Deliveries are not ordered: two that disagree, with no answer to settle it, change nothing.
    else if (saysUnverified !== saysVerified) addressUnverified = saysUnverified
  }
  let { outOfStock, variants } = previous
  if (everything || says("product_out_of_stock") || previous.outOfStock) {
    if (facts.outOfStock !== undefined) {
      outOfStock = facts.outOfStock.length > 0
      variants = facts.outOfStock
    } else if (says("product_out_of_stock")) {
      outOfStock = true
      const named = events.flatMap((e) => e.variantIds ?? [])
      variants = [...variants, ...named.filter((id) => !variants.some((v) => v.variantId === id)).map((variantId) => ({ variantId }))]
    }
  }
  return { addressUnverified, outOfStock, variants: outOfStock ? variants : [] }
}

const sameConditions = (a: Conditions, b: Conditions) =>
  a.addressUnverified === b.addressUnverified && a.outOfStock === b.outOfStock &&
  JSON.stringify(a.variants.map((v) => v.variantId).sort()) === JSON.stringify(b.variants.map((v) => v.variantId).sort())

const variantWords = (variants: ReadonlyArray<Shortfall>): string =>
  variants.length === 0
    ? "an item of this order"
    : variants.map((v) =>
      `${v.name ?? v.sku ?? "variant"}${v.sku !== undefined && v.name !== undefined ? ` (${v.sku})` : ""}` +
      `${v.label === "VENDOR_STOCK_LABEL_DISCONTINUED" ? ", discontinued" : ""}`
    ).join(", ")

const podIds = (order: Pick<StoredOrder, "podDraftId" | "podOrderId">) =>
  [order.podOrderId && `POD order ${order.podOrderId}`, order.podDraftId && `draft ${order.podDraftId}`].filter(Boolean).join(", ") ||
  "the POD draft"

/** What happened and what to do, in the seller's words. */
export const conditionMessage = (conditions: Conditions, order: Pick<StoredOrder, "podDraftId" | "podOrderId">): string => {
  const parts: Array<string> = []
  if (conditions.addressUnverified) {
    parts.push(
      `The POD service could not verify the shipping address (${podIds(order)}). Check it with the buyer, then correct it ` +
        "(or confirm it as it is) at the POD service: podsync goes on by itself once the service has verified it."
    )
  }
  if (conditions.outOfStock) {
    parts.push(
      `The POD service is out of ${variantWords(conditions.variants)} (${podIds(order)}). Wait for the restock, or change the ` +
        "variant of the order at the POD service (and remap it in the mapping file for new orders): podsync goes on by itself once the service shows it in stock."
    )
  }
  return parts.join(" ")
}

const codeOf = (conditions: Conditions): PodCondition => (conditions.addressUnverified ? "address_unverified" : "variant_out_of_stock")

export type ConditionDecision =
  | { readonly kind: "none" }
  | { readonly kind: "note"; readonly reason: string }
  | {
    readonly kind: "move"
    readonly to: OrderState
    readonly reason: string
    /** The held reason and details to set; null clears them. */
    readonly held: { readonly code: PodCondition; readonly details: { readonly message: string; readonly conditions: Conditions } } | null
  }

/** States in which a condition holds the order: its draft exists and production has not started. */
const HOLDABLE: ReadonlyArray<OrderState> = ["drafted", "checked_out", "pod_on_hold"]

/**
 * States in which the order's draft may exist at the service before podsync has recorded it (the
 * draft stage is making it, or an ambiguous attempt is being looked up): the service checks the
 * address of a new draft at once, so its event can come first. Such an event is looked at again
 * a moment later rather than dropped.
 */
export const DRAFT_UNDER_WAY: ReadonlyArray<OrderState> = ["ready", "in_doubt"]

/** Where an order goes when what podsync held it for has cleared: where it stands at the service. */
const clearedTo = (order: Pick<StoredOrder, "podOrderId" | "podStatus">): OrderState =>
  order.podOrderId === null ? "drafted" : order.podStatus === "VENDOR_ORDER_STATUS_ON_HOLD" ? "pod_on_hold" : "checked_out"

/** What to do with an order, given its conditions before and now (pure). `events` is empty on a recheck. */
export const decideConditions = (
  order: Pick<StoredOrder, "state" | "heldReason" | "heldDetails" | "podDraftId" | "podOrderId" | "podStatus">,
  events: ReadonlyArray<PodWebhookHint>,
  now: Conditions
): ConditionDecision => {
  const previous = conditionsOf(order)
  const any = now.addressUnverified || now.outOfStock
  const held = any ? { code: codeOf(now), details: { message: conditionMessage(now, order), conditions: now } } : null
  if (!HOLDABLE.includes(order.state)) {
    const told = events.filter((e) => e.event !== "shipping_address_verified").map((e) => e.topic ?? e.event).filter(Boolean)
    return told.length === 0 ? { kind: "none" } : {
      kind: "note",
      reason: `the POD service sent ${[...new Set(told)].join(", ")}; the order is ${
        order.state.replaceAll("_", " ")
      }, so nothing is held for it`
    }
  }
  if (sameConditions(previous, now)) {
    // An event the draft contradicts (deliveries are not ordered): said in the story, nothing held.
    const contradicted = !any && events.some((e) => e.event === "shipping_address_unverified" || e.event === "product_out_of_stock")
    return contradicted
      ? { kind: "note", reason: "the POD service sent an address or stock event, but its draft shows nothing wrong now: nothing to do" }
      : { kind: "none" }
  }
  if (held !== null) {
    return { kind: "move", to: "pod_on_hold", reason: held.details.message, held }
  }
  const cleared = [
    previous.addressUnverified ? "the POD service has verified the shipping address" : undefined,
    previous.outOfStock ? "the POD service has the variant in stock again" : undefined
  ].filter(Boolean).join(" and ")
  return { kind: "move", to: clearedTo(order), reason: `${cleared}: podsync follows the order again`, held: null }
}

// --- act ---

/** Reads the order's draft; what it says about the conditions (unknown when there is no draft to read). */
const readFacts = (order: StoredOrder, lane: "urgent" | "normal") =>
  Effect.gen(function*() {
    const client = yield* PodClient
    const draftId = order.podDraftId ?? (yield* client.findDraftsByReferenceId(order.referenceId, { lane }))[0]?.order_id
    if (draftId === undefined) return UNKNOWN_FACTS
    return yield* client.getDraft(draftId, { lane }).pipe(
      Effect.map(draftFacts),
      Effect.catchTag("PodNotFoundError", () => Effect.succeed(UNKNOWN_FACTS))
    )
  })

const apply = (order: StoredOrder, decision: ConditionDecision, actor: string, data: unknown) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    switch (decision.kind) {
      case "none":
        return "unchanged" as const
      case "note":
        yield* repo.note(order.id, actor, decision.reason, data)
        return "noted" as const
      case "move":
        yield* repo.transition(order.id, order.state, decision.to, {
          actor,
          reason: decision.reason,
          data,
          held: decision.held,
          // Due now: the stages and reconciliation take it from here.
          nextAttemptAt: new Date(0)
        })
        return decision.to === "pod_on_hold" && decision.held !== null ? ("held" as const) : ("cleared" as const)
    }
  }).pipe(Effect.catchTag("StaleTransitionError", () => Effect.succeed("raced" as const)))

/** One order's events: the draft read when the order can be held, then the decision applied. */
const settleOrder = (order: StoredOrder, events: ReadonlyArray<PodWebhookHint>, actor: string, lane: "urgent" | "normal") =>
  Effect.gen(function*() {
    const previous = conditionsOf(order)
    const facts = HOLDABLE.includes(order.state) ? yield* readFacts(order, lane) : UNKNOWN_FACTS
    const decision = decideConditions(order, events, conditionsNow(previous, events, facts))
    const data = events.length === 0 ? { recheck: true, facts } : { events: events.map((e) => e.topic ?? e.event), facts }
    return yield* apply(order, decision, actor, data)
  })

/**
 * The address and stock events that arrived together, one draft read per order they name. An
 * address-verified event is looked at only for an order held for its address (for the others it
 * is a plain status hint). Events about orders podsync does not know are logged and left; those
 * about an order whose draft is under way are answered `deferred`, for the caller to hand back later.
 */
export const applyConditionEvents = <H extends PodWebhookHint>(hints: ReadonlyArray<H>, actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const byOrder = new Map<number, { readonly order: StoredOrder; readonly events: Array<PodWebhookHint> }>()
    const deferred: Array<H> = []
    for (const hint of hints) {
      const order = (hint.referenceId === undefined ? undefined : yield* repo.byReference(hint.referenceId)) ??
        (hint.podOrderId === undefined ? undefined : yield* repo.byPodId(hint.podOrderId))
      if (order === undefined) {
        yield* Effect.logInfo("POD webhook about an order podsync does not know; recorded, nothing to do").pipe(
          Effect.annotateLogs({ topic: hint.topic ?? "", referenceId: hint.referenceId ?? "", podOrderId: hint.podOrderId ?? "" })
        )
        continue
      }
      if (hint.event === "shipping_address_verified" && !conditionsOf(order).addressUnverified) continue
      if (DRAFT_UNDER_WAY.includes(order.state)) {
        deferred.push(hint)
        continue
      }
      const entry = byOrder.get(order.id) ?? { order, events: [] }
      entry.events.push(hint)
      byOrder.set(order.id, entry)
    }
    const outcomes = yield* Effect.forEach(byOrder.values(), ({ order, events }) => settleOrder(order, events, actor, "urgent"))
    return {
      orders: byOrder.size,
      held: outcomes.filter((o) => o === "held").length,
      cleared: outcomes.filter((o) => o === "cleared").length,
      deferred: deferred as ReadonlyArray<H>
    }
  }).pipe(Effect.withSpan("pipeline.applyConditionEvents"))

/**
 * Reconciliation's look at the drafts themselves, the backstop for an event that never came (a
 * subscription made after the draft, a lost delivery, and stock, which has no back-in-stock
 * event): the drafts of the orders waiting for checkout (`drafted`) and of those podsync holds
 * for a condition are listed by reference id, 100 a request in the normal lane, and each order is
 * held or let go as its draft says.
 */
export const checkDrafts = (actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const client = yield* PodClient
    let afterId = 0
    const totals = { checked: 0, held: 0, cleared: 0 }
    for (;;) {
      const page = yield* repo.pageInStates(["drafted", "pod_on_hold"], afterId, 100)
      const last = page.at(-1)
      if (last === undefined) break
      afterId = last.id
      const orders = page.filter((o) => o.state === "drafted" || isPodCondition(o.heldReason))
      if (orders.length === 0) continue
      const drafts = yield* Stream.runCollect(client.streamDrafts(
        { filter: { reference_ids: orders.map((o) => o.referenceId) }, paging: { limit: 100 } },
        { lane: "normal" }
      )).pipe(Effect.map((chunk) => Array.from(chunk)))
      for (const order of orders) {
        const mine = drafts.filter((d) => d.reference_id === order.referenceId)
        const draft = mine.find((d) => d.order_id === order.podDraftId) ?? mine[0]
        if (draft === undefined) continue
        const facts = draftFacts(draft)
        const now = conditionsNow(conditionsOf(order), [], facts, order.state === "drafted")
        const outcome = yield* apply(order, decideConditions(order, [], now), actor, { reconciled: true, facts })
        totals.checked++
        if (outcome === "held") totals.held++
        if (outcome === "cleared") totals.cleared++
      }
    }
    return totals
  }).pipe(Effect.withSpan("pipeline.checkDrafts"))
