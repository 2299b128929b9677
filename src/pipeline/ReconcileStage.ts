import { Chunk, Clock, Effect, Option, Stream } from "effect"
import * as ReferenceId from "../domain/ReferenceId.js"
import { canTransition, isPodCondition, podProgress, RECONCILE_STATES, STATE_OF_POD_STATUS, statusWords } from "../domain/OrderState.js"
import { PodClient } from "../pod/PodClient.js"
import { eventOfHint, type PodWebhookHint } from "../pod/PodWebhookEvents.js"
import { type OrderProgress, primaryTrackingNumber } from "../pod/schemas/Orders.js"
import { sameTrackingNumber } from "../domain/StoreTypes.js"
import { type FollowedOrder, type Move, OrdersRepo } from "../repos/OrdersRepo.js"
import { type Shipment, ShipmentsRepo, type TrackingSeen } from "../repos/ShipmentsRepo.js"
import { applyConditionEvents, checkDrafts, isConditionEvent } from "./PodConditions.js"

/** Reference ids per list call: one request follows this many orders. */
export const RECONCILE_BATCH = 100

/** Every tracking an order answer carries: the full list on a read, the primary one on a list item. */
const trackingsOf = (order: OrderProgress): ReadonlyArray<TrackingSeen> => {
  const all = (order.order_trackings ?? []).flatMap((t) =>
    t.tracking_no && t.tracking_type !== "TRACKING_TYPE_OUTDATED"
      ? [{ number: t.tracking_no, carrier: t.carrier, url: t.tracking_url }]
      : []
  )
  if (all.length > 0) return all
  const primary = primaryTrackingNumber(order)
  return primary === undefined ? [] : [{ number: primary, carrier: order.tracking_company, url: order.tracking_link }]
}

/** Whether the answer's trackings are to be recorded as shipments: once the service ships, or the order has. */
const recordsTrackings = (stored: FollowedOrder, pod: OrderProgress) =>
  STATE_OF_POD_STATUS[String(pod.order_status ?? "")] === "shipped" || stored.state === "shipped" || stored.state === "fulfilled"

type PodOutcome = "unknown_status" | "more_trackings" | "unchanged" | "awaiting_tracking" | "moved"

/**
 * What the service's answer about one stored order asks for (pure), given how
 * many of its trackings were new: the outcome, and the move when there is one.
 * Statuses only move forward (a late or reordered answer never undoes
 * progress).
 */
export const decidePodOrder = (
  stored: FollowedOrder,
  pod: OrderProgress,
  actor: string,
  newTrackings: number
): { readonly outcome: PodOutcome; readonly move?: Move } => {
  const status = String(pod.order_status ?? "")
  const target = STATE_OF_POD_STATUS[status]
  if (target === undefined) return { outcome: "unknown_status" }
  const change = { actor, podOrderId: pod.order_id, podStatus: status, nextAttemptAt: new Date(0) }
  const from = stored.state
  const move = (reason: string, data?: unknown): Move => ({
    id: stored.id,
    from,
    to: target,
    change: { ...change, reason, ...(data === undefined ? {} : { data }) }
  })
  if (target === "shipped" && (from === "shipped" || from === "fulfilled")) {
    if (newTrackings > 0 && from === "fulfilled") {
      return { outcome: "more_trackings", move: move(`${newTrackings} more package(s) shipped`, { newTrackings }) }
    }
    return { outcome: newTrackings > 0 ? "more_trackings" : "unchanged" }
  }
  if (target === from) return { outcome: "unchanged" }
  // Held by podsync for a condition the service confirmed (PodConditions.ts): an answer that has not moved
  // past it (awaiting payment or fulfilment, or on hold) does not show it cleared; production, shipping or
  // cancelling does, and the order moves on as usual.
  if (from === "pod_on_hold" && isPodCondition(stored.heldReason) && (target === "checked_out" || target === "pod_on_hold")) {
    return { outcome: "unchanged" }
  }
  const forward = podProgress(target) > podProgress(from) ||
    target === "pod_cancelled" || target === "pod_on_hold" || from === "pod_on_hold" || from === "cancel_pending"
  if (!forward || !canTransition(from, target)) return { outcome: "unchanged" }
  // Shipped without a tracking number yet: wait for it rather than fulfil without one.
  if (target === "shipped" && trackingsOf(pod).length === 0) return { outcome: "awaiting_tracking" }
  const reason = target === "shipped"
    ? `shipped by the POD service (${trackingsOf(pod).length} package(s))`
    : target === "pod_cancelled"
    ? "cancelled at the POD service"
    : target === "pod_on_hold"
    ? "on hold at the POD service: check the order there"
    : `POD order ${pod.order_id} is ${statusWords(status)}`
  return { outcome: "moved", move: move(reason) }
}

