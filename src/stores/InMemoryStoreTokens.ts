/**
 * Store tokens in this process's memory: what a connector uses when it is given no database to
 * share them through (tests, `check` without a database). One process only; replicas share the SQL
 * rows (repos/SqlStoreTokens.ts), which take and keep claims the same way.
 */
import { Effect, Ref } from "effect"
import type { StoredToken, StoreTokenRow, StoreTokenStore } from "../domain/StoreToken.js"

export const makeInMemoryStoreTokenRow = (): StoreTokenRow => {
  const row = Ref.unsafeMake<StoredToken | undefined>(undefined)
  return {
    read: Ref.get(row),
    claim: (seenVersion, seed, nowMs, leaseMs) =>
      Ref.modify(row, (current): readonly [boolean, StoredToken | undefined] => {
        const free = current === undefined
          ? seenVersion === undefined
          : current.version === seenVersion && (current.renewingUntilMs === null || current.renewingUntilMs <= nowMs)
        if (!free) return [false, current]
        const base: StoredToken = current ??
          { seed, accessToken: null, issuedAtMs: null, expiresAtMs: null, refreshToken: null, version: 0, renewingUntilMs: null }
        return [true, { ...base, renewingUntilMs: nowMs + leaseMs }]
      }),
    save: (token) => Ref.update(row, (current) => ({ ...token, version: (current?.version ?? 0) + 1, renewingUntilMs: null })),
    release: Ref.update(row, (current) => current === undefined ? current : { ...current, renewingUntilMs: null })
  }
}

/** Every store's token in this process's memory (one row per store key, made on first use). */
export const makeInMemoryStoreTokens = (): StoreTokenStore => {
  const rows = new Map<string, StoreTokenRow>()
  return {
    open: (storeKey) => {
      const existing = rows.get(storeKey)
      if (existing !== undefined) return existing
      const made = makeInMemoryStoreTokenRow()
      rows.set(storeKey, made)
      return made
    }
  }
}

/** A row no one else shares: a connector built without a token store. */
export const privateStoreTokenRow = (): Effect.Effect<StoreTokenRow> => Effect.sync(makeInMemoryStoreTokenRow)
