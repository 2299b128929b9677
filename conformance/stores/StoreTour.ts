/**
 * Drives a store connector's operations against its simulator through the
 * recording proxy, as the daemon builds the connector (the store's config
 * section decoded by the config schema, `StoresLive` over an in-memory
 * embedded database), so what the connector sends is seen on the wire.
 *
 * The operations are listed at run time from the connector itself: one
 * without a step shows up as "not driven" (and the run fails until a step is
 * written for it), except one that takes no arguments, which is called as it
 * is ("driven as found").
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Either, Layer, Logger, LogLevel, ManagedRuntime, Option, Schema } from "effect"
import { StoresLive } from "../../src/app/StoresLive.js"
import { StoreConfig } from "../../src/config/StoreConfig.js"
import { DbLive } from "../../src/db/Db.js"
import { migrateToLatest } from "../../src/db/Migrator.js"
import { type StoreConnector, StoreConnectors } from "../../src/stores/StoreConnector.js"
import type { RecordingProxy } from "../RecordingProxy.js"

export interface StoreStep<S> {
  readonly method: string
  readonly note?: string
  /** The `_tag` the step asks for: of the error, or of the outcome (`AlreadyPushed`). */
  readonly expect?: string
  /** False for an operation that talks to nobody (webhook checks, Etsy's annotations). */
  readonly sends?: boolean
  /** Another connector of the same store (wrong credentials), by its key. */
  readonly store?: string
  readonly run: (connector: StoreConnector, state: S) => Effect.Effect<unknown, unknown>
}

export interface StepOutcome {
  readonly label: string
  readonly method: string
  readonly ok: boolean
  readonly sends: boolean
  readonly error?: string
}

export interface StoreTourResult {
  readonly platform: string
  /** Every operation the connector exposes. */
  readonly methods: ReadonlyArray<string>
  readonly outcomes: ReadonlyArray<StepOutcome>
  /** Operations without a step, called without arguments. */
  readonly drivenAsFound: ReadonlyArray<string>
  readonly notDriven: ReadonlyArray<string>
}

export interface ConnectedStores {
  readonly connectors: ReadonlyMap<string, StoreConnector>
  readonly close: () => Promise<void>
}

/** Connectors for store config entries as a seller writes them, built as the daemon builds them. */
export const connectStores = async (entries: ReadonlyArray<unknown>): Promise<ConnectedStores> => {
  const stores = entries.map((entry) => Schema.decodeUnknownSync(StoreConfig)(entry))
  const runtime = ManagedRuntime.make(
    StoresLive(stores).pipe(
      Layer.provide(NodeHttpClient.layerUndici),
      Layer.provide(Layer.effectDiscard(migrateToLatest)),
      Layer.provide(DbLive({ url: Option.none(), dataDir: "memory://" })),
      // The migrations' list and the like are not the run's business; warnings (Etsy's rotation) still show.
      Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
    )
  )
  const connectors = await runtime.runPromise(StoreConnectors)
  return { connectors, close: () => runtime.dispose() }
}

const tagOf = (value: unknown): string | undefined =>
  typeof value === "object" && value !== null && "_tag" in value && typeof value._tag === "string" ? value._tag : undefined

const describe = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  return `${tagOf(error) ?? "Error"} ${message}`.slice(0, 600)
}

export const stepLabel = (step: { readonly method: string; readonly note?: string }) =>
  step.note === undefined ? step.method : `${step.method} (${step.note})`

/** The connector's operations: its function-valued properties. */
export const operationsOf = (connector: StoreConnector): ReadonlyArray<string> =>
  Object.entries(connector).filter(([, value]) => typeof value === "function").map(([name]) => name)

/** Runs `steps` in order, each labelled on the proxy, then every operation left without a step that takes no arguments. */
export const runTour = async <S>(
  platform: string,
  connectors: ReadonlyMap<string, StoreConnector>,
  storeKey: string,
  steps: ReadonlyArray<StoreStep<S>>,
  state: S,
  proxy: RecordingProxy
): Promise<StoreTourResult> => {
  const connector = connectors.get(storeKey)
  if (connector === undefined) throw new Error(`no connector for store ${storeKey}`)
  const methods = operationsOf(connector)
  const outcomes: Array<StepOutcome> = []
  const run = async (label: string, method: string, sends: boolean, effect: Effect.Effect<unknown, unknown>, expect?: string) => {
    proxy.label(`${platform}: ${label}`)
    const result = await Effect.runPromise(Effect.either(Effect.timeout(effect, "60 seconds")))
    const tag = Either.isLeft(result) ? tagOf(result.left) : tagOf(result.right)
    const ok = expect === undefined ? Either.isRight(result) : tag === expect
    const error = ok
      ? undefined
      : Either.isLeft(result)
      ? describe(result.left)
      : `expected ${expect}, got ${tag ?? "a result without a tag"}`
    outcomes.push({ label, method, ok, sends, ...(error === undefined ? {} : { error }) })
  }
  try {
    for (const step of steps) {
      const target = step.store === undefined ? connector : connectors.get(step.store)
      if (target === undefined) throw new Error(`no connector for store ${step.store}`)
      await run(stepLabel(step), step.method, step.sends ?? true, Effect.suspend(() => step.run(target, state)), step.expect)
    }
    const withSteps = new Set(steps.map((s) => s.method))
    const left = methods.filter((m) => !withSteps.has(m))
    const drivenAsFound: Array<string> = []
    for (const method of left) {
      const fn = (connector as unknown as Record<string, unknown>)[method]
      if (typeof fn !== "function" || fn.length > 0) continue
      drivenAsFound.push(method)
      await run(`${method} (no arguments, found at run time)`, method, true, Effect.suspend(() => asEffect(fn.call(connector))))
    }
    return { platform, methods, outcomes, drivenAsFound, notDriven: left.filter((m) => !drivenAsFound.includes(m)) }
  } finally {
    proxy.label(`${platform}: after the tour`)
  }
}

/** What an operation found at run time answered, as an effect to run (an effect needing no services, a promise, or a value). */
const asEffect = (value: unknown): Effect.Effect<unknown, unknown> =>
  Effect.isEffect(value)
    ? (value as Effect.Effect<unknown, unknown>)
    : value instanceof Promise
    ? Effect.tryPromise(() => value)
    : Effect.succeed(value)
