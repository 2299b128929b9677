/**
 * What the reconciliation report is built from: plain data, gathered by
 * `ReportSources` (the database, the POD API, the store APIs) and handed to
 * the pure `buildReport`. Times are epoch milliseconds.
 */
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import type { OrderRecord } from "../domain/OrderRecord.js"
import type { OrderState } from "../domain/OrderState.js"
import type { PushState } from "../domain/PushState.js"
import type { DraftListItem as Draft } from "../pod/schemas/Drafts.js"
import type { ExchangeRateTable } from "./ExchangeRates.js"
import type { OrderListItem as Order } from "../pod/schemas/Orders.js"

/** [from, to): `label` names it in file names and titles ("2026-11-20" for one local day). */
export interface ReportPeriod {
  readonly from: number
  readonly to: number
  readonly timezone: string
  readonly label: string
}

export interface ReportSettings {
  /** A store order with no POD draft this long after it was created is a drift finding; also the grace before any API disagreement counts. */
  readonly noDraftAfterMinutes: number
  /** A draft not checked out this long after podsync made it needs a person. */
  readonly notCheckedOutAfterHours: number
  /** `reports.exchangeRates`: brings every order's amounts to one currency; null keeps each currency apart. */
  readonly exchangeRates: ExchangeRateTable | null
}

export const DEFAULT_REPORT_SETTINGS: ReportSettings = { noDraftAfterMinutes: 30, notCheckedOutAfterHours: 24, exchangeRates: null }

export interface ReportStore {
  readonly key: string
  /** What the seller calls the store (`reports.storeNames`), for the report's title; the key when unnamed. */
  readonly name?: string
  /** The store's store_id at the POD service: records with it are ours even without a readable reference id. */
  readonly podStoreId: string
  /** `stores[].eligible.financialStatuses`: a store order outside them is not expected to have a draft. */
  readonly eligibleFinancialStatuses: ReadonlyArray<string>
}

export interface OrderHistoryEvent {
  readonly at: number
  readonly from: OrderState | null
  readonly to: OrderState
  readonly reason: string | null
}

export interface OrderShipment {
  readonly trackingNo: string
  readonly carrier: string | null
  /** The carrier's tracking page, as the POD service gave it. */
  readonly trackingUrl?: string | null
  readonly podOrderId?: string | null
  readonly pushState: PushState
  readonly createdAt: number
}

/** One stored order with its whole history. */
export interface ReportOrder extends OrderRecord {
  /** Oldest first. */
  readonly events: ReadonlyArray<OrderHistoryEvent>
  readonly shipments: ReadonlyArray<OrderShipment>
}

/** What the POD service said, read in the background lane. */
export interface PodSnapshot {
  readonly drafts: ReadonlyArray<Draft>
  readonly orders: ReadonlyArray<Order>
  /** Why the service could not be read (the drift ledger then says it is incomplete). */
  readonly error: string | null
}

/** What one store's API said: its orders changed since the period began, and the ones read one by one. */
export interface StoreSnapshot {
  readonly storeKey: string
  /** The latest version of each order the store returned. */
  readonly orders: ReadonlyArray<NormalizedOrder>
  /** Store order ids the store answered it does not know. */
  readonly unknown: ReadonlyArray<string>
  readonly error: string | null
}

export interface ReportInput {
  readonly period: ReportPeriod
  readonly generatedAt: number
  /** The stores the report covers: all configured ones, or the one asked for. */
  readonly stores: ReadonlyArray<ReportStore>
  /** The store key asked for (`--store`), or null for every store. */
  readonly store: string | null
  /** Every configured store key: a POD record naming one this report does not cover belongs to that store's report. */
  readonly configuredStoreKeys: ReadonlyArray<string>
  readonly settings: ReportSettings
  readonly orders: ReadonlyArray<ReportOrder>
  readonly pod: PodSnapshot
  readonly storeSnapshots: ReadonlyArray<StoreSnapshot>
  /** Alerts that could not be delivered after every retry (the alert outbox), when it was read. */
  readonly failedAlerts?: ReadonlyArray<FailedAlert>
}

/** An alert a channel failed to deliver for good. */
export interface FailedAlert {
  readonly channel: string
  readonly kind: string
  readonly referenceId: string | null
  readonly attempts: number
  readonly lastError: string | null
}
