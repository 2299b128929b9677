/**
 * The POD service as every command reaches it: one client configuration and one shared rate
 * budget (ARCHITECTURE.md, "Rate budget", guarantee 1: every caller). The daemon, `pull`,
 * `reconcile`, `report`, `mappings suggest` and `check` all build their client here, so no
 * request anywhere bypasses the budget's slot ledger in the database.
 */
import { Effect, Layer } from "effect"
import { makeCredentialBudget } from "../budget/CredentialBudget.js"
import { credentialId, RateBudget, type RateBudgetConfig } from "../budget/RateBudget.js"
import { effectiveLimit } from "../budget/SlotLog.js"
import type { AppConfig } from "../config/AppConfig.js"
import { Db } from "../db/Db.js"
import { withPodRequestMetrics } from "../observability/PodRequestMetrics.js"
import type { AuthHeaderPair } from "../pod/AuthHeaders.js"
import { PodClient, type PodClientConfig } from "../pod/PodClient.js"
import { makeSqlSlotLedger } from "../repos/SqlSlotLedger.js"
import { replicaIdentity } from "../schedule/ReplicaIdentity.js"
import { withPodHealth } from "./DependencyReports.js"
import { RateBudgetGateLive } from "./RateBudgetGate.js"

type PodSettings = AppConfig["pod"]

/** What a command may change of the configured client: a probe's header names, a lint's shorter timeout. */
export interface PodClientOverrides {
  readonly authHeaders?: AuthHeaderPair
  readonly timeoutMs?: number
}

/** The client's settings from the `pod` section of the config, written once for every command. */
export const podClientConfig = (pod: PodSettings, overrides: PodClientOverrides = {}): PodClientConfig => ({
  baseUrl: pod.baseUrl,
  clientKey: pod.clientKey,
  clientSecret: pod.clientSecret,
  authHeaders: overrides.authHeaders ?? pod.authHeaders,
  timeoutMs: overrides.timeoutMs ?? pod.timeoutMs
})

/**
 * Slots in the database (PostgreSQL shared by replicas, or the embedded PGlite), so that every
 * replica, every restart and every one-shot command sees the same send log.
 */
export const RateBudgetSql = (config: RateBudgetConfig & { readonly replica?: string }) =>
  Layer.scoped(
    RateBudget,
    Effect.gen(function*() {
      const db = yield* Db
      const ledger = makeSqlSlotLedger({
        // The root handle: the budget's writes must never join a caller's transaction.
        db: db.kysely,
        credential: config.credential,
        replica: config.replica ?? (yield* replicaIdentity),
        limit: effectiveLimit(config.rateLimit),
        windowMs: config.rateLimit.windowSeconds * 1000,
        ...(config.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: config.requestTimeoutMs })
      })
      return yield* makeCredentialBudget(ledger, config)
    })
  )

/** The shared budget of the configured credential (keyed by a hash of the client key, never the key). */
export const RateBudgetLive = (pod: PodSettings) =>
  RateBudgetSql({ credential: credentialId(pod.clientKey), rateLimit: pod.rateLimit, requestTimeoutMs: pod.timeoutMs })

/**
 * The gate every POD request passes: its outcome reported to the daemon's health and counted for
 * /metrics (when they are provided), then spent from the budget.
 */
export const PodGateLive = withPodHealth(withPodRequestMetrics(RateBudgetGateLive))

/**
 * The POD client with every request through the shared budget. The budget is merged out, so
 * /status and the budget gauges can read it. Needs the database and an HTTP client.
 */
export const PodLive = (pod: PodSettings, overrides: PodClientOverrides = {}) =>
  PodClient.Default(podClientConfig(pod, overrides)).pipe(
    Layer.provide(PodGateLive),
    Layer.provideMerge(RateBudgetLive(pod))
  )
