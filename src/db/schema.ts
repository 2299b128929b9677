import type { ColumnType, Generated, JSONColumnType } from "kysely"
import type { OrderState } from "../domain/OrderState.js"
import type { PushState } from "../domain/PushState.js"

/**
 * Table types of the first migration (migrations/2026-11-21T00-00-01_initial.ts).
 * Later migrations that add tables extend this interface. Columns that hold a
 * closed set of values (text in SQL) are typed as their union, so rows read
 * as domain types without casts and a misspelt value does not compile.
 */
type Timestamp = ColumnType<Date, Date | string, Date | string>
type CreatedAt = ColumnType<Date, Date | string | undefined, never>
type Json<T extends object | null = object> = JSONColumnType<T, T, T>

export interface StoreOrdersTable {
  id: Generated<number>
  store_key: string
  store_order_id: string
  reference_id: string
  state: OrderState
  held_reason: string | null
  held_details: Json | null
  store_updated_at: Timestamp | null
  raw: Json
  normalized: Json
  pod_draft_id: string | null
  pod_order_id: string | null
  pod_status: string | null
  attempts: ColumnType<number, number | undefined, number>
  lease_owner: string | null
  lease_expires_at: Timestamp | null
  /** The claim is tied to its holder's database session (PostgreSQL): free when that session ends, never before. */
  lease_session: Generated<boolean>
  next_attempt_at: Timestamp | null
  last_error: Json | null
  planned_lines: Json<ReadonlyArray<{ lineId: string; quantity: number }>> | null
  created_at: CreatedAt
  updated_at: Timestamp
  /** A fulfilled order's next read for a later box (reconciliation); null: not followed for that. */
  packages_look_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** Until when a fulfilled order is read for later boxes. */
  packages_followed_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** When the POD service was last asked for drafts and orders of this reference id before a first draft; null: never. */
  pod_looked_up_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** When a daemon in dry run recorded what it would have sent for this order (not recorded again until it changes); null: nothing. */
  dry_run_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** What it would have sent (DryRun.ts `WouldSend`). */
  dry_run_request: Json | null
}

export interface OrderEventsTable {
  id: Generated<number>
  order_id: number
  at: Timestamp
  actor: string
  from_state: OrderState | null
  to_state: OrderState
  reason: string | null
  data: Json | null
}

/** What a person fixed of one order in the console (issue 34): its address (line_id ''), or one line's POD variant. */
export interface OrderFixesTable {
  order_id: number
  kind: "address" | "variant"
  line_id: string
  value: Json
  fixed_by: string
  fixed_at: Timestamp
}

export interface StoreCursorsTable {
  store_key: string
  cursor: Json
  updated_at: Timestamp
}

export interface VariantMappingsTable {
  store_key: string
  row_no: number
  store_variant_id: string | null
  store_sku: string | null
  pod_variant_id: string | null
  pod_legacy_id: string | null
  print_front: string | null
  print_back: string | null
  print_pocket: string | null
  print_left_sleeve: string | null
  print_right_sleeve: string | null
  print_whole: string | null
  barcode_url: string | null
  ignore: boolean
  source_file: string
  loaded_at: Timestamp
}

export interface CatalogVariantsTable {
  variant_id: string
  legacy_variant_id: number | null
  product_id: string | null
  product_name: string | null
  name: string | null
  color: string | null
  size: string | null
  hex_color_code: string | null
  stock_label: string | null
  price: Json | null
  raw: Json
  refreshed_at: Timestamp
}

export interface ShipmentsTable {
  id: Generated<number>
  order_id: number
  tracking_no: string
  carrier: string | null
  tracking_url: string | null
  pod_order_id: string | null
  push_state: PushState
  store_fulfillment_id: string | null
  attempts: ColumnType<number, number | undefined, number>
  last_error: Json | null
  pushed_at: Timestamp | null
  created_at: CreatedAt
}

export interface WebhookInboxTable {
  id: Generated<number>
  source: string
  delivery_id: string
  topic: string | null
  received_at: Timestamp
  payload: Json
  processed_at: Timestamp | null
}

/** A scheduled job's tick (schedule/RunCoordinator.ts): taken, then finished one way or the other. */
export type JobRunStatus = "running" | "done" | "failed" | "coalesced"

export interface JobRunsTable {
  job: string
  tick_at: Timestamp
  owner: string
  started_at: Timestamp
  finished_at: Timestamp | null
  status: JobRunStatus
  error: string | null
}

