import type { Kysely } from "kysely"

// Frozen in time: never import src/ here. A daemon in dry run records, once per order, the request
// it would have sent (the draft body, a tracking push): `dry_run_at` says when, `dry_run_request`
// holds it for the console's would-be drafts. A dry-run daemon does not record it again until the
// order changes; a daemon not in dry run ignores both and sends it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("store_orders").addColumn("dry_run_at", "timestamptz").addColumn("dry_run_request", "jsonb").execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("store_orders").dropColumn("dry_run_request").dropColumn("dry_run_at").execute()
}
