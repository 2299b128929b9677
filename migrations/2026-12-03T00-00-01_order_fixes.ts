import type { Kysely } from "kysely"

// Frozen in time: never import src/ here. Fixing in place (issue 34): what a person corrected of
// one order in the console, kept by podsync (the store's copy is never changed) and applied where
// the POD draft is planned. One row per fix: the order's shipping address (line_id ''), or the POD
// variant chosen for one line. A later fix of the same thing replaces the row; each fix is also
// told in the order's story (order_events).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("order_fixes")
    .addColumn("order_id", "bigint", (c) => c.notNull().references("store_orders.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("line_id", "text", (c) => c.notNull())
    .addColumn("value", "jsonb", (c) => c.notNull())
    .addColumn("fixed_by", "text", (c) => c.notNull())
    .addColumn("fixed_at", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("order_fixes_pkey", ["order_id", "kind", "line_id"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("order_fixes").ifExists().execute()
}
