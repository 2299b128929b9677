import type { Kysely } from "kysely"

// Frozen in time: never import src/ here. A fulfilled order is read again now and then for a while,
// in case the POD service ships another box of it later (reconciliation, when no webhook said so):
// when the next look is due, and until when the order is followed. The partial index keeps finding
// the due ones a short read however many orders are stored.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("store_orders").addColumn("packages_look_at", "timestamptz").execute()
  await db.schema.alterTable("store_orders").addColumn("packages_followed_until", "timestamptz").execute()
  await db.schema.createIndex("store_orders_package_looks").on("store_orders").column("packages_look_at")
    .where("packages_look_at", "is not", null).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("store_orders_package_looks").ifExists().execute()
  await db.schema.alterTable("store_orders").dropColumn("packages_followed_until").execute()
  await db.schema.alterTable("store_orders").dropColumn("packages_look_at").execute()
}
