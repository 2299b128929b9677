import { type Kysely, sql } from "kysely"

// Frozen in time: never import src/ here. Each report file (html, csv, json) is kept in the
// database as well as under reports.dir, so that any replica serves any report (GET /reports/<name>,
// the console) without a volume shared between replicas: the replica that wrote a report may be
// gone, or on another node, when the link to it is followed. Written in the transaction that
// records the report (reports), so the two never disagree; writing a period again replaces it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("report_files")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("format", "text", (c) => c.notNull().check(sql`format in ('html', 'csv', 'json')`))
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("written_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("report_files").ifExists().execute()
}
