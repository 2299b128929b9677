import { type Kysely, sql } from "kysely"

// Frozen in time: never import src/ here. The console's needs-a-person queue lists the orders a
// person must look at, oldest first, among every order ever stored: a partial index on the
// states it reads keeps that a short index walk at 100k orders.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex("store_orders_attention")
    .on("store_orders")
    .columns(["updated_at", "id"])
    .where(sql.ref("state"), "in", ["held", "failed", "cancel_pending", "pod_on_hold", "drafted", "in_doubt"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("store_orders_attention").ifExists().execute()
}
