import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { DaemonLive } from "../../src/app/DaemonLive.js"
import { loadConfig } from "../../src/config/loadConfig.js"
import { testDatabases } from "../support/database.js"
import { createOrders, driveUntil, freePort, getJson, startStack, statusOf, writeDaemonConfig } from "../support/pipeline.js"
import { simAdmin } from "../support/simAdmin.js"

/** Real time passes until `done` holds (the daemon works over real HTTP and cron ticks). */
const until = (what: string, done: () => Promise<boolean>, timeoutMs = 60_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + timeoutMs
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  })

const metric = async (port: number, line: RegExp) => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const found = text.split("\n").find((l) => line.test(l))
  return found === undefined ? undefined : Number(found.split(" ").at(-1))
}

interface Unreachable {
  readonly dependency: string
  readonly waitingOrders: number | null
}
const unreachable = async (port: number): Promise<ReadonlyArray<Unreachable>> =>
  ((await getJson(`http://127.0.0.1:${port}/status`)).unreachable ?? []) as ReadonlyArray<Unreachable>

const waitingFor = (state: Record<string, number>) => (state.ready ?? 0) + (state.in_doubt ?? 0)

/**
 * The POD service, then the store, stop answering under a running daemon (every API route
 * answers 503). While the POD service is down the draft stage claims nothing and only a probe
 * asks it; one line says it is unreachable and how many orders wait, /status and /metrics say the
 * same, /readyz stays ready (webhooks are still taken in). The moment it answers, the waiting
 * orders are drafted at once; likewise the store's pushes after its outage. Nothing is lost or
 * doubled.
 */
describe.each(testDatabases())("the POD service and a store down under a running daemon ($name)", (database) => {
  it.scopedLive(
    "are probed, reported once each way, and the waiting work resumes the moment they answer",
    () =>
      Effect.gen(function*() {
        const stack = yield* Effect.acquireRelease(Effect.promise(() => startStack()), (s) => Effect.promise(() => s.close()))
        const port = yield* Effect.promise(() => freePort())
        const config = yield* loadConfig(writeDaemonConfig(stack, port, { pull: "*/1 * * * * *", reconcile: "*/2 * * * * *" }), {})
        const lines: Array<string> = []
        const logged = Layer.merge(
          Logger.replace(Logger.defaultLogger, Logger.map(Logger.jsonLogger, (line) => void lines.push(line))),
          Logger.minimumLogLevel(LogLevel.Info)
        )
        const db = yield* Layer.build(database.layer)
        yield* Layer.build(DaemonLive(config, { idle: "200 millis" }).pipe(Layer.provide(Layer.succeedContext(db)))).pipe(
          Effect.provide(logged)
        )
        yield* until("the daemon to be ready", async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200)

        // The POD service goes away: every route answers 503.
        yield* Effect.promise(() => simAdmin(stack.pod.url, "POST", "faults", { kind: "error5xx", status: 503, latencyMs: [0, 0] }))
        yield* Effect.promise(() => createOrders(stack, 8))
        yield* until("the orders to be pulled and waiting", async () => waitingFor(await statusOf(port)) === 8)
        // The count of waiting orders is refreshed by the probe while the outage lasts.
        yield* until("the outage to be reported", async () =>
          (await unreachable(port)).some((u) => u.dependency === "pod" && u.waitingOrders === 8), 20_000)
        expect(
          yield* Effect.promise(() =>
            metric(port, /^podsync_dependency_waiting_orders\{dependency="pod"\}/)
          )
        ).toBe(8)
        const down = lines.filter((l) => l.includes("POD service unreachable since"))
        expect(down).toHaveLength(1)
        expect(yield* Effect.promise(() => metric(port, /^podsync_dependency_up\{dependency="pod"\}/))).toBe(0)
        // Webhooks are still taken in while the POD service is down: the daemon stays ready.
        expect((yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/readyz`))).status).toBe(200)

        // While it is down, the probe is all that asks it: one call every few seconds, no draft attempts.
        const before = (yield* Effect.promise(() => getJson(`${stack.pod.url}/__sim/stats`))).total as number
        yield* Effect.sleep("7 seconds")
        const during = ((yield* Effect.promise(() => getJson(`${stack.pod.url}/__sim/stats`))).total as number) - before
        expect(during).toBeGreaterThanOrEqual(1)
        expect(during).toBeLessThanOrEqual(4)
        expect(lines.filter((l) => l.includes("POD service unreachable since"))).toHaveLength(1)

        // Back: every waiting order is drafted at once, whatever backoff it had.
        yield* Effect.promise(() => simAdmin(stack.pod.url, "DELETE", "faults"))
        yield* until("the waiting orders to be drafted", async () => waitingFor(await statusOf(port)) === 0, 20_000)
        expect(lines.filter((l) => l.includes("POD service back after") && l.includes("draining 8 orders"))).toHaveLength(1)
        expect(yield* Effect.promise(() => unreachable(port))).toEqual([])
        expect(yield* Effect.promise(() => metric(port, /^podsync_dependency_up\{dependency="pod"\}/))).toBe(1)

        // The store goes away while the POD service ships the orders.
        yield* Effect.promise(() => simAdmin(stack.shopify.url, "POST", "faults", { kind: "error5xx", status: 503 }))
        yield* Effect.promise(() => simAdmin(stack.pod.url, "POST", "checkout-all", { paid: true }))
        yield* Effect.promise(() => simAdmin(stack.pod.url, "POST", "ship-all"))
        yield* until(
          "the store's outage to be reported",
          async () => (await unreachable(port)).some((u) => u.dependency === `store:${config.stores[0]?.key}`),
          30_000
        )
        yield* until("the shipped orders to wait for the store", async () => ((await statusOf(port)).shipped ?? 0) === 8, 30_000)
        expect(lines.filter((l) => l.includes(`store ${config.stores[0]?.key} unreachable since`))).toHaveLength(1)
        yield* Effect.promise(() => simAdmin(stack.shopify.url, "DELETE", "faults"))
        // The fulfil stage would wait 30 s per order; the probe's return wakes them at once.
        yield* until("the pushes to be made", async () => ((await statusOf(port)).fulfilled ?? 0) === 8, 20_000)
        expect(lines.some((l) => l.includes(`store ${config.stores[0]?.key} back after`))).toBe(true)

        const final = yield* Effect.promise(() => driveUntil(stack, () => statusOf(port), (s) => s.fulfilled === 8, 30_000))
        expect(final).toEqual({ fulfilled: 8 })
        const stats = yield* Effect.promise(() => getJson(`${stack.pod.url}/__sim/stats`))
        expect(Object.keys(stats.draftsByReferenceId)).toHaveLength(8)
        expect(stats.duplicateReferenceIds).toEqual([])
        const shop = yield* Effect.promise(() => getJson(`${stack.shopify.url}/__sim/stats`))
        expect(Object.values(shop.fulfillmentsByOrder).every((n) => n === 1)).toBe(true)
      }),
    240_000
  )
})
