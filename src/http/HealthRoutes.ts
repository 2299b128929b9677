import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Db } from "../db/Db.js"
import { DependencyHealth } from "../observability/DependencyHealth.js"
import { statusResponse } from "./MetricsRoutes.js"
import { Readiness } from "./Readiness.js"

/** GET /healthz (the process answers), /readyz (it should get traffic), /status (the picture for a person: orders, held reasons, budget). */
export const HealthRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/healthz", HttpServerResponse.json({ status: "ok" })),
  HttpRouter.get(
    "/readyz",
    Effect.gen(function*() {
      const ready = yield* (yield* Readiness).isReady
      const db = yield* Db
      const database = yield* db.use((k) => k.selectFrom("store_cursors").select("store_key").limit(1).execute()).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      // The database failing in the loops (refusing claims, connections lost) keeps the daemon unready. The POD
      // service or a store being down does not: webhooks are still taken in, and the work waits for them
      // (GET /status says what is unreachable).
      const all = yield* Effect.serviceOption(DependencyHealth).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.succeed([]), onSome: (health) => health.troubles }))
      )
      const troubles = all.filter((t) => t.dependency === "database")
      const ok = ready && database && troubles.length === 0
      return yield* HttpServerResponse.json({
        status: ok ? "ready" : "not ready",
        ready,
        database,
        ...(troubles.length > 0
          ? {
            failing: troubles.map((t) => ({
              dependency: t.dependency,
              operation: t.operation,
              since: t.since.toISOString(),
              failures: t.failures,
              message: t.message
            }))
          }
          : {})
      }, { status: ok ? 200 : 503 })
    })
  ),
  HttpRouter.get("/status", statusResponse)
)
