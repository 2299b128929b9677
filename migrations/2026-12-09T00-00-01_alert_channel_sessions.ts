import type { Kysely } from "kysely"

// Frozen in time: never import src/ here. An alert channel's lease, like an order's claim and a
// job's lease, may be tied to its holder's database session (PostgreSQL): a replica killed while it
// sent on the channel frees it once its session is seen gone and its send's timeout has passed,
// not after the whole lease. Unmarked leases (PGlite, earlier versions) keep to their expiry.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("alert_channels").addColumn("lease_session", "boolean", (c) => c.notNull().defaultTo(false)).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("alert_channels").dropColumn("lease_session").execute()
}
