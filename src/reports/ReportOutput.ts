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
  /** Nearest-rank percentiles, in seconds to the millisecond (0.35); null when nothing was measured. */
  readonly p50Seconds: number | null
  readonly p95Seconds: number | null
}

/**
 * What happened in the period: orders entering each step (each order counted
 * once per step). An order seen beyond a step of the POD ladder (drafted →
 * checked out → in production → shipped → fulfilled) passed that step too,
 * even when no poll saw it there.
 */
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
  "package_not_shown",
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

/** One order of the money scope: what a spreadsheet row of it holds. */
export interface OrderMoney {
  readonly storeKey: string
  readonly referenceId: string
  /** What the seller calls the order ("#1001"). */
  readonly name: string
  /** The active POD orders of the reference (a checked-out duplicate is a real cost too). */
  readonly podOrderIds: ReadonlyArray<string>
  /** The store's order total; null when the store gave none. */
  readonly revenue: Money | null
  /** The POD orders' totals added up; null when one is missing or they are in different currencies. */
  readonly podCost: Money | null
  /** revenue − POD cost, when both are known and in one currency. */
  readonly margin: Money | null
  readonly marginPercent: string | null
  /** Why the order is left out of the margins in its own currency; null when it is in them. */
  readonly leftOut: string | null
  /** The figures in the base currency of `reports.exchangeRates`; null without a table, a total or a rate. */
  readonly inBase: MarginFigures | null
  /** Currencies of the order the exchange-rate table has no rate for. */
  readonly noRateFor: ReadonlyArray<string>
}

/** Every order's margin brought to the base currency of `reports.exchangeRates`. */
export interface BaseCurrencyMoney extends MarginFigures {
  readonly currency: string
  /** The rates the table gave (one unit of the currency in the base currency). */
  readonly rates: { readonly [currency: string]: string }
  /** Orders the margin covers. */
  readonly orders: number
  readonly perStore: ReadonlyArray<MarginFigures & { readonly storeKey: string; readonly orders: number }>
  /** Orders left out because a currency of theirs has no rate, by currency. */
  readonly withoutRate: ReadonlyArray<{ readonly currency: string; readonly orders: number }>
}

export interface MoneySection {
  /** Per store and currency (amounts in different currencies never add up). */
  readonly stores: ReadonlyArray<StoreMoney>
  readonly overall: ReadonlyArray<CurrencyMoney>
  /** Orders of the period left out of the margins, and why. */
  readonly excluded: ReadonlyArray<{ readonly storeKey: string; readonly referenceId: string; readonly reason: string }>
  /** Every order of the money scope (pulled in the period, with a POD order), in reference order. */
  readonly orders: ReadonlyArray<OrderMoney>
  /** The margin in one currency, when `reports.exchangeRates` is set. */
  readonly inBase: BaseCurrencyMoney | null
  /** How many orders of the scope the margin figures cover, and the sentence a seller reads ("margin covers 41 of 43 orders; 2 in JPY have no rate"). */
  readonly coverage: { readonly orders: number; readonly ofOrders: number; readonly text: string }
}

/** One package of an order that shipped in the period. */
export interface ShippedItem {
  readonly storeKey: string
  readonly referenceId: string
  /** The store's order name ("#1001"). */
  readonly name: string
  readonly podOrderId: string | null
  /** When podsync saw the order shipped (or beyond). */
  readonly shippedAt: string
  readonly carrier: string | null
  readonly trackingNo: string | null
  /** The carrier's tracking page (http or https only). */
  readonly trackingUrl: string | null
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
  /** What the page is called: the stores' names and the period in words ("Acme Shirts and Beta Mugs — Tuesday 24 November 2026"). */
  readonly title: string
  readonly generatedAt: string
  readonly period: {
    readonly from: string
    readonly to: string
    readonly timezone: string
    readonly label: string
    /** The period as a person says it, in its time zone ("Tuesday 24 November 2026"). */
    readonly words: string
  }
  /** The store keys covered; `store` is set when the report was asked for one store. */
  readonly stores: ReadonlyArray<string>
  /** What the seller calls each store covered, by key (the key itself when unnamed). */
  readonly storeNames: { readonly [storeKey: string]: string }
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
  /** What shipped in the period, a row per package, oldest first. */
  readonly shipped: ReadonlyArray<ShippedItem>
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
