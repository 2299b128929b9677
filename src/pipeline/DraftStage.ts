import { Array as Arr, Clock, Effect } from "effect"
import { isDryRun } from "../config/DryRun.js"
import type { OrderState } from "../domain/OrderState.js"
import { draftedAnnotation } from "../domain/StoreTypes.js"
import { planDraft } from "../mapping/DraftPlan.js"
import { decideEconomyShipping, draftedShipping, ECONOMY_HOLD_LOOK_MS, economyZipOfDraft } from "../mapping/EconomyShipping.js"
import { PodClient } from "../pod/PodClient.js"
import type { DraftSummary } from "../pod/schemas/Drafts.js"
import { backoffMs, decideDraftFailure, earliest, isLiveDraft, withWarnings } from "./DraftDecision.js"
import { type Move, OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { annotateAll, StoreConnectors } from "../stores/StoreConnector.js"
import { wouldCreateDraft, wouldDraftReason } from "./DryRunRecords.js"
import { type CoverageBook, lookUpCoverage } from "./EconomyCoverage.js"
import { whileLeased } from "./Lease.js"
import { matchOrder } from "./Planning.js"
import { reactToChangeAfterDraft } from "./OrderChanges.js"
import { PlanningInputs } from "./PlanningInputs.js"

const later = (ms: number) => Effect.map(Clock.currentTimeMillis, (now) => new Date(now + ms))
/** An order whose draft was just made (or found): its move to drafted, still to be written. */
export interface Drafted {
  readonly stored: StoredOrder
  readonly move: Move
  readonly draftId: string
}

/**
 * Writes drafted orders' moves (one statement for the batch), reacts to a
 * store change that came in while a draft was being made, and marks the store
 * orders, one `annotateAll` per store (a connector that can batches them).
 * Until its move is written an order stays claimed with its attempt counted,
 * so a crash in between only means "look the draft up before posting again".
 * The mark is for the seller and repeatable: a failure is logged, never
 * retried or held against the order.
 */
export const settleDrafted = (drafted: ReadonlyArray<Drafted>, owner: string) =>
  Effect.gen(function*() {
    if (drafted.length === 0) return
    const repo = yield* OrdersRepo
    const connectors = yield* StoreConnectors
    const moved = yield* repo.transitionMany(drafted.map((d) => d.move))
    // A dry run writes nothing to a store: the mark (for the seller, never relied on) is left out.
    const dryRun = yield* isDryRun
    // Not moved: no longer where it was claimed (changed meanwhile); looked at again at once, by reference id.
    yield* repo.releaseMany(
      drafted.filter((d) => !moved.has(d.stored.id)).map((d) => ({ id: d.stored.id, nextAttemptAt: new Date(0) })),
      owner
    )
    const settled = drafted.flatMap((d) => {
      const written = moved.get(d.stored.id)
      return written === undefined ? [] : [{ ...d, written }]
    })
    for (const d of settled) {
      // The store may have changed the order while its draft was being made (a cancel, an edit):
      // the pull stored that version but could not react, the order had no draft yet. React now.
      if (d.written.storeUpdatedAt?.getTime() !== d.stored.storeUpdatedAt?.getTime()) {
        yield* reactToChangeAfterDraft(d.stored.id, d.stored.order)
      }
    }
    yield* Effect.forEach(
      Object.entries(Arr.groupBy(settled, (d) => d.stored.storeKey)),
      ([storeKey, items]) => {
        const connector = connectors.get(storeKey)
        if (connector === undefined || dryRun) return Effect.void
        return Effect.flatMap(
          annotateAll(connector, items.map((d) => ({ storeOrderId: d.stored.storeOrderId, annotation: draftedAnnotation(d.draftId) }))),
          (results) =>
            // One result per item, in the items' order.
            Effect.forEach(Arr.zip(items, results), ([d, result]) =>
              result._tag === "Right"
                ? Effect.void
                : Effect.logWarning("could not annotate the store order").pipe(
                  // The store's words say what to fix (Shopify names the scope a refused annotation needs: write_orders).
                  Effect.annotateLogs({
                    store: storeKey,
                    order: d.stored.storeOrderId,
                    error: `${result.left._tag}: ${result.left.message}`
                  })
                ), { discard: true })
        )
      },
      { discard: true }
    )
  })

/**
 * Creates the POD draft of one claimed order, exactly once. The protocol
 * (ARCHITECTURE.md "Idempotency"): when an earlier attempt may have reached
 * the service (the order is in_doubt, or an attempt was recorded), look the
 * draft up by reference id first; record the attempt before sending it; an
 * ambiguous failure leaves the order in_doubt, resolved by look-up before any
 * new POST; a 400 holds it with the service's field-level details. The order
 * must have been claimed with `countsAttempt` (the claim is the write-ahead
 * record of the attempt), and carries the attempts from before that claim.
 * The move to drafted is written at once (`settleDrafted`), or handed to
 * `onDrafted`: the draft stage gathers a batch's and settles them together.
 * An Economy order's ZIP coverage decides first (`decideEconomyShipping`):
 * from `coverage` (the batch's, checked in one call), else asked here.
 */
export const draftOrder = (
  stored: StoredOrder,
  owner: string,
  onDrafted?: (drafted: Drafted) => Effect.Effect<void>,
  coverage?: CoverageBook
) =>
  whileLeased(
    stored.id,
    owner,
    Effect.gen(function*() {
      const repo = yield* OrdersRepo
      const client = yield* PodClient
      const inputs = yield* PlanningInputs
      const call = { lane: "normal" as const, storeKey: stored.storeKey }
      let state: OrderState = stored.state

      const drafted = (
        draft: DraftSummary,
        from: OrderState,
        reason: string,
        duplicates: ReadonlyArray<string>,
        lines: StoredOrder["plannedLines"],
        shipping?: Readonly<Record<string, string>>
      ) => {
        const item: Drafted = {
          stored,
          draftId: draft.order_id,
          move: {
            id: stored.id,
            from,
            to: "drafted",
            change: {
              actor: owner,
              reason,
              podDraftId: draft.order_id,
              podStatus: draft.status ?? "unknown",
              plannedLines: lines,
              nextAttemptAt: null,
              release: owner,
              ...(draft.origin_order_id ? { podOrderId: draft.origin_order_id } : {}),
              data: {
                ...(duplicates.length > 0 ? { duplicateDrafts: duplicates } : { draftId: draft.order_id }),
                ...(draft.warnings !== undefined && draft.warnings.length > 0 ? { warnings: draft.warnings } : {}),
                ...(shipping === undefined ? {} : { shippingSubstitution: shipping })
              }
            }
          }
        }
        return onDrafted !== undefined ? onDrafted(item) : settleDrafted([item], owner)
      }

      if (state === "in_doubt" || stored.attempts > 0) {
        const found = yield* client.findDraftsByReferenceId(stored.referenceId, call).pipe(Effect.either)
        if (found._tag === "Left") {
          yield* repo.release(stored.id, owner, yield* later(backoffMs(stored.attempts)))
          return "lookup_failed" as const
        }
        // A deleted or archived draft is not this order's: a new one is made.
        const live = found.right.filter(isLiveDraft)
        if (Arr.isNonEmptyReadonlyArray(live)) {
          const keep = earliest(live)
          const others = live.filter((d) => d.order_id !== keep.order_id).map((d) => d.order_id)
          const foundSettings = inputs.settingsFor(stored.storeKey)
          if (foundSettings === undefined) {
            // Claims are not limited to configured stores: this is a store removed from the configuration.
            return yield* Effect.dieMessage(
              `store ${stored.storeKey} is not configured: cannot plan the lines of draft ${keep.order_id} found for order ${stored.id}`
            )
          }
          const planned = planDraft(stored.order, yield* inputs.tableFor(stored.storeKey), undefined, foundSettings)
          yield* drafted(
            keep,
            state,
            others.length > 0
              ? `found the draft an earlier attempt created (and ${others.length} duplicate(s): ${others.join(", ")})`
              : "found the draft an earlier attempt created",
            others,
            planned._tag === "Ready" ? planned.lines : []
          )
          return "found" as const
        }
        if (state === "in_doubt") {
          yield* repo.transition(stored.id, "in_doubt", "ready", {
            actor: owner,
            reason: "looked up by reference id: no draft exists, so it is safe to create it"
          })
          state = "ready"
        }
      }

      const settings = inputs.settingsFor(stored.storeKey)
      if (settings === undefined) return yield* Effect.as(repo.release(stored.id, owner, null), "no_store" as const)
      // The draft carries what a person fixed in the console (OrderFix.ts); the store's copy is unchanged.
      const fixes = yield* repo.fixes.forOrder(stored.id)
      const plan = planDraft(stored.order, yield* inputs.tableFor(stored.storeKey), yield* inputs.catalog, settings, fixes)
      if (plan._tag !== "Ready") {
        // Something changed since the order was matched: the match stage states why.
        yield* matchOrder({ ...stored, state }, owner)
        return "replanned" as const
      }

      const economyZip = economyZipOfDraft(plan.draft)
      const zipCoverage = economyZip === undefined
        ? undefined
        : coverage?.get(economyZip) ?? (yield* lookUpCoverage([economyZip], stored.storeKey)).get(economyZip)
      const now = yield* Clock.currentTimeMillis
      const economy = decideEconomyShipping(plan.draft, zipCoverage, settings.shipping.economyUncovered ?? "standard", now)
      switch (economy._tag) {
        case "Wait":
          yield* Effect.logWarning(`not drafted yet: ${economy.why}`)
          yield* repo.release(stored.id, owner, yield* later(backoffMs(stored.attempts)))
          return "coverage_unknown" as const
        case "Hold":
          // Nothing was sent: the attempt this claim counted is given back, so no look-up precedes the next one.
          yield* repo.transition(stored.id, state, "held", {
            actor: owner,
            reason: economy.details.message,
            held: { code: "economy_uncovered", details: economy.details },
            attempts: stored.attempts,
            nextAttemptAt: new Date(now + ECONOMY_HOLD_LOOK_MS),
            release: owner
          })
          return "held" as const
        default:
          break
      }
      const draft = economy._tag === "AsStandard" ? economy.draft : plan.draft

      // A dry run records the request it would send, once, and gives the attempt back: nothing was sent.
      // A body the client would refuse to send is held as the client's refusal would hold it.
      const dryRun = yield* isDryRun
      const would = dryRun ? yield* wouldCreateDraft(draft).pipe(Effect.either) : undefined
      if (would?._tag === "Right") {
        yield* repo.recordDryRun(stored.id, owner, {
          reason: wouldDraftReason(would.right),
          request: would.right,
          attempts: stored.attempts
        })
        return "dry_run" as const
      }
      // The attempt was recorded when the order was claimed (write-ahead): a crash from here on means
      // "look the draft up before posting again".
      const created = would === undefined ? yield* client.createDraftSummary(draft, call).pipe(Effect.either) : would
      if (created._tag === "Right") {
        const shipping = draftedShipping(economy, created.right.shipping_substitution)
        yield* drafted(created.right, state, withWarnings(shipping.reason, created.right.warnings), [], plan.lines, shipping.substitution)
        return "created" as const
      }
      const failure = decideDraftFailure(created.left, stored.attempts)
      switch (failure._tag) {
        case "Held":
          yield* repo.transition(stored.id, state, "held", {
            actor: owner,
            reason: failure.message,
            held: { code: "rejected_by_pod", details: { message: failure.message, error: failure.error } },
            lastError: failure.error,
            nextAttemptAt: null,
            release: owner
          })
          return "held" as const
        case "InDoubt":
          yield* repo.transition(stored.id, state, "in_doubt", {
            actor: owner,
            reason: failure.reason,
            lastError: failure.error,
            nextAttemptAt: yield* later(failure.lookUpInMs),
            release: owner
          })
          return "in_doubt" as const
        case "RetryLater":
          if (failure.credentialsRefused) {
            yield* Effect.logError("the POD service refuses podsync's credentials: check pod.clientKey and pod.clientSecret")
          }
          yield* repo.release(stored.id, owner, yield* later(failure.inMs))
          return "retry_later" as const
      }
    })
  ).pipe(
    Effect.annotateLogs({ store: stored.storeKey, order: stored.storeOrderId }),
    Effect.withSpan("pipeline.draft")
  )
