import { type Kysely } from "kysely"

// Frozen in time: never import src/ here. One run of a job at a time across replicas: the lease
// of whoever runs it (renewed while it runs), whether a run was asked for meanwhile (one
// follow-up run), and the cron tick it serves, so another replica takes that tick over when the
// lease expires with its holder dead.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("job_leases")
    .addColumn("job", "text", (c) => c.primaryKey())
    .addColumn("owner", "text", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("rerun", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("tick_at", "timestamptz")
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("job_leases").ifExists().execute()
}
