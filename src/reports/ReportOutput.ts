/**
 * The reconciliation report as the builder returns it. Amounts are `Money`
 * (exact); `JSON.stringify` writes them as `{ currency, amount }` with the
 * exact decimal. Times are ISO-8601 UTC.
 */
import type { Money } from "../domain/Money.js"
import type { ReportSettings } from "./ReportInput.js"

export interface DurationFigures {
  /** Orders measured. */
  readonly count: number
  /** Nearest-rank percentiles, in seconds; null when nothing was measured. */
  readonly p50Seconds: number | null
  readonly p95Seconds: number | null
}

/** What happened in the period: orders entering each step (each order counted once per step). */
export interface FlowFigures {
  /** Orders the store API lists as created in the period; null when the store could not be read. */
  readonly storeOrdersCreated: number | null
  readonly pulled: number
  readonly held: number
  readonly drafted: number
  readonly checkedOut: number
  readonly inProduction: number
  readonly shipped: number
  readonly fulfilled: number
  /** Cancelled in the store (before or after the draft) or at the POD service. */
  readonly cancelled: number
  readonly timings: {
    readonly pullToDraft: DurationFigures
    readonly draftToShipped: DurationFigures
    readonly shippedToFulfilled: DurationFigures
  }
}

export interface AttentionItem {
  readonly storeKey: string
  readonly referenceId: string
  /** What the seller calls the order ("#1001"). */
  readonly name: string
  readonly state: string
  /** When the order entered its current state. */
  readonly since: string
  readonly ageHours: number
  readonly detail: string
  /** For an order podsync holds in `pod_on_hold`: the condition (address_unverified, variant_out_of_stock). */
  readonly reason?: string
}

export interface HeldGroup {
  readonly storeKey: string
  readonly reason: string
  readonly count: number
  readonly oldestAgeHours: number
  readonly referenceIds: ReadonlyArray<string>
  /** Oldest first. */
  readonly orders: ReadonlyArray<AttentionItem>
}

export interface NeedsAPerson {
  readonly held: ReadonlyArray<HeldGroup>
  readonly failed: ReadonlyArray<AttentionItem>
  readonly cancelPending: ReadonlyArray<AttentionItem>
  readonly podOnHold: ReadonlyArray<AttentionItem>
  readonly notCheckedOut: ReadonlyArray<AttentionItem>
}

export const FINDING_KINDS = [
  "missing_draft",
  "orphan_at_pod",
  "duplicate_at_pod",
  "shipped_not_fulfilled",
  "cancelled_but_active_at_pod",
  "status_mismatch"
] as const
export type FindingKind = (typeof FINDING_KINDS)[number]

export type EvidenceValue = string | number | boolean | null | ReadonlyArray<EvidenceValue> | { readonly [key: string]: EvidenceValue }

/** One disagreement between podsync and the APIs, with what shows it and what to do. */
export interface Finding {
  readonly kind: FindingKind
  readonly storeKey: string | null
  readonly referenceId: string | null
  readonly summary: string
  readonly evidence: { readonly [key: string]: EvidenceValue }
  readonly action: string
}

export interface MarginFigures {
  readonly revenue: Money
  readonly podCost: Money
  readonly margin: Money
  /** margin ÷ revenue in percent, one decimal ("41.7"); null when the revenue is zero. */
  readonly marginPercent: string | null
}

export interface SkuMargin extends MarginFigures {
  readonly sku: string
  readonly title: string
  readonly units: number
}

export interface StoreMoney extends MarginFigures {
  readonly storeKey: string
  readonly currency: string
  readonly orders: number
  readonly bySku: ReadonlyArray<SkuMargin>
}

export interface CurrencyMoney extends MarginFigures {
  readonly currency: string
  readonly orders: number
}

export interface MoneySection {
  /** Per store and currency (amounts in different currencies never add up). */
  readonly stores: ReadonlyArray<StoreMoney>
  readonly overall: ReadonlyArray<CurrencyMoney>
  /** Orders of the period left out of the margins, and why. */
  readonly excluded: ReadonlyArray<{ readonly storeKey: string; readonly referenceId: string; readonly reason: string }>
}

export interface StoreSection {
  readonly storeKey: string
  readonly flow: FlowFigures
  readonly money: ReadonlyArray<StoreMoney>
  readonly needsAPerson: number
  readonly findings: number
}

export interface ReconciliationReport {
  readonly version: 1
  readonly generatedAt: string
  readonly period: { readonly from: string; readonly to: string; readonly timezone: string; readonly label: string }
  /** The store keys covered; `store` is set when the report was asked for one store. */
  readonly stores: ReadonlyArray<string>
  readonly store: string | null
  readonly settings: ReportSettings
  /** How to read the figures (scopes, allocation rules). */
  readonly notes: ReadonlyArray<string>
  readonly sources: {
    readonly podDrafts: number
    readonly podOrders: number
    readonly podError: string | null
    readonly stores: ReadonlyArray<{ readonly storeKey: string; readonly orders: number; readonly error: string | null }>
  }
  readonly overall: {
    readonly flow: FlowFigures
    readonly money: ReadonlyArray<CurrencyMoney>
    readonly needsAPerson: number
    readonly findings: number
  }
  readonly perStore: ReadonlyArray<StoreSection>
  readonly needsAPerson: NeedsAPerson
  /** Drafts of the period the POD service warned about or shipped by another method: for the seller's information. */
  readonly podWarnings: ReadonlyArray<AttentionItem>
  readonly drift: {
    /** False when an API could not be read: findings that depend on it are missing. */
    readonly complete: boolean
    readonly findings: ReadonlyArray<Finding>
  }
  readonly money: MoneySection
}

/** The formats a report is written in. */
export type ReportFormat = "html" | "csv" | "json"

/** A report file as written under reports.dir. */
export interface WrittenFile {
  readonly format: ReportFormat
  /** The file name under reports.dir (as GET /reports/<name> serves it). */
  readonly name: string
  readonly path: string
}
