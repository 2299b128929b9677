/**
 * A store API token that renews itself, shared through a token row (domain/StoreToken.ts) by every
 * replica on the database and by every fiber of this process:
 *
 * - A token is used until `RENEW_AT_SHARE` of its lifetime has passed, or until the store refuses
 *   it (`invalidate`, after a 401); then it is renewed once, for everyone.
 * - In this process, one fiber renews while the others wait for it (a semaphore), and the good
 *   token is kept in memory, so the row is read only when the token is due.
 * - Across replicas, the renewal is claimed on the row's version: the replica that gets the claim
 *   asks the store, the others poll the row until the new token is there (or the claim lapses, when
 *   its taker died, and one of them claims it).
 * - A refresh token the store hands back (Etsy rotates them) is saved with the access token, and
 *   the next renewal presents it; the configured one only seeds the row (and wins again when the
 *   configuration changes: `seed`).
 *
 * Tokens are `Redacted` everywhere, and no error or log line here carries one.
 */
import { Clock, Duration, Effect, Redacted, Ref } from "effect"
import {
  refreshTokenToPresent,
  type StoredToken,
  type StoreTokenRow,
  type StoreTokenStoreError,
  usableToken
} from "../domain/StoreToken.js"
import { type StoreError, StoreUnavailableError } from "./StoreErrors.js"

/** What the store answered a renewal with. */
export interface IssuedToken {
  readonly accessToken: Redacted.Redacted<string>
  /** The token's lifetime; absent when the store gives none (renewed only when refused). */
  readonly expiresInSeconds?: number
  /** A new refresh token, when the store rotates them. */
  readonly refreshToken?: Redacted.Redacted<string>
}

export interface RenewingTokenConfig {
  readonly storeKey: string
  /** The operation named in errors (e.g. `clientCredentialsGrant`). */
  readonly operation: string
  /** The configured credential's fingerprint (`tokenSeed`). */
  readonly seed: string
  readonly row: StoreTokenRow
  /** The configured refresh token, if the store works with one: presented until the store hands back a newer one. */
  readonly configuredRefreshToken?: Redacted.Redacted<string>
  /** Asks the store for a new token (with the refresh token to present, if any). */
  readonly issue: (refreshToken: Redacted.Redacted<string> | undefined) => Effect.Effect<IssuedToken, StoreError>
  /** How long a claim holds the others off: longer than one renewal can take (its timeout and retries). */
  readonly claimLease: Duration.DurationInput
  /** How often a replica waiting for another's renewal reads the row again. */
  readonly pollEvery?: Duration.DurationInput
}

export interface RenewingToken {
  /** A good token, renewed first when due. */
  readonly current: Effect.Effect<Redacted.Redacted<string>, StoreError>
  /** The store refused `token` (401): the next `current` renews, unless someone already did. */
  readonly invalidate: (token: Redacted.Redacted<string>) => Effect.Effect<void>
  /** The refresh token the next renewal presents (the newest the store gave). */
  readonly refreshToken: Effect.Effect<Redacted.Redacted<string> | undefined, StoreError>
}

interface Cached {
  readonly token: Redacted.Redacted<string>
  readonly row: StoredToken
}

export const makeRenewingToken = (config: RenewingTokenConfig): Effect.Effect<RenewingToken> =>
  Effect.gen(function*() {
    const { storeKey, operation, seed, row } = config
    const leaseMs = Duration.toMillis(Duration.decode(config.claimLease))
    const poll = Duration.decode(config.pollEvery ?? "200 millis")
    const cached = yield* Ref.make<Cached | undefined>(undefined)
    // The token the store last refused: never handed out again, even while the row still holds it.
    const refused = yield* Ref.make<string | undefined>(undefined)
    const lock = yield* Effect.makeSemaphore(1)

    const sharedStorage = (error: StoreTokenStoreError) =>
      new StoreUnavailableError({ storeKey, operation, ambiguous: false, detail: error.message })

    const goodNow = (candidate: StoredToken | undefined) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const usable = usableToken(candidate, seed, now, yield* Ref.get(refused))
        return usable === undefined || candidate === undefined ? undefined : { token: usable, row: candidate }
      })

    /** This process's renewal: claims the row, asks the store, saves the answer; undefined when another holds the claim. */
    const renewIfClaimed = (seen: StoredToken | undefined) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const claimed = yield* row.claim(seen?.version, seed, now, leaseMs).pipe(Effect.mapError(sharedStorage))
        if (!claimed) return undefined
        const presented = refreshTokenToPresent(seen, seed, config.configuredRefreshToken)
        const issued = yield* config.issue(presented).pipe(
          // A failed renewal lets the next caller try at once rather than wait out the lease.
          Effect.tapError(() => Effect.ignore(row.release))
        )
        const issuedAtMs = yield* Clock.currentTimeMillis
        // The configured refresh token stays in the configuration only: the row keeps the ones the store handed out.
        const next = issued.refreshToken ?? presented
        const configured = config.configuredRefreshToken
        const kept = next === undefined || (configured !== undefined && Redacted.value(next) === Redacted.value(configured))
          ? null
          : next
        const renewed = {
          seed,
          accessToken: issued.accessToken,
          issuedAtMs,
          expiresAtMs: issued.expiresInSeconds === undefined ? null : issuedAtMs + issued.expiresInSeconds * 1000,
          refreshToken: kept
        }
        yield* row.save(renewed).pipe(Effect.mapError(sharedStorage))
        yield* Ref.set(refused, undefined)
        return { token: issued.accessToken, row: { ...renewed, version: (seen?.version ?? 0) + 1, renewingUntilMs: null } }
      })

    /** Reads the row until it holds a good token, renewing it when this process gets the claim. */
    const fromRow: Effect.Effect<Cached, StoreError> = Effect.gen(function*() {
      for (;;) {
        const stored = yield* row.read.pipe(Effect.mapError(sharedStorage))
        const good = yield* goodNow(stored)
        if (good !== undefined) return good
        const renewed = yield* renewIfClaimed(stored)
        if (renewed !== undefined) return renewed
        // Another replica renews (or its claim has not lapsed yet): its answer will be in the row.
        yield* Effect.sleep(poll)
      }
    })

    const current: Effect.Effect<Redacted.Redacted<string>, StoreError> = Effect.gen(function*() {
      const fast = yield* goodNow((yield* Ref.get(cached))?.row)
      if (fast !== undefined) return fast.token
      return yield* lock.withPermits(1)(
        Effect.gen(function*() {
          // Another fiber may have renewed while this one waited for the lock.
          const again = yield* goodNow((yield* Ref.get(cached))?.row)
          if (again !== undefined) return again.token
          const fresh = yield* fromRow
          yield* Ref.set(cached, fresh)
          return fresh.token
        })
      )
    })

    const invalidate = (token: Redacted.Redacted<string>) =>
      Effect.gen(function*() {
        const value = Redacted.value(token)
        const held = yield* Ref.get(cached)
        // A refusal of a token already replaced says nothing of the new one.
        if (held !== undefined && Redacted.value(held.token) !== value) return
        yield* Ref.set(refused, value)
        yield* Ref.set(cached, undefined)
      })

    const refreshToken = Effect.map(
      row.read.pipe(Effect.mapError(sharedStorage)),
      (stored) => refreshTokenToPresent(stored, seed, config.configuredRefreshToken)
    )

    return { current, invalidate, refreshToken }
  })
