/**
 * Store tokens (domain/StoreToken.ts) in PostgreSQL or PGlite, one row per store, shared by every
 * replica and one-off command on the database.
 *
 * A claim is one conditional statement: an insert that only the first caller gets (`on conflict do
 * nothing`), or an update on the version the caller read while no claim is live. PostgreSQL
 * re-checks an update's condition on the row a concurrent update left, so of two replicas that read
 * the same stale row only one gets the claim; the other reads the row again once it is renewed.
 * Statements run on the root handle, never in a caller's transaction. Tokens are read and written
 * here only: they never reach a log or an error (a failure's cause is the driver's, which carries
 * the statement's text, never its parameters).
 */
import { Effect, Redacted } from "effect"
import { type Kysely, sql } from "kysely"
import type { Database } from "../db/schema.js"
import { type StoredToken, type StoreTokenRow, StoreTokenStoreError, type StoreTokenStore } from "../domain/StoreToken.js"

const run = <A>(operation: string, f: () => Promise<A>): Effect.Effect<A, StoreTokenStoreError> =>
  Effect.tryPromise({ try: f, catch: (cause) => new StoreTokenStoreError({ operation, cause: withoutParameters(cause) }) })

/** A driver error keeps its message only: some drivers attach the statement's parameters (the tokens). */
const withoutParameters = (cause: unknown): Error => new Error(cause instanceof Error ? cause.message : "database error")

const millis = (value: number | string | null): number | null => (value === null ? null : Number(value))

export const makeSqlStoreTokenRow = (db: Kysely<Database>, storeKey: string): StoreTokenRow => ({
  read: run("read the store's token", async (): Promise<StoredToken | undefined> => {
    const row = await db.selectFrom("store_tokens").selectAll().where("store_key", "=", storeKey).executeTakeFirst()
    if (row === undefined) return undefined
    return {
      seed: row.seed,
      accessToken: row.access_token === null ? null : Redacted.make(row.access_token),
      issuedAtMs: millis(row.issued_at_ms),
      expiresAtMs: millis(row.expires_at_ms),
      refreshToken: row.refresh_token === null ? null : Redacted.make(row.refresh_token),
      version: Number(row.version),
      renewingUntilMs: millis(row.renewing_until_ms)
    }
  }),

  claim: (seenVersion, seed, nowMs, leaseMs) =>
    run("claim the store's token renewal", async () => {
      if (seenVersion === undefined) {
        const inserted = await db.insertInto("store_tokens")
          .values({ store_key: storeKey, seed, version: 0, renewing_until_ms: nowMs + leaseMs })
          .onConflict((c) => c.column("store_key").doNothing())
          .returning("store_key")
          .executeTakeFirst()
        return inserted !== undefined
      }
      const claimed = await db.updateTable("store_tokens")
        .set({ renewing_until_ms: nowMs + leaseMs, updated_at: new Date(nowMs) })
        .where("store_key", "=", storeKey)
        .where("version", "=", seenVersion)
        .where((eb) => eb.or([eb("renewing_until_ms", "is", null), eb("renewing_until_ms", "<=", nowMs)]))
        .returning("store_key")
        .executeTakeFirst()
      return claimed !== undefined
    }),

  save: (token) =>
    run("save the store's renewed token", async () => {
      await db.updateTable("store_tokens")
        .set({
          seed: token.seed,
          access_token: Redacted.value(token.accessToken),
          issued_at_ms: token.issuedAtMs,
          expires_at_ms: token.expiresAtMs,
          refresh_token: token.refreshToken === null ? null : Redacted.value(token.refreshToken),
          version: sql<number>`version + 1`,
          renewing_until_ms: null,
          // The renewal's time, from the caller's Clock.
          updated_at: new Date(token.issuedAtMs)
        })
        .where("store_key", "=", storeKey)
        .execute()
    }),

  release: run("release the store's token renewal", async () => {
    await db.updateTable("store_tokens").set({ renewing_until_ms: null }).where("store_key", "=", storeKey).execute()
  })
})

/** Every store's token in the database; `db` is the root handle (never a caller's transaction). */
export const makeSqlStoreTokens = (db: Kysely<Database>): StoreTokenStore => ({
  open: (storeKey) => makeSqlStoreTokenRow(db, storeKey)
})
