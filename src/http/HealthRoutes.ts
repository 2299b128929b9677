import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Db } from "../db/Db.js"
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
      const ok = ready && database
      return yield* HttpServerResponse.json({ status: ok ? "ready" : "not ready", ready, database }, { status: ok ? 200 : 503 })
    })
  ),
  HttpRouter.get("/status", statusResponse)
)
