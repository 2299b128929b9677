import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { sql } from "kysely"
import { Db } from "../../src/db/Db.js"
import { testDatabases } from "../support/database.js"
import { createOrders, driveUntil, statusOf } from "../support/pipeline.js"
import { daemonInProcess, fulfilsEachOrderOnce, metric, scopedStack, until } from "../support/daemonInProcess.js"

const readyz = async (port: number) => {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`)
  return { status: response.status, body: await response.json() as { failing?: Array<{ dependency: string; failures: number }> } }
}

/**
 * The database fails under a running daemon: the table every loop claims from is taken away
 * (renamed, on the daemon's own database: the embedded one cannot be reached from outside its
 * process) and given back. The failure is seen, not read as "no work": logged with its cause,
 * counted in /metrics, /readyz unready while it lasts; then the loops recover by themselves and
 * every order, including those the store took during the outage, is fulfilled exactly once.
 */
describe.each(testDatabases())("a database failure under a running daemon ($name)", (database) => {
  it.scopedLive(
    "is logged, counted and unready while it lasts; the daemon recovers with nothing lost or doubled",
    () =>
      Effect.gen(function*() {
        const stack = yield* scopedStack()
        const { port, lines, db } = yield* daemonInProcess(stack, database.layer)
        const run = <A, E>(statement: string) =>
          Effect.flatMap(Db, (d) => d.use((k) => sql.raw<A>(statement).execute(k))).pipe(Effect.provide(db)) as Effect.Effect<unknown, E>
        yield* until("the daemon to be ready", async () => (await readyz(port)).status === 200)

        yield* Effect.promise(() => createOrders(stack, 5))
        yield* Effect.promise(() => driveUntil(stack, () => statusOf(port), (s) => s.fulfilled === 5, 60_000))

        // The outage: every claim, pull and status read of store_orders now fails.
        yield* run("alter table store_orders rename to store_orders_offline")
        yield* Effect.promise(() => createOrders(stack, 5))
        yield* until("readiness to report the failing database", async () => {
          const { body, status } = await readyz(port)
          return status === 503 && (body.failing ?? []).some((f) => f.dependency === "database" && f.failures >= 3)
        })
        // One line when it goes away, whatever failed first; the other failures are counted, not logged.
        expect(lines.filter((l) => l.includes("database unreachable since"))).toHaveLength(1)
        expect(lines.some((l) => l.includes("database unreachable since") && l.includes("store_orders"))).toBe(true)
        expect(yield* Effect.promise(() => metric(port, /^podsync_dependency_up\{dependency="database"\}/))).toBe(0)
        expect(
          yield* Effect.promise(() =>
            metric(port, /^podsync_dependency_errors_total\{dependency="database",operation="claiming match work"\}/)
          )
        )
          .toBeGreaterThan(0)

        // The database is back: the loops find it without a restart.
        yield* run("alter table store_orders_offline rename to store_orders")
        yield* until("readiness to come back", async () => (await readyz(port)).status === 200, 30_000)
        expect(lines.some((l) => l.includes("database back after"))).toBe(true)
        expect(yield* Effect.promise(() => metric(port, /^podsync_dependency_up\{dependency="database"\}/))).toBe(1)

        yield* fulfilsEachOrderOnce(stack, port, 10, 90_000)
      }),
    240_000
  )
})
