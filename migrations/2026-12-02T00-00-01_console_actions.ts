import type { Kysely } from "kysely"

// Frozen in time: never import src/ here. Every action a person takes in the web console, and
// every action the console refused them (issue 34, "A team"): who (the user name and the role
// they had), what (a kind, and a line in the seller's words), on which order or store's mapping,
// and when. In the database so that it survives restarts and every replica writes the same list;
// the audit page reads it newest first, a page at a time, by id.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("console_actions")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("at", "timestamptz", (c) => c.notNull())
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    // retry, release, not_pod, mark_handled, mapping_add, mapping_edit, mapping_upload, mapping_merge, report_run, refused
    .addColumn("kind", "text", (c) => c.notNull())
    // done, already_done or refused
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("summary", "text", (c) => c.notNull())
    .addColumn("reference_id", "text")
    .addColumn("store_key", "text")
    .execute()
  await db.schema.createIndex("console_actions_by_reference").on("console_actions").columns(["reference_id", "id"]).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("console_actions").ifExists().execute()
}
