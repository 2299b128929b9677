import type { Kysely } from "kysely"

// Frozen in time: never import src/ here. The console's overview counts the orders pulled today and
// in the last 7 days by store and state: an index on when each was first stored keeps that a short
// range read at 100k orders.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("store_orders_created").on("store_orders").columns(["created_at", "store_key", "state"]).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("store_orders_created").ifExists().execute()
}
