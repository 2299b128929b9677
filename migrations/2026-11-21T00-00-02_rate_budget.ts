import { type Kysely, sql } from "kysely"

// Frozen in time: never import src/ here. The shared POD rate budget (src/budget/SqlSlotLedger.ts).
// Times are epoch milliseconds on the database's clock (bigint), so replicas never compare
// clocks with each other.
export async function up(db: Kysely<any>): Promise<void> {
  // One row per credential: the pause after a 429 (guarantee 2).
  await db.schema
    .createTable("rate_budget_credentials")
    .addColumn("credential", "text", (c) => c.primaryKey())
    .addColumn("paused_until_ms", "bigint")
    .addColumn("pauses", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  // The send log: one row per request sent. A slot counts while holds_until_ms >= now:
  // in flight, until the holder's last sign of life + request timeout + window; answered,
  // until answered_at_ms + window.
  await db.schema
    .createTable("rate_budget_slots")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("credential", "text", (c) => c.notNull())
    .addColumn("replica", "text", (c) => c.notNull())
    .addColumn("sent_at_ms", "bigint", (c) => c.notNull())
    .addColumn("answered_at_ms", "bigint")
    .addColumn("holds_until_ms", "bigint", (c) => c.notNull())
    .addColumn("lane", "text")
    .addColumn("store_key", "text")
    .addColumn("operation", "text")
    .addColumn("status", "integer")
    .execute()
  await db.schema
    .createIndex("rate_budget_slots_holding")
    .on("rate_budget_slots")
    .columns(["credential", "holds_until_ms"])
    .execute()

  // Each replica's most urgent waiting lane, so that no replica serves a lower lane while
  // another one waits in a higher lane.
  await db.schema
    .createTable("rate_budget_waiters")
    .addColumn("credential", "text", (c) => c.notNull())
    .addColumn("replica", "text", (c) => c.notNull())
    .addColumn("top_lane_rank", "integer", (c) => c.notNull())
    .addColumn("seen_at_ms", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("rate_budget_waiters_pk", ["credential", "replica"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("rate_budget_waiters").ifExists().execute()
  await db.schema.dropTable("rate_budget_slots").ifExists().execute()
  await db.schema.dropTable("rate_budget_credentials").ifExists().execute()
}
