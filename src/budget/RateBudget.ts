import { createHash } from "node:crypto"
import { Context, Effect, Layer, Redacted } from "effect"
import { type CredentialBudget, makeCredentialBudget } from "./CredentialBudget.js"
import { makeInMemorySlotLedger } from "./InMemorySlotLedger.js"
import { effectiveLimit, type RateLimitSettings } from "./SlotLog.js"

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

/**
 * One replica, slots in memory. A process cannot know what its predecessor sent just before
 * it died, so unless `startFull` is false the first window counts as full.
 */
export const RateBudgetInMemory = (config: RateBudgetConfig & { readonly startFull?: boolean }) =>
  Layer.scoped(
    RateBudget,
    Effect.gen(function*() {
      const ledger = yield* makeInMemorySlotLedger({
        limit: effectiveLimit(config.rateLimit),
        windowMs: config.rateLimit.windowSeconds * 1000,
        startFull: config.startFull ?? true
      })
      return yield* makeCredentialBudget(ledger, config)
    })
  )
