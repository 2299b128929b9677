/**
 * What every store simulator's test harness shares: a simulator on
 * 127.0.0.1:0 for the test's scope, its `/__sim` admin API, a connector
 * pointed at it over real HTTP, and a real-time wait for what happens over
 * that HTTP. Each platform's `harness.ts` adds its config and stats shapes.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, type Scope } from "effect"
import type { ConnectorMaker } from "../../../src/stores/ConnectorAssembly.js"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"

/** A running simulator, closed when the test's scope ends. */
export const scopedSimulator = <S extends { readonly close: () => Promise<void> }>(
  start: () => Promise<S>
): Effect.Effect<S, never, Scope.Scope> => Effect.acquireRelease(Effect.promise(start), (sim) => Effect.promise(() => sim.close()))

/** One call to the simulator's admin API; a refusal fails the test with what was refused. */
export const simulatorAdmin = <A = any>(
  sim: { readonly url: string },
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown
): Effect.Effect<A> =>
  Effect.promise(async () => {
    const response = await fetch(`${sim.url}/__sim/${path}`, {
      method,
      headers: { "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const json = (await response.json()) as A
    if (!response.ok) throw new Error(`simulator admin ${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  })

/** A connector whose HTTP client lives as long as the test's scope. */
export const connectWith = <Config>(make: ConnectorMaker<Config>, config: Config): Effect.Effect<StoreConnector, never, Scope.Scope> =>
  Effect.flatMap(Layer.build(NodeHttpClient.layerUndici), (http) => make(config).pipe(Effect.provide(http)))

/** A platform's `connectorConfig(sim, overrides)`: its defaults for a simulator, with the test's overrides over them. */
export const configFor = <Sim, Config>(defaults: (sim: Sim) => Config) => (sim: Sim, overrides: Partial<Config> = {}): Config => ({
  ...defaults(sim),
  ...overrides
})

/** What a simulator's `/__sim/stats` answers: plain counters, and tallies by key (order, operation, fault kind). */
export type SimStatsOf<Counter extends string, Tally extends string> =
  & { readonly [K in Counter]: number }
  & { readonly [K in Tally]: Readonly<Record<string, number>> }

/** Reads a simulator's `/__sim/stats`. */
export const statsOf = <Stats>(sim: { readonly url: string }) => simulatorAdmin<Stats>(sim, "GET", "stats")

/**
 * A platform's `connectTo(sim, overrides)`: its connector, configured by `config` from the simulator
 * and the test's overrides, with an HTTP client that lives as long as the test's scope.
 */
export const connectorFor =
  <Sim, Config>(make: ConnectorMaker<Config>, config: (sim: Sim, overrides?: Partial<Config>) => Config) =>
  (sim: Sim, overrides: Partial<Config> = {}): Effect.Effect<StoreConnector, never, Scope.Scope> =>
    connectWith(make, config(sim, overrides))

/** Waits (real time) until `check` holds; for effects that happen over real HTTP. */
export const eventually = <A>(probe: Effect.Effect<A>, check: (a: A) => boolean, what: string, timeoutMs = 5_000) =>
  Effect.promise(async () => {
    const started = performance.now()
    for (;;) {
      const value = await Effect.runPromise(probe)
      if (check(value)) return value
      if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })
