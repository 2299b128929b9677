import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { testDatabases } from "../support/database.js"
import { createOrders, getJson, statusOf } from "../support/pipeline.js"
import { simAdmin } from "../support/simAdmin.js"
import { daemonInProcess, fulfilsEachOrderOnce, metric, scopedStack, until } from "../support/daemonInProcess.js"

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
        const stack = yield* scopedStack()
        const { port, config, lines } = yield* daemonInProcess(stack, database.layer)
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

        yield* fulfilsEachOrderOnce(stack, port, 8, 30_000)
      }),
    240_000
  )
})
