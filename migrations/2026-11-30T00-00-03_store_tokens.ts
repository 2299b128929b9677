import { type Kysely, sql } from "kysely"

// Frozen in time: never import src/ here. A store's current API token, shared by every replica
// (src/repos/SqlStoreTokens.ts): Shopify's client-credentials access token with its expiry, and
// Etsy's access token with the newest refresh token (Etsy issues a new one at every refresh, so a
// restart must present the newest, not the configured one). `seed` fingerprints the configured
// credential the row descends from (a hash, never the secret): when the configuration changes,
// the row is renewed from it. One replica renews at a time: it claims the row (`renewing_until_ms`,
// on the version it saw) and the others wait for its answer. Times are epoch milliseconds.
// The tokens are never logged; they are secrets at rest like the configuration's.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("store_tokens")
    .addColumn("store_key", "text", (c) => c.primaryKey())
    .addColumn("seed", "text", (c) => c.notNull())
    .addColumn("access_token", "text")
    .addColumn("issued_at_ms", "bigint")
    // Null: the store gave no lifetime (the token is renewed only when refused).
    .addColumn("expires_at_ms", "bigint")
    .addColumn("refresh_token", "text")
    // Bumped at every renewal: a claim is taken only on the version its taker saw.
    .addColumn("version", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("renewing_until_ms", "bigint")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("store_tokens").ifExists().execute()
}
