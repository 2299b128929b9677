import { createHash, randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { Context, Effect, Layer, Redacted } from "effect"
import { Db } from "../db/Db.js"
import { type CredentialBudget, makeCredentialBudget } from "./CredentialBudget.js"
import { makeInMemorySlotLedger } from "./InMemorySlotLedger.js"
import { effectiveLimit, type RateLimitSettings } from "./SlotLog.js"
import { makeSqlSlotLedger } from "./SqlSlotLedger.js"

/**
 * The shared rate budget of the POD credential this daemon uses. Every POD request passes
 * through it (see RateBudgetGate); several credentials (teams) each get their own budget, as
 * the ledger is keyed by credential.
 */
export class RateBudget extends Context.Tag("podsync/RateBudget")<RateBudget, CredentialBudget>() {}

export interface RateBudgetConfig {
  /** A stable, non-secret name of the credential: see `credentialId`. */
  readonly credential: string
  readonly rateLimit: RateLimitSettings
  /** Upper bound of the random delay added to every pause. Default 1000 ms. */
  readonly pauseJitterMs?: number
  /** Longest a POD request may take (the POD client's timeout or more). Default 30 s. */
  readonly requestTimeoutMs?: number
}

/**
 * A name for the credential that can be stored and shown: a hash of the client key, never the
 * key itself.
 */
export const credentialId = (clientKey: Redacted.Redacted<string>): string =>
  `pod-${createHash("sha256").update(Redacted.value(clientKey)).digest("hex").slice(0, 16)}`

/** Unique per running process: the owner of slots in the shared log. */
export const replicaId = (): string => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`

/**
 * One replica, slots in memory. A process cannot know what its predecessor sent just before
 * it died, so unless `startFull` is false the first window counts as full.
 */
export const RateBudgetInMemory = (config: RateBudgetConfig & { readonly startFull?: boolean }) =>
  Layer.scoped(
    RateBudget,
    Effect.gen(function* () {
      const ledger = yield* makeInMemorySlotLedger({
        limit: effectiveLimit(config.rateLimit),
        windowMs: config.rateLimit.windowSeconds * 1000,
        startFull: config.startFull ?? true
      })
      return yield* makeCredentialBudget(ledger, config)
    })
  )

/**
 * Slots in the database (PostgreSQL shared by replicas, or the embedded PGlite), so that every
 * replica and every restart sees the same send log. The default for the daemon.
 */
export const RateBudgetSql = (config: RateBudgetConfig & { readonly replica?: string }) =>
  Layer.scoped(
    RateBudget,
    Effect.gen(function* () {
      const db = yield* Db
      const ledger = makeSqlSlotLedger({
        // The root handle: the budget's writes must never join a caller's transaction.
        db: db.kysely,
        credential: config.credential,
        replica: config.replica ?? replicaId(),
        limit: effectiveLimit(config.rateLimit),
        windowMs: config.rateLimit.windowSeconds * 1000,
        ...(config.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: config.requestTimeoutMs })
      })
      return yield* makeCredentialBudget(ledger, config)
    })
  )
