import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Option } from "effect"
import { isDryRun } from "../config/DryRun.js"
import { Db } from "../db/Db.js"
import { DependencyHealth } from "../observability/DependencyHealth.js"
import { statusResponse } from "./MetricsRoutes.js"
import { judgeReadiness, Readiness } from "./Readiness.js"

/** GET /healthz (the process answers), /readyz (it should get traffic), /status (the picture for a person: orders, held reasons, budget). */
export const HealthRoutes = HttpRouter.empty.pipe(
  // A daemon in dry run says so wherever it is watched (it sends nothing).
  HttpRouter.get(
    "/healthz",
    Effect.flatMap(isDryRun, (dryRun) => HttpServerResponse.json({ status: "ok", ...(dryRun ? { dryRun } : {}) }))
  ),
  HttpRouter.get(
    "/readyz",
    Effect.gen(function*() {
      const readiness = yield* Readiness
      const ready = yield* readiness.isReady
      const db = yield* Db
      const database = yield* db.use((k) => k.selectFrom("store_cursors").select("store_key").limit(1).execute()).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      // The database failing in the loops (refusing claims, connections lost) keeps the daemon unready. The POD
      // service or a store being down does not by default: webhooks are still taken in, and the work waits for
      // them (GET /status says what is unreachable). With server.unreadyAfterStoreFailsMinutes, a store failing
      // (unreachable, or refusing its credentials) that long does.
      const health = yield* Effect.serviceOption(DependencyHealth)
      const { body, ok } = judgeReadiness({
        ready,
        database,
        troubles: Option.isSome(health) ? yield* health.value.troubles : [],
        refusals: Option.isSome(health) ? yield* health.value.refusals : [],
        now: yield* Clock.currentTimeMillis,
        storeFailureLimitMs: readiness.storeFailureLimitMs
      })
      const dryRun = yield* isDryRun
      return yield* HttpServerResponse.json(dryRun ? { ...body, dryRun } : body, { status: ok ? 200 : 503 })
    })
  ),
  HttpRouter.get("/status", statusResponse)
)
