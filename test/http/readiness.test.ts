/**
 * /readyz and a store that fails (#18): a store refusing its credentials, or unreachable, is listed;
 * with `server.unreadyAfterStoreFailsMinutes` the daemon turns unready once it has lasted that long,
 * and ready again when the store takes its credentials. Time is the TestClock's.
 */
import { it } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { describe, expect } from "vitest"
import { judgeReadiness } from "../../src/http/Readiness.js"
import { DependencyHealth } from "../../src/observability/DependencyHealth.js"

const judge = (storeFailureLimitMs: number | undefined) =>
  Effect.gen(function*() {
    const health = yield* DependencyHealth
    return judgeReadiness({
      ready: true,
      database: true,
      troubles: yield* health.troubles,
      refusals: yield* health.refusals,
      now: yield* TestClock.currentTimeMillis,
      storeFailureLimitMs
    })
  })

describe("readiness with a failing store", () => {
  it.effect("lists a store refusing its credentials, and is unready only after the configured time", () =>
    Effect.gen(function*() {
      const health = yield* DependencyHealth
      yield* health.refused("store:acme-shopify", "POST /admin/api/2026-10/graphql.json", "HTTP 401")
      yield* TestClock.adjust(Duration.minutes(29))
      // The same refusal again does not move its start.
      yield* health.refused("store:acme-shopify", "POST /admin/api/2026-10/graphql.json", "HTTP 401")
      const before = yield* judge(30 * 60_000)
      expect(before.ok).toBe(true)
      expect(before.body).toMatchObject({
        status: "ready",
        stores: [{ store: "acme-shopify", why: "credentials refused", failingSeconds: 29 * 60, message: "HTTP 401" }]
      })

      yield* TestClock.adjust(Duration.minutes(1))
      const after = yield* judge(30 * 60_000)
      expect(after.ok).toBe(false)
      expect(after.body).toMatchObject({ status: "not ready", unreadyBecause: ["store acme-shopify: credentials refused for 1800 s"] })
      // Without the setting, a store never makes the daemon unready (webhooks are still taken in).
      expect((yield* judge(undefined)).ok).toBe(true)

      yield* health.accepted("store:acme-shopify")
      const fixed = yield* judge(30 * 60_000)
      expect(fixed.ok).toBe(true)
      expect(fixed.body).not.toHaveProperty("stores")
    }).pipe(Effect.provide(DependencyHealth.Default)))

  it.effect("counts an unreachable store the same way, and the database always", () =>
    Effect.gen(function*() {
      const health = yield* DependencyHealth
      yield* health.failed("store:beta-woo", "GET /wp-json/wc/v3/orders", "no answer")
      yield* TestClock.adjust(Duration.minutes(10))
      const judged = yield* judge(5 * 60_000)
      expect(judged.ok).toBe(false)
      expect(judged.body).toMatchObject({ unreadyBecause: ["store beta-woo: unreachable for 600 s"] })

      yield* health.succeeded("store:beta-woo")
      yield* health.failed("database", "claim", "connection refused")
      const database = yield* judge(undefined)
      expect(database.ok).toBe(false)
      expect(database.body).toMatchObject({ failing: [{ dependency: "database", message: "connection refused" }] })
    }).pipe(Effect.provide(DependencyHealth.Default)))
})
