import { type Kysely, sql } from "kysely"

// Frozen in time: never import src/ here. Tables the pipeline stands on.
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`

  await db.schema
    .createTable("store_orders")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("store_key", "text", (c) => c.notNull())
    .addColumn("store_order_id", "text", (c) => c.notNull())
    .addColumn("reference_id", "varchar(255)", (c) => c.notNull().unique())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("held_reason", "text")
    .addColumn("held_details", "jsonb")
    .addColumn("store_updated_at", "timestamptz")
    .addColumn("raw", "jsonb", (c) => c.notNull())
    .addColumn("normalized", "jsonb", (c) => c.notNull())
    .addColumn("pod_draft_id", "text")
    .addColumn("pod_order_id", "text")
    .addColumn("pod_status", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("lease_owner", "text")
    .addColumn("lease_expires_at", "timestamptz")
    .addColumn("next_attempt_at", "timestamptz")
    .addColumn("last_error", "jsonb")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint("store_orders_store_key_order_id", ["store_key", "store_order_id"])
    .execute()
  await db.schema.createIndex("store_orders_due").on("store_orders").columns(["state", "next_attempt_at"]).execute()
  await db.schema.createIndex("store_orders_pod_order").on("store_orders").column("pod_order_id").execute()

  await db.schema
    .createTable("order_events")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("order_id", "bigint", (c) => c.notNull().references("store_orders.id").onDelete("cascade"))
    .addColumn("at", "timestamptz", (c) => c.notNull())
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("from_state", "text")
    .addColumn("to_state", "text", (c) => c.notNull())
    .addColumn("reason", "text")
    .addColumn("data", "jsonb")
    .execute()
  await db.schema.createIndex("order_events_order").on("order_events").columns(["order_id", "id"]).execute()

  await db.schema
    .createTable("store_cursors")
    .addColumn("store_key", "text", (c) => c.primaryKey())
    .addColumn("cursor", "jsonb", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute()

  await db.schema
    .createTable("variant_mappings")
    .addColumn("store_key", "text", (c) => c.notNull())
    .addColumn("row_no", "integer", (c) => c.notNull())
    .addColumn("store_variant_id", "text")
    .addColumn("store_sku", "text")
    .addColumn("pod_variant_id", "text")
    .addColumn("pod_legacy_id", "text")
    .addColumn("print_front", "text")
    .addColumn("print_back", "text")
    .addColumn("print_pocket", "text")
    .addColumn("print_left_sleeve", "text")
    .addColumn("print_right_sleeve", "text")
    .addColumn("print_whole", "text")
    .addColumn("barcode_url", "text")
    .addColumn("ignore", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("source_file", "text", (c) => c.notNull())
    .addColumn("loaded_at", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("variant_mappings_pk", ["store_key", "row_no"])
    .execute()
  await db.schema.createIndex("variant_mappings_variant").on("variant_mappings").columns(["store_key", "store_variant_id"]).execute()
  await db.schema.createIndex("variant_mappings_sku").on("variant_mappings").columns(["store_key", "store_sku"]).execute()

  await db.schema
    .createTable("catalog_variants")
    .addColumn("variant_id", "text", (c) => c.primaryKey())
    .addColumn("legacy_variant_id", "bigint")
    .addColumn("product_id", "text")
    .addColumn("product_name", "text")
    .addColumn("name", "text")
    .addColumn("color", "text")
    .addColumn("size", "text")
    .addColumn("hex_color_code", "text")
    .addColumn("stock_label", "text")
    .addColumn("price", "jsonb")
    .addColumn("raw", "jsonb", (c) => c.notNull())
    .addColumn("refreshed_at", "timestamptz", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("catalog_variants_legacy").on("catalog_variants").column("legacy_variant_id").execute()

  await db.schema
    .createTable("shipments")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("order_id", "bigint", (c) => c.notNull().references("store_orders.id").onDelete("cascade"))
    .addColumn("tracking_no", "text", (c) => c.notNull())
    .addColumn("carrier", "text")
    .addColumn("tracking_url", "text")
    .addColumn("pod_order_id", "text")
    .addColumn("push_state", "text", (c) => c.notNull())
    .addColumn("store_fulfillment_id", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_error", "jsonb")
    .addColumn("pushed_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint("shipments_order_tracking", ["order_id", "tracking_no"])
    .execute()

  await db.schema
    .createTable("webhook_inbox")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("delivery_id", "text", (c) => c.notNull())
    .addColumn("topic", "text")
    .addColumn("received_at", "timestamptz", (c) => c.notNull())
    .addColumn("payload", "jsonb", (c) => c.notNull())
    .addColumn("processed_at", "timestamptz")
    .addUniqueConstraint("webhook_inbox_delivery", ["source", "delivery_id"])
    .execute()

  await db.schema
    .createTable("job_runs")
    .addColumn("job", "text", (c) => c.notNull())
    .addColumn("tick_at", "timestamptz", (c) => c.notNull())
    .addColumn("owner", "text", (c) => c.notNull())
    .addColumn("started_at", "timestamptz", (c) => c.notNull())
    .addColumn("finished_at", "timestamptz")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("error", "text")
    .addPrimaryKeyConstraint("job_runs_pk", ["job", "tick_at"])
    .execute()

  await db.schema
    .createTable("reports")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("period_from", "timestamptz", (c) => c.notNull())
    .addColumn("period_to", "timestamptz", (c) => c.notNull())
    .addColumn("store_key", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("files", "jsonb", (c) => c.notNull())
    .addColumn("summary", "jsonb", (c) => c.notNull())
    .addUniqueConstraint("reports_period", ["period_from", "period_to", "store_key"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (
    const table of [
      "reports",
      "job_runs",
      "webhook_inbox",
      "shipments",
      "catalog_variants",
      "variant_mappings",
      "store_cursors",
      "order_events",
      "store_orders"
    ]
  ) {
    await db.schema.dropTable(table).ifExists().execute()
  }
}