const warnUnknownStatus = (pod: OrderProgress) =>
  pod.order_status
    ? Effect.logWarning("unknown POD order status; the order is left as it is").pipe(
      Effect.annotateLogs({ status: String(pod.order_status) })
    )
    : Effect.void

/**
 * Brings one stored order in line with what the service says about it.
 * Statuses only move forward; trackings accumulate as shipments, each pushed
 * once later.
 */
export const applyPodOrder = (stored: FollowedOrder, pod: OrderProgress, actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const shipments = yield* ShipmentsRepo
    let newTrackings = 0
    if (recordsTrackings(stored, pod)) {
      for (const tracking of trackingsOf(pod)) {
        if (yield* shipments.record(stored.id, pod.order_id, tracking)) newTrackings++
      }
    }
    const { outcome, move } = decidePodOrder(stored, pod, actor, newTrackings)
    if (outcome === "unknown_status") yield* warnUnknownStatus(pod)
    if (move !== undefined) yield* repo.transition(move.id, move.from, move.to, move.change)
    return outcome
  })

/**
 * Applies one list answer to the stored orders it was asked for: duplicates at
 * the service are followed by their earliest, every tracking is recorded in
 * one statement, and the orders that move forward move in one more.
 */
export const applyListed = (asked: ReadonlyArray<FollowedOrder>, found: ReadonlyArray<OrderProgress>, actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const shipments = yield* ShipmentsRepo
    const first = new Map<string, OrderProgress>()
    // List items have no created_at: the draft's order_date, then the id, tell which came first.
    for (
      const pod of [...found].sort((a, b) => (a.order_date ?? "").localeCompare(b.order_date ?? "") || a.order_id.localeCompare(b.order_id))
    ) {
      if (pod.reference_id && !first.has(pod.reference_id)) first.set(pod.reference_id, pod)
    }
    const recorded = yield* shipments.recordMany(asked.flatMap((stored) => {
      const pod = first.get(stored.referenceId)
      return pod !== undefined && recordsTrackings(stored, pod)
        ? trackingsOf(pod).map((tracking) => ({ orderId: stored.id, podOrderId: pod.order_id, tracking }))
        : []
    }))
    const moves: Array<Move> = []
    for (const stored of asked) {
      const pod = first.get(stored.referenceId)
      if (pod === undefined) continue // still a draft: not checked out yet
      const { outcome, move } = decidePodOrder(stored, pod, actor, recorded.get(stored.id) ?? 0)
      if (outcome === "unknown_status") yield* warnUnknownStatus(pod)
      if (move !== undefined) moves.push(move)
    }
    // An order another path moved a moment ago does not move: the forward-only rule makes losing that race harmless.
    return { moved: (yield* repo.transitionMany(moves)).size, recorded }
  })

/**
 * How fulfilled orders are read again for a box the POD service ships later, when no webhook says
 * so (a list item shows only the primary tracking, so only a whole read can show it): every
 * `everyMs`, until `forMs` after the order was fulfilled; `forMs` 0 turns it off.
 */
export interface LaterPackageLooks {
  readonly everyMs: number
  readonly forMs: number
}

/** Whole reads of fulfilled orders per reconcile pass, at most (in the background lane). */
export const PACKAGE_LOOKS_PER_PASS = 100

