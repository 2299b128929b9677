import { type Kysely } from "kysely"

// Frozen in time: never import src/ here.
export async function up(db: Kysely<any>): Promise<void> {
  // The store lines (and units) a draft was made of: a store fulfillment covers exactly these.
  await db.schema.alterTable("store_orders").addColumn("planned_lines", "jsonb").execute()
  await db.schema.createIndex("shipments_push_state").on("shipments").columns(["push_state", "order_id"]).execute()
  await db.schema.createIndex("store_orders_reference_state").on("store_orders").columns(["state", "id"]).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("store_orders_reference_state").ifExists().execute()
  await db.schema.dropIndex("shipments_push_state").ifExists().execute()
  await db.schema.alterTable("store_orders").dropColumn("planned_lines").execute()
}
