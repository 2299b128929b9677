import type { Kysely } from "kysely"

// Frozen in time: never import src/ here. Before the first draft of an order this database has no
// record of, podsync looks its reference id up at the POD service (another database may have drafted
// it: a trial on a laptop, a lost volume, an old backup, a move). When it last looked is kept here: a
// ready order is drafted only after a recent look (or after an attempt of its own).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("store_orders").addColumn("pod_looked_up_at", "timestamptz").execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("store_orders").dropColumn("pod_looked_up_at").execute()
}