/**
 * Reads the fulfilled orders due a look whole, in the background lane (new drafts and follow-ups
 * go first), and records any box found since: the order is then shipped again and its new box
 * pushed to the store. One call per followed order per `everyMs`.
 */
export const lookForLaterPackages = (actor: string, looks: LaterPackageLooks) =>
  Effect.gen(function*() {
    if (looks.forMs <= 0) return { looked: 0, found: 0 }
    const repo = yield* OrdersRepo
    const client = yield* PodClient
    const now = yield* Clock.currentTimeMillis
    yield* repo.packageLooks.startFollowing(new Date(now), looks.everyMs, looks.forMs)
    const due = yield* repo.packageLooks.due(new Date(now), PACKAGE_LOOKS_PER_PASS)
    const next: Array<{ readonly id: number; readonly at: Date | null }> = []
    let found = 0
    for (const look of due) {
      const read = yield* client.getOrder(look.podOrderId, { lane: "background" }).pipe(
        Effect.map(Option.some),
        Effect.catchTag("PodNotFoundError", () => Effect.succeedNone),
        Effect.either
      )
      // A failed read leaves the look due: the next pass tries again.
      if (read._tag === "Left") {
        yield* Effect.logWarning("could not read a fulfilled order for later packages; the next reconcile tries again", read.left)
        continue
      }
      if (Option.isSome(read.right)) {
        const stored: FollowedOrder = { id: look.id, referenceId: look.referenceId, state: "fulfilled", heldReason: null }
        const outcome = yield* applyPodOrder(stored, read.right.value, actor).pipe(
          Effect.catchTag("StaleTransitionError", () => Effect.succeed("raced" as const))
        )
        if (outcome === "more_trackings") found++
      }
      const at = now + looks.everyMs
      next.push({ id: look.id, at: at <= look.followedUntil.getTime() ? new Date(at) : null })
    }
    yield* repo.packageLooks.lookNext(next)
    return { looked: due.length, found }
  }).pipe(Effect.withSpan("pipeline.lookForLaterPackages"))

/**
 * Follows every order with a draft, RECONCILE_BATCH reference ids per list
 * call in the urgent lane: a few requests cover hundreds of orders. Then,
 * with `looks`, the fulfilled orders due a look for later boxes.
 */
export const reconcileAll = (actor: string, looks?: LaterPackageLooks) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const client = yield* PodClient
    // First the drafts of orders waiting for checkout or held for an address or stock condition: an order
    // whose condition has cleared is then followed below. A failure here leaves the orders as they are.
    const drafts = yield* checkDrafts(actor).pipe(
      Effect.catchAll((error) =>
        Effect.as(Effect.logWarning("could not list the drafts of waiting orders; the next reconcile tries again", error), undefined)
      )
    )
    let afterId = 0
    const totals = { requests: 0, followed: 0, moved: 0, conditionsHeld: drafts?.held ?? 0, conditionsCleared: drafts?.cleared ?? 0 }
    for (;;) {
      const page = yield* repo.followPage(RECONCILE_STATES, afterId, RECONCILE_BATCH)
      const last = page.at(-1)
      if (last === undefined) break
      afterId = last.id
      const found = yield* client.streamOrderProgress(
        { filter: { reference_ids: page.map((o) => o.referenceId) }, paging: { limit: 100 } },
        { lane: "urgent" }
      ).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray))
      totals.requests += Math.max(1, Math.ceil(found.length / 100))
      totals.followed += page.length
      totals.moved += (yield* applyListed(page, found, actor)).moved
    }
    const later = looks === undefined ? { looked: 0, found: 0 } : yield* lookForLaterPackages(actor, looks)
    return { ...totals, requests: totals.requests + later.looked, laterPackagesFound: later.found }
  }).pipe(Effect.withSpan("pipeline.reconcile"))

/** A POD webhook's hint (PodWebhookEvents.ts); `deferrals`: how many times it was put off already. */
export type FollowUpHint = PodWebhookHint & { readonly deferrals?: number }