/** One run of a job at a time across replicas (schedule/JobLeases.ts). */
export interface JobLeasesTable {
  job: string
  owner: string
  expires_at: Timestamp
  rerun: Generated<boolean>
  tick_at: Timestamp | null
  /** The lease is tied to its holder's database session (see store_orders.lease_session). */
  session: Generated<boolean>
}

export interface ReportsTable {
  id: Generated<number>
  period_from: Timestamp
  period_to: Timestamp
  store_key: string
  created_at: CreatedAt
  files: Json
  summary: Json
}

/** A report file, kept so that any replica serves it (migrations/2026-12-05T00-00-01_report_files.ts). */
export interface ReportFilesTable {
  name: string
  format: "html" | "csv" | "json"
  body: string
  written_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** A store credential's API budget (migrations/2026-11-25T00-00-02_store_budgets.ts, repos/SqlStoreBucket.ts). */
export interface StoreBudgetsTable {
  credential: string
  capacity: number | null
  restore_per_second: number | null
  available: ColumnType<number, number | undefined, number>
  updated_at_ms: number
  spent_total: ColumnType<number, number | undefined, number>
  paused_until_ms: ColumnType<number, number | undefined, number>
  observed_at_ms: number | null
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** A store's current API token (migrations/2026-11-30T00-00-03_store_tokens.ts, repos/SqlStoreTokens.ts). */
export interface StoreTokensTable {
  store_key: string
  seed: string
  access_token: string | null
  issued_at_ms: ColumnType<number | string | null, number | null | undefined, number | null>
  expires_at_ms: ColumnType<number | string | null, number | null | undefined, number | null>
  refresh_token: string | null
  version: ColumnType<number | string, number | undefined, number>
  renewing_until_ms: ColumnType<number | string | null, number | null | undefined, number | null>
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** What a person must hear about (migrations/2026-11-26T00-00-01_alerts.ts, repos/AlertsRepo.ts). */
export interface AlertOutboxTable {
  id: Generated<number>
  dedup_key: string
  kind: string
  store_key: string | null
  order_id: number | null
  reference_id: string | null
  reason: string | null
  resolved: ColumnType<boolean, boolean | undefined, boolean>
  data: Json | null
  created_at: Timestamp
  routed_at: Timestamp | null
}

export type AlertDeliveryStatus = "pending" | "sent" | "failed"

export interface AlertDeliveriesTable {
  id: Generated<number>
  alert_id: number
  channel: string
  status: AlertDeliveryStatus
  attempts: ColumnType<number, number | undefined, number>
  next_attempt_at: Timestamp
  sent_at: Timestamp | null
  last_error: string | null
  message_id: string | null
}

export interface AlertConditionsTable {
  key: string
  kind: string
  active: boolean
  since: Timestamp
  data: Json | null
}

export interface AlertChannelsTable {
  channel: string
  lease_owner: string | null
  lease_expires_at: Timestamp | null
  /** The lease is tied to its holder's database session (SessionTie): see AlertsRepo.takeChannel. */
  lease_session: Generated<boolean>
  last_sent_at: Timestamp | null
}

/** What people did in the console (migrations/2026-12-02T00-00-01_console_actions.ts, repos/ConsoleActionsRepo.ts). */
export interface ConsoleActionsTable {
  id: Generated<number | string>
  at: Timestamp
  actor: string
  role: string
  kind: string
  outcome: string
  summary: string
  reference_id: string | null
  store_key: string | null
}

export interface Database {
  store_orders: StoreOrdersTable
  order_events: OrderEventsTable
  order_fixes: OrderFixesTable
  store_cursors: StoreCursorsTable
  variant_mappings: VariantMappingsTable
  catalog_variants: CatalogVariantsTable
  shipments: ShipmentsTable
  webhook_inbox: WebhookInboxTable
  job_runs: JobRunsTable
  job_leases: JobLeasesTable
  reports: ReportsTable
  report_files: ReportFilesTable
  store_budgets: StoreBudgetsTable
  store_tokens: StoreTokensTable
  alert_outbox: AlertOutboxTable
  alert_deliveries: AlertDeliveriesTable
  alert_conditions: AlertConditionsTable
  alert_channels: AlertChannelsTable
  console_actions: ConsoleActionsTable
}
