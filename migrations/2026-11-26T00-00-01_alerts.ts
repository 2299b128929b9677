import { type Kysely, sql } from "kysely"

// Frozen in time: never import src/ here. Alerts (src/alerts/): an outbox of what a person must
// hear about, written in the same statement as the order transition or condition change that
// causes it; each alert's deliveries, one per channel it is routed to; the conditions of the
// daemon (a refused credential, a store unreachable) raised and resolved once across replicas;
// and one row per channel, whose lease says which replica sends on it and when it last sent
// (the digest groups what follows a send).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("alert_outbox")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    // One alert per (order, state, reason) and per raise or resolution of a condition.
    .addColumn("dedup_key", "text", (c) => c.notNull().unique())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("store_key", "text")
    .addColumn("order_id", "bigint")
    .addColumn("reference_id", "text")
    .addColumn("reason", "text")
    .addColumn("resolved", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("data", "jsonb")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    // Null until the sender has made its deliveries (the rules are the configuration's, not the database's).
    .addColumn("routed_at", "timestamptz")
    .execute()
  await db.schema.createIndex("alert_outbox_unrouted").on("alert_outbox").column("id").where(sql.ref("routed_at"), "is", null)
    .execute()

  await db.schema
    .createTable("alert_deliveries")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("alert_id", "bigint", (c) => c.notNull().references("alert_outbox.id").onDelete("cascade"))
    .addColumn("channel", "text", (c) => c.notNull())
    // pending → sent, or failed once its attempts are spent.
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "timestamptz", (c) => c.notNull())
    .addColumn("sent_at", "timestamptz")
    .addColumn("last_error", "text")
    // The message it went out in (a digest carries several deliveries).
    .addColumn("message_id", "text")
    .addUniqueConstraint("alert_deliveries_alert_channel", ["alert_id", "channel"])
    .execute()
  await db.schema.createIndex("alert_deliveries_due").on("alert_deliveries").columns(["channel", "status", "next_attempt_at"])
    .execute()

  await db.schema
    .createTable("alert_conditions")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("active", "boolean", (c) => c.notNull())
    .addColumn("since", "timestamptz", (c) => c.notNull())
    .addColumn("data", "jsonb")
    .execute()

  await db.schema
    .createTable("alert_channels")
    .addColumn("channel", "text", (c) => c.primaryKey())
    .addColumn("lease_owner", "text")
    .addColumn("lease_expires_at", "timestamptz")
    .addColumn("last_sent_at", "timestamptz")
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("alert_channels").ifExists().execute()
  await db.schema.dropTable("alert_conditions").ifExists().execute()
  await db.schema.dropTable("alert_deliveries").ifExists().execute()
  await db.schema.dropTable("alert_outbox").ifExists().execute()
}