const holds = (shipments: ReadonlyArray<Shipment>, number: string | undefined) =>
  number !== undefined && shipments.some((s) => sameTrackingNumber(s.trackingNo, number))

/** The key an order's whole read goes by in one batch: each order read once, however many deliveries named it. */
const readKey = (hint: FollowUpHint) => `${hint.podOrderId ?? ""}|${hint.referenceId ?? ""}`

/**
 * The hints (POD webhooks) that arrived together, each answered at the least
 * cost its delivery allows (webhooks are hints: what counts is read from the
 * API, but never twice):
 *
 * - a tracking or completed event naming a tracking number podsync already
 *   holds for the order is answered already: nothing is read; so is an
 *   address-verified event (the draft answers a held order's, and the
 *   checkout it tells of asks nothing until the order ships);
 * - status events, and tracking events of an order with no tracking yet, are
 *   answered by one list call per 100 orders (`filter.reference_ids`, which
 *   finds an order podsync has not seen checked out yet), in the urgent
 *   lane: a list item carries the primary tracking;
 * - an order is read whole (`followUp`) when the list cannot show the
 *   package: a tracking event of an order that already has a tracking (the
 *   event is about another package), a tracking event the list answer did
 *   not account for, an event we cannot tell, or an order we cannot place.
 */
export const followUpMany = (hints: ReadonlyArray<FollowUpHint>, actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const client = yield* PodClient
    const shipments = yield* ShipmentsRepo
    // Address and stock events are answered by the draft (PodConditions.ts).
    const named = hints.map((hint): FollowUpHint => {
      const event = eventOfHint(hint)
      return event === undefined ? hint : { ...hint, event }
    })
    const conditions = named.filter((h) => isConditionEvent(h.event))
    const { deferred } = conditions.length > 0 ? yield* applyConditionEvents(conditions, actor) : { deferred: [] }
    // The condition events are answered by the draft. An address-verified event also says the order was
    // checked out, which asks nothing of podsync: reconciliation's next list records it.
    const followed = named.filter((h) => !isConditionEvent(h.event))
    const known = yield* repo.followByIds({
      referenceIds: followed.flatMap((h) => (h.referenceId === undefined ? [] : [h.referenceId])),
      podOrderIds: followed.flatMap((h) => (h.podOrderId === undefined ? [] : [h.podOrderId]))
    })
    const byReference = new Map(known.map((o) => [o.referenceId, o]))
    const byPodOrder = new Map(known.flatMap((o) => (o.podOrderId === null ? [] : [[o.podOrderId, o] as const])))
    const held = yield* shipments.forOrders(known.map((o) => o.id))
    const single = new Map<string, FollowUpHint>()
    const listed = new Map<number, (typeof known)[number]>()
    /** Tracking events the list answer is to account for, else the order is read whole. */
    const toAccount: Array<{ readonly hint: FollowUpHint; readonly orderId: number }> = []
    let answered = 0
    for (const hint of followed) {
      const stored = (hint.referenceId === undefined ? undefined : byReference.get(hint.referenceId)) ??
        (hint.podOrderId === undefined ? undefined : byPodOrder.get(hint.podOrderId))
      const unknownEvent = hint.event === undefined || hint.event === "other"
      // An order whose checkout podsync has not seen yet is listed by its reference id all the same.
      if (stored === undefined || unknownEvent) {
        single.set(readKey(hint), hint)
        continue
      }
      const trackings = held.get(stored.id) ?? []
      const tracking = hint.event === "tracking_updated"
      if ((tracking || hint.event === "order_completed") && holds(trackings, hint.trackingNumber)) {
        answered++
        continue
      }
      if (tracking && trackings.length > 0) {
        single.set(readKey(hint), hint)
        continue
      }
      if (tracking) toAccount.push({ hint, orderId: stored.id })
      listed.set(stored.id, stored)
    }
    // An order read whole needs no list answer too.
    const readWhole = new Set([...single.values()].flatMap((h) => [h.podOrderId, h.referenceId]).filter((k) => k !== undefined))
    const toList = [...listed.values()].filter((o) =>
      !(o.podOrderId !== null && readWhole.has(o.podOrderId)) && !readWhole.has(o.referenceId)
    )
    const recorded = new Map<number, number>()
    for (let i = 0; i < toList.length; i += RECONCILE_BATCH) {
      const batch = toList.slice(i, i + RECONCILE_BATCH)
      const found = yield* client.streamOrderProgress(
        { filter: { reference_ids: batch.map((o) => o.referenceId) }, paging: { limit: 100 } },
        { lane: "urgent" }
      ).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray))
      for (const [id, count] of (yield* applyListed(batch, found, actor)).recorded) recorded.set(id, count)
    }
    const listedIds = new Set(toList.map((o) => o.id))
    const accounting = toAccount.filter(({ orderId }) => listedIds.has(orderId))
    const heldAfter = accounting.length > 0 ? yield* shipments.forOrders(accounting.map((a) => a.orderId)) : new Map()
    for (const { hint, orderId } of accounting) {
      const shown = hint.trackingNumber === undefined
        ? (recorded.get(orderId) ?? 0) > 0
        : holds(heldAfter.get(orderId) ?? [], hint.trackingNumber)
      if (!shown) single.set(readKey(hint), hint)
    }
    yield* Effect.forEach(single.values(), (hint) => followUp(hint, actor), { discard: true })
    /** Hints about orders whose draft is under way: to be followed up again in a moment. */
    return { listed: toList.length, readWhole: single.size, answered, deferred }
  }).pipe(Effect.withSpan("pipeline.followUpMany"))

