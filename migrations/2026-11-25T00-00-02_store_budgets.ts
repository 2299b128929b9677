import { type Kysely, sql } from "kysely"

// Frozen in time: never import src/ here. The store APIs' budgets shared by every replica
// (src/repos/SqlStoreBucket.ts): one token bucket per store credential (a hash, never the
// secret). Times are epoch milliseconds on the database's clock (bigint), so replicas never
// compare clocks with each other.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("store_budgets")
    .addColumn("credential", "text", (c) => c.primaryKey())
    // Null while neither the store nor the configuration has given a shape: nothing is limited but pauses.
    .addColumn("capacity", "double precision")
    .addColumn("restore_per_second", "double precision")
    // Tokens at updated_at_ms (refilled from then on, up to the capacity); negative after a cost above it.
    .addColumn("available", "double precision", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at_ms", "bigint", (c) => c.notNull())
    // Every token ever taken: a take's ticket, so an answer can discount what was taken after its request.
    .addColumn("spent_total", "double precision", (c) => c.notNull().defaultTo(0))
    .addColumn("paused_until_ms", "bigint", (c) => c.notNull().defaultTo(0))
    // When the store last reported the shape; null: the shape is the configured one.
    .addColumn("observed_at_ms", "bigint")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("store_budgets").ifExists().execute()
}
