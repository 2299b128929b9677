import { Clock, Effect, Option } from "effect"
import type { StoredOrder } from "../../repos/OrdersRepo.js"
import type { PodAdmin } from "./SimulatorAdmin.js"

/**
 * The POD service's side of the demo: what the seller and the print shop do
 * once podsync has created a draft. Each draft is checked out with payment,
 * goes into production, and ships (the simulator makes up the tracking
 * number). The shop works from what it receives: the drafts podsync created,
 * found through podsync's records only to know their ids. A draft whose store
 * order was cancelled is never produced.
 */

export interface FactoryTiming {
  /** From checkout to production. */
  readonly productionAfterMs: number
  /** From checkout to shipment. */
  readonly shipAfterMs: number
}

export interface FactoryCounts {
  readonly checkedOut: number
  readonly inProduction: number
  readonly shipped: number
  /** Drafts of store orders cancelled meanwhile: left for the seller to cancel by hand. */
  readonly heldBack: number
}

type Step = "checked_out" | "in_production" | "shipped" | "held_back"

interface Job {
  readonly draftId: string
  readonly orderId: string
  readonly checkedOutAt: number
  step: Step
}

/** Where podsync has a draft the shop has not finished yet. */
const WITH_OPEN_DRAFT: ReadonlyArray<StoredOrder["state"]> = ["drafted", "checked_out", "in_production", "pod_on_hold"]

const MAX_FAILURES = 3

export const makePodFactory = (
  admin: PodAdmin,
  timing: FactoryTiming,
  cancelledInStore: (order: { readonly storeKey: string; readonly storeOrderId: string }) => boolean
) => {
  const jobs = new Map<string, Job>()
  const failures = new Map<string, number>()

  const stopProducing = (order: StoredOrder): boolean =>
    cancelledInStore(order) || order.order.cancelled || order.state === "cancel_pending"

  /** Retries a failed call on later turns, then gives up on that draft (it shows as not settled). */
  const attempt = <A, E, R>(draftId: string, what: Effect.Effect<A, E, R>) =>
    what.pipe(
      Effect.tap(() => Effect.sync(() => failures.delete(draftId))),
      Effect.asSome,
      Effect.catchAll((error) => {
        const count = (failures.get(draftId) ?? 0) + 1
        failures.set(draftId, count)
        return (count >= MAX_FAILURES
          ? Effect.logWarning(`the demo's POD shop gave up on draft ${draftId}`, error)
          : Effect.logDebug(`the demo's POD shop will retry draft ${draftId}`, error)).pipe(Effect.as(Option.none<A>()))
      })
    )

  const gaveUp = (draftId: string) => (failures.get(draftId) ?? 0) >= MAX_FAILURES

  /** One turn of the shop over podsync's current records. */
  const work = (orders: ReadonlyArray<StoredOrder>) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const byDraft = new Map(orders.flatMap((o) => (o.podDraftId === null ? [] : [[o.podDraftId, o] as const])))
      for (const order of orders) {
        const draftId = order.podDraftId
        if (
          draftId === null || jobs.has(draftId) || gaveUp(draftId) || !WITH_OPEN_DRAFT.includes(order.state) || stopProducing(order)
        ) continue
        const placed = yield* attempt(draftId, admin.checkoutDraft(draftId))
        if (placed._tag === "Some") jobs.set(draftId, { draftId, orderId: placed.value.order_id, checkedOutAt: now, step: "checked_out" })
      }
      for (const job of jobs.values()) {
        const order = byDraft.get(job.draftId)
        if (job.step === "shipped" || job.step === "held_back" || gaveUp(job.draftId)) continue
        if (order !== undefined && stopProducing(order)) {
          job.step = "held_back"
          continue
        }
        const age = now - job.checkedOutAt
        if (job.step === "checked_out" && age >= timing.productionAfterMs) {
          const moved = yield* attempt(job.draftId, admin.startProduction(job.orderId))
          if (moved._tag === "Some") job.step = "in_production"
        } else if (job.step === "in_production" && age >= timing.shipAfterMs) {
          const shipped = yield* attempt(job.draftId, admin.ship(job.orderId))
          if (shipped._tag === "Some") job.step = "shipped"
        }
      }
    })

  const counts = (): FactoryCounts => {
    const all = [...jobs.values()]
    const at = (step: Step) => all.filter((j) => j.step === step).length
    return { checkedOut: all.length, inProduction: at("in_production"), shipped: at("shipped"), heldBack: at("held_back") }
  }

  return { work, counts }
}

export type PodFactory = ReturnType<typeof makePodFactory>
