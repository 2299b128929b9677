import type { Money } from "./Money.js"

/**
 * A go-live rehearsal (`podsync rehearse`): what the pipeline would do with a
 * store's recent orders under today's mapping, catalog and shipping rules,
 * with the POD service's price quote for each order it would draft. Nothing
 * is written anywhere; these are the records the rehearsal hands the report.
 */

/** What would happen to an order: drafted, held for a person, or skipped (nothing for the POD service to do). */
export type RehearsalOutcome = "drafted" | "held" | "skipped"

/** Why an order would be skipped, in the pipeline's terms. */
export type SkipReason = "cancelled" | "unpaid" | "fulfilled_elsewhere" | "not_pod"

/** The pipeline state the order would reach first: how a rehearsal is compared with a real run. */
export type RehearsedState = "drafted" | "held" | "cancelled" | "not_pod"

/** One line of an order that would be drafted, with its share of the quote. */
export interface RehearsedLine {
  readonly sku: string
  readonly title: string
  readonly quantity: number
  /** The quote's line total (POD currency); null when the order was not quoted. */
  readonly podCost: Money | null
}

export interface RehearsedOrder {
  readonly storeKey: string
  readonly storeOrderId: string
  readonly referenceId: string
  /** What the seller calls it ("#1001"). */
  readonly name: string
  readonly createdAt: string
  readonly outcome: RehearsalOutcome
  /** The held code (DraftPlan's HoldCode) or the skip reason; empty for a drafted order. */
  readonly reason: string
  /** In the seller's words: why it would be held or skipped, or how it would ship. */
  readonly message: string
  readonly state: RehearsedState
  /** SKUs (or store variant ids) of lines no mapping row matches. */
  readonly toMap: ReadonlyArray<{ readonly sku: string; readonly title: string }>
  /** The shipping method the draft would take (METHOD_*), for a drafted order. */
  readonly shippingMethod: string | null
  /** An Economy order the service would not carry as Economy (uncovered ZIP): sent as Standard. */
  readonly economyAsStandard: boolean
  /** What the buyer paid (the store's order total); null when the store gave none. */
  readonly paid: Money | null
  /** The quote's order total; null when not quoted. */
  readonly podCost: Money | null
  /** Why a drafted order has no quote (the service refused it, a variant not in the catalog cache). */
  readonly quoteProblem: string | null
  readonly lines: ReadonlyArray<RehearsedLine>
  /** What the service would warn about (stock at risk, the address), as its draft answer would. */
  readonly warnings: ReadonlyArray<string>
}

/** A SKU to map, with the catalog candidates `mappings suggest` finds for it. */
export interface SkuToMap {
  readonly sku: string
  readonly title: string
  readonly orders: number
  /** `mappings suggest`'s words: the variant it would pick, or the candidates to choose from, or why none. */
  readonly suggestion: string
}

/** The API use of the run, and how long it takes under the shared budget. */
export interface RehearsalApiUse {
  readonly storePages: number
  readonly coverageCalls: number
  readonly quoteCalls: number
  /** How long the run took, and the part of it spent reading the store. */
  readonly elapsedMs: number
  readonly storeReadMs: number
  /** The least time the POD calls take under the budget (`pod.rateLimit` with its headroom), in seconds. */
  readonly budgetSeconds: number
  /** The budget the figure assumes: requests allowed per window of windowSeconds. */
  readonly budget: { readonly requests: number; readonly windowSeconds: number }
}

/** What a rehearsal found, before figures: the report is built from it. */
export interface RehearsalRun {
  readonly storeKey: string
  readonly platform: string
  readonly days: number
  /** The window read: orders created from `from` (ISO) to `to`. */
  readonly from: string
  readonly to: string
  readonly orders: ReadonlyArray<RehearsedOrder>
  readonly toMap: ReadonlyArray<SkuToMap>
  readonly api: RehearsalApiUse
  /** Orders the store sent that could not be read (kept out; named here). */
  readonly unreadable: ReadonlyArray<{ readonly storeOrderId: string; readonly problem: string }>
}
