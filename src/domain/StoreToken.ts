/**
 * A store's current API token, shared by every replica and command on one database: Shopify's
 * client-credentials access token (it expires), Etsy's access token and its newest refresh token
 * (Etsy issues a new one at every refresh and refuses the old one).
 *
 * One replica renews at a time. It claims the row on the version it read (a conditional write, so
 * of two replicas that read the same stale row only one gets the claim), asks the store, and saves
 * the answer, which bumps the version and drops the claim. The others wait and read the row again.
 * A claim lapses after its lease, so a replica killed mid-renewal holds nobody up for long.
 *
 * `seed` fingerprints the configured credential the row descends from (a hash): when the seller
 * changes the configuration (a new client secret, a new Etsy refresh token after authorising the
 * app again), the configured credential wins over the stored one.
 *
 * The decisions (is this token still good, when to renew) are pure functions here, on times from
 * the caller's `Clock`.
 */
import { createHash } from "node:crypto"
import { Data, type Effect, Redacted } from "effect"

/** A token as the row holds it. */
export interface StoredToken {
  readonly seed: string
  readonly accessToken: Redacted.Redacted<string> | null
  readonly issuedAtMs: number | null
  /** Null: the store gave no lifetime, so the token is renewed only when the store refuses it. */
  readonly expiresAtMs: number | null
  readonly refreshToken: Redacted.Redacted<string> | null
  readonly version: number
  readonly renewingUntilMs: number | null
}

/** What a renewal saves. */
export interface RenewedToken {
  readonly seed: string
  readonly accessToken: Redacted.Redacted<string>
  readonly issuedAtMs: number
  readonly expiresAtMs: number | null
  readonly refreshToken: Redacted.Redacted<string> | null
}

/** The shared storage failed (the database). */
export class StoreTokenStoreError extends Data.TaggedError("StoreTokenStoreError")<{
  readonly operation: string
  readonly cause: unknown
}> {
  override get message(): string {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `the shared store token could not ${this.operation} (${reason}); check the database`
  }
}

/** One store's row. */
export interface StoreTokenRow {
  readonly read: Effect.Effect<StoredToken | undefined, StoreTokenStoreError>
  /**
   * Claims the renewal for `leaseMs` when the row is still at `seenVersion` (undefined: there is no
   * row yet) and nobody's claim is live at `nowMs`. True: this caller renews.
   */
  readonly claim: (seenVersion: number | undefined, seed: string, nowMs: number, leaseMs: number) => Effect.Effect<
    boolean,
    StoreTokenStoreError
  >
  /** Saves a renewal: a new version, the claim dropped. */
  readonly save: (token: RenewedToken) => Effect.Effect<void, StoreTokenStoreError>
  /** Drops this caller's claim after a failed renewal, so the next caller need not wait out the lease. */
  readonly release: Effect.Effect<void, StoreTokenStoreError>
}

export interface StoreTokenStore {
  readonly open: (storeKey: string) => StoreTokenRow
}

/** A credential's fingerprint: what `seed` holds (never the secret itself). */
export const tokenSeed = (parts: ReadonlyArray<string | Redacted.Redacted<string>>): string => {
  const hash = createHash("sha256")
  for (const part of parts) hash.update(Redacted.isRedacted(part) ? Redacted.value(part) : part).update("\u0000")
  return hash.digest("hex").slice(0, 32)
}

/** Share of a token's lifetime after which it is renewed: early enough that a slow renewal never leaves callers without one. */
export const RENEW_AT_SHARE = 0.8

/** When a token issued at `issuedAtMs` that expires at `expiresAtMs` is renewed; never (Infinity) without an expiry. */
export const renewAtMillis = (issuedAtMs: number, expiresAtMs: number | null): number =>
  expiresAtMs === null ? Number.POSITIVE_INFINITY : issuedAtMs + Math.floor((expiresAtMs - issuedAtMs) * RENEW_AT_SHARE)

/**
 * The row's access token when it is good to use now: from the configured credential (`seed`), not
 * yet due for renewal, and not the one the store just refused.
 */
export const usableToken = (
  row: StoredToken | undefined,
  seed: string,
  nowMs: number,
  refused: string | undefined
): Redacted.Redacted<string> | undefined => {
  if (row === undefined || row.seed !== seed || row.accessToken === null) return undefined
  if (refused !== undefined && Redacted.value(row.accessToken) === refused) return undefined
  const renewAt = renewAtMillis(row.issuedAtMs ?? nowMs, row.expiresAtMs)
  return nowMs < renewAt ? row.accessToken : undefined
}

/** The refresh token a renewal presents: the newest stored one of this seed, else the configured one. */
export const refreshTokenToPresent = (
  row: StoredToken | undefined,
  seed: string,
  configured: Redacted.Redacted<string> | undefined
): Redacted.Redacted<string> | undefined =>
  row !== undefined && row.seed === seed && row.refreshToken !== null ? row.refreshToken : configured
