/**
 * Every migration by name, applied in name order. The migrator takes them from here, not from a
 * folder read at run time, so that `podsync` runs from one bundled file (dist/podsync.js). A new
 * migration is a new file here and a new line below; test/db/migrations.test.ts fails when a file
 * is missing from the list.
 */
import type { Migration } from "kysely"
import * as initial from "./2026-11-21T00-00-01_initial.js"
import * as rateBudget from "./2026-11-21T00-00-02_rate_budget.js"
import * as pipeline from "./2026-11-21T00-00-03_pipeline.js"
import * as reports from "./2026-11-21T00-00-04_reports.js"
import * as jobLeases from "./2026-11-25T00-00-01_job_leases.js"
import * as storeBudgets from "./2026-11-25T00-00-02_store_budgets.js"
import * as alerts from "./2026-11-26T00-00-01_alerts.js"
import * as consoleAttention from "./2026-11-27T00-00-01_console_attention.js"
import * as ordersCreated from "./2026-11-28T00-00-01_orders_created.js"
import * as packageLooks from "./2026-11-29T00-00-01_package_looks.js"
import * as webhookInboxReceived from "./2026-11-29T00-00-02_webhook_inbox_received.js"
import * as podLookedUp from "./2026-11-30T00-00-01_pod_looked_up.js"
import * as leaseSessions from "./2026-11-30T00-00-02_lease_sessions.js"
import * as storeTokens from "./2026-11-30T00-00-03_store_tokens.js"
import * as orderSearch from "./2026-12-01T00-00-01_order_search.js"
import * as consoleActions from "./2026-12-02T00-00-01_console_actions.js"
import * as orderFixes from "./2026-12-03T00-00-01_order_fixes.js"
import * as reportFiles from "./2026-12-05T00-00-01_report_files.js"
import * as dryRun from "./2026-12-08T00-00-01_dry_run.js"
import * as alertChannelSessions from "./2026-12-09T00-00-01_alert_channel_sessions.js"

export const migrations: Readonly<Record<string, Migration>> = {
  "2026-11-21T00-00-01_initial": initial,
  "2026-11-21T00-00-02_rate_budget": rateBudget,
  "2026-11-21T00-00-03_pipeline": pipeline,
  "2026-11-21T00-00-04_reports": reports,
  "2026-11-25T00-00-01_job_leases": jobLeases,
  "2026-11-25T00-00-02_store_budgets": storeBudgets,
  "2026-11-26T00-00-01_alerts": alerts,
  "2026-11-27T00-00-01_console_attention": consoleAttention,
  "2026-11-28T00-00-01_orders_created": ordersCreated,
  "2026-11-29T00-00-01_package_looks": packageLooks,
  "2026-11-29T00-00-02_webhook_inbox_received": webhookInboxReceived,
  "2026-11-30T00-00-01_pod_looked_up": podLookedUp,
  "2026-11-30T00-00-02_lease_sessions": leaseSessions,
  "2026-11-30T00-00-03_store_tokens": storeTokens,
  "2026-12-01T00-00-01_order_search": orderSearch,
  "2026-12-02T00-00-01_console_actions": consoleActions,
  "2026-12-03T00-00-01_order_fixes": orderFixes,
  "2026-12-05T00-00-01_report_files": reportFiles,
  "2026-12-08T00-00-01_dry_run": dryRun,
  "2026-12-09T00-00-01_alert_channel_sessions": alertChannelSessions
}
