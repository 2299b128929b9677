import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { postgresDatabase } from "../support/database.js"
import { createOrders } from "../support/pipeline.js"
import { startTcpProxy } from "../support/tcpProxy.js"
import { daemonInProcess, fulfilsEachOrderOnce, scopedStack, until } from "../support/daemonInProcess.js"

const url = process.env.TEST_DATABASE_URL

const readyz = async (port: number) => (await fetch(`http://127.0.0.1:${port}/readyz`)).status

/**
 * The daemon's PostgreSQL connections are lost under load: its server processes are terminated
 * (what a failover or an idle-timeout proxy does) several times, then the server goes away
 * altogether for a few seconds (a restart, through a proxy that drops every connection and
 * refuses new ones). The daemon must stay up (a pg client's 'error' nobody listens to would end
 * this very process), report unready while the database cannot be reached, come back by itself,
 * and lose or double nothing.
 */
describe.runIf(url)("lost database connections under a running daemon (postgres)", () => {
  it.scopedLive(
    "never end the process; the daemon is unready while the server is gone, recovers, and loses nothing",
    () =>
      Effect.gen(function*() {
        const server = new URL(url ?? "")
        const proxy = yield* Effect.acquireRelease(
          Effect.promise(() => startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) })),
          (p) => Effect.promise(() => p.close())
        )
        const applicationName = `podsync_connloss_${proxy.port}`
        const proxied = new URL(url ?? "")
        proxied.port = String(proxy.port)
        proxied.searchParams.set("application_name", applicationName)
        const admin = new pg.Client({ connectionString: url })
        yield* Effect.acquireRelease(Effect.promise(() => admin.connect()), () => Effect.promise(() => admin.end()))
        const terminate = Effect.promise(() =>
          admin.query("select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = $1", [
            applicationName
          ])
        ).pipe(Effect.map((r) => (r.rows[0] as { n: number }).n))

        const stack = yield* scopedStack()
        const { port, lines } = yield* daemonInProcess(stack, postgresDatabase(proxied.toString()).layer)
        yield* until("the daemon to be ready", async () => (await readyz(port)) === 200)

        // Under load: orders arrive and are worked on while the connections are cut three times.
        yield* Effect.promise(() => createOrders(stack, 30))
        let terminated = 0
        for (let i = 0; i < 3; i++) {
          yield* Effect.sleep("1500 millis")
          terminated += yield* terminate
        }
        expect(terminated).toBeGreaterThan(0)

        // The server goes away for a while (a restart): unready while it lasts, orders keep arriving at the store.
        yield* Effect.promise(() => proxy.cut())
        yield* Effect.promise(() => createOrders(stack, 5))
        yield* until("readiness to report the database gone", async () => (await readyz(port)) === 503, 20_000)
        yield* Effect.sleep("4 seconds")
        yield* Effect.promise(() => proxy.restore())
        yield* until("readiness to come back", async () => (await readyz(port)) === 200, 30_000)

        yield* fulfilsEachOrderOnce(stack, port, 35, 180_000)

        // Each episode is said once when it starts and once when it ends, not once per failure.
        const wentAway = lines.filter((l) => l.includes("database unreachable since")).length
        const cameBack = lines.filter((l) => l.includes("database back after")).length
        expect(wentAway).toBeGreaterThanOrEqual(1)
        expect(wentAway).toBeLessThanOrEqual(4)
        expect(cameBack).toBe(wentAway)
      }),
    300_000
  )
})
