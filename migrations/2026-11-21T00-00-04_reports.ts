import { type Kysely } from "kysely"

// Frozen in time: never import src/ here. The reconciliation report reads the events of a period.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("order_events_at").on("order_events").column("at").execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("order_events_at").ifExists().execute()
}