/**
 * A hint (a POD webhook) that one order changed: read it whole (all its
 * trackings) in the urgent lane and apply it. The hint itself is not trusted.
 */
export const followUp = (hint: FollowUpHint, actor: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const client = yield* PodClient
    let stored = (hint.referenceId !== undefined ? yield* repo.byReference(hint.referenceId) : undefined) ??
      (hint.podOrderId !== undefined ? yield* repo.byPodId(hint.podOrderId) : undefined)
    // A reference id of podsync's form (`<store key>:<store order id>`) that we never made, about no POD order
    // or draft we know: not ours, and nothing to read. Another form may be the seller's own id for one of ours
    // (the published address example names the order by `vendor_id` only): then the order is read, as before.
    if (
      stored === undefined && hint.referenceId !== undefined &&
      (Option.isSome(ReferenceId.parse(hint.referenceId)) || hint.podOrderId === undefined)
    ) {
      yield* Effect.logInfo("POD webhook about an order podsync does not know; recorded, nothing to do").pipe(
        Effect.annotateLogs({ referenceId: hint.referenceId, podOrderId: hint.podOrderId ?? "" })
      )
      return "not_ours" as const
    }
    // An event about a draft not yet checked out names the draft: its order, if any, is found by reference.
    let podOrderId = stored?.podOrderId ??
      (hint.podOrderId !== undefined && hint.podOrderId !== stored?.podDraftId ? hint.podOrderId : undefined)
    const referenceId = hint.referenceId ?? stored?.referenceId
    if (podOrderId === undefined && referenceId !== undefined) {
      const orders = yield* client.findOrdersByReferenceId(referenceId, { lane: "urgent" })
      podOrderId = orders[0]?.order_id
    }
    if (podOrderId === undefined) return "not_found" as const
    const found = yield* client.getOrder(podOrderId, { lane: "urgent" }).pipe(
      Effect.map(Option.some),
      Effect.catchTag("PodNotFoundError", () => Effect.succeed(Option.none()))
    )
    if (Option.isNone(found)) return "not_found" as const
    const pod = found.value
    if (stored === undefined && pod.reference_id) stored = yield* repo.byReference(pod.reference_id)
    if (stored === undefined) return "not_ours" as const
    // Reconciliation may have moved it a moment ago: the forward-only rule makes losing that race harmless.
    return yield* applyPodOrder(stored, pod, actor).pipe(Effect.catchTag("StaleTransitionError", () => Effect.succeed("raced" as const)))
  }).pipe(Effect.withSpan("pipeline.followUp"))
