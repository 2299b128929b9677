import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { credentialId, RateBudgetInMemory } from "../budget/RateBudget.js"
import type { AppConfig } from "../config/AppConfig.js"
import { migrationState } from "../db/Migrator.js"
import { dbLayer } from "./DatabaseLive.js"
import { PodGateLive, RateBudgetLive } from "./PodLive.js"
import { StoresInMemoryBudgetsLive, StoresLive } from "./StoresLive.js"

/** The POD gate and the stores' connectors on the budgets in the configured database (needs `Db`). */
const sharedBudgets = (app: AppConfig) => Layer.mergeAll(PodGateLive.pipe(Layer.provide(RateBudgetLive(app.pod))), StoresLive(app.stores))

/**
 * The same on budgets in memory. No process shares them, and none can have sent on this
 * database's behalf, so the first window is not counted full: the check's few calls (one per
 * service, one more for the other header pair) fit in the headroom the budget keeps for clients
 * it cannot see.
 */
const memoryBudgets = (app: AppConfig) =>
  Layer.mergeAll(
    PodGateLive.pipe(Layer.provide(RateBudgetInMemory({
      credential: credentialId(app.pod.clientKey),
      rateLimit: app.pod.rateLimit,
      requestTimeoutMs: app.pod.timeoutMs,
      startFull: false
    }))),
    StoresInMemoryBudgetsLive(app.stores)
  )

const embeddedMissing = (app: AppConfig) => app.database.url === undefined && !fs.existsSync(path.join(app.dataDir, "PG_VERSION"))

/**
 * The budgets `podsync check` draws its few calls from, creating nothing: where the configured
 * database exists and is migrated, the shared ones in it (so a check beside a daemon on PostgreSQL
 * takes its share of the same ledgers and cannot push the credential over its limit); otherwise
 * budgets in memory, and no data folder, database or table is made. Fails as the database does: a
 * data folder a daemon holds, a PostgreSQL server that does not answer.
 */
export const CheckBudgetsLive = (app: AppConfig) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    if (embeddedMissing(app)) return memoryBudgets(app)
    const db = yield* Layer.build(dbLayer(app))
    const { pending } = yield* Effect.provide(migrationState, db)
    return pending.length > 0 ? memoryBudgets(app) : sharedBudgets(app).pipe(Layer.provide(Layer.succeedContext(db)))
  }))
