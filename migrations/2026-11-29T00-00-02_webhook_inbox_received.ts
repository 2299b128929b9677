import type { Kysely } from "kysely"

// Frozen in time: never import src/ here. The webhook inbox is pruned in small batches, oldest
// first, while deliveries keep arriving: an index on when each was received makes every batch a
// short range read instead of a scan of the whole inbox.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("webhook_inbox_received").on("webhook_inbox").columns(["received_at"]).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("webhook_inbox_received").ifExists().execute()
}
