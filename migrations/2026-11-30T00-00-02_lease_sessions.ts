import type { Kysely } from "kysely"

// Frozen in time: never import src/ here. On PostgreSQL a replica's claims are tied to its database
// session (a session-level advisory lock keyed by its owner id, held on a connection of its own):
// a claim so marked is free the moment its holder's session ends (kill -9, a lost host), and never
// while it lives, however long its lease ran out. Unmarked claims (PGlite, earlier versions, a
// replica whose session could not be tied) keep to their lease's expiry.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("store_orders").addColumn("lease_session", "boolean", (c) => c.notNull().defaultTo(false)).execute()
  await db.schema.alterTable("job_leases").addColumn("session", "boolean", (c) => c.notNull().defaultTo(false)).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("job_leases").dropColumn("session").execute()
  await db.schema.alterTable("store_orders").dropColumn("lease_session").execute()
}
