/**
 * What the tests of a daemon run in this process (`DaemonLive` against a simulator stack) share: the
 * stack for the test's scope, the daemon on a free port with its log lines kept, waits in real time,
 * its /metrics, and the exactly-once outcome at the end.
 */
import { Effect, Layer, Logger, LogLevel } from "effect"
import { expect } from "vitest"
import { DaemonLive } from "../../src/app/DaemonLive.js"
import { loadConfig } from "../../src/config/loadConfig.js"
import type { Db } from "../../src/db/Db.js"
import { driveUntil, freePort, getJson, type Stack, type StackOptions, startStack, statusOf, writeDaemonConfig } from "./pipeline.js"

/** Real time passes until `done` holds (the daemon works over real HTTP and cron ticks). */
export const until = (what: string, done: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 200) =>
  Effect.promise(async () => {
    const deadline = Date.now() + timeoutMs
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, everyMs))
    }
  })

/** The value of the first line of the daemon's /metrics that `line` matches. */
export const metric = async (port: number, line: RegExp) => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const found = text.split("\n").find((l) => line.test(l))
  return found === undefined ? undefined : Number(found.split(" ").at(-1))
}

/** A simulator stack, closed when the test's scope ends. */
export const scopedStack = (options: StackOptions = {}) =>
  Effect.acquireRelease(Effect.promise(() => startStack(options)), (s) => Effect.promise(() => s.close()))

/**
 * The daemon, in this process, against `stack` on a free port and on the database `database` (built for
 * the test's scope, and answered as `db`): it pulls every
 * second and reconciles on `reconcile`. Its log lines from `logLevel` up are kept in `lines`.
 */
export const daemonInProcess = (
  stack: Stack,
  database: Layer.Layer<Db>,
  { logLevel = LogLevel.Info, reconcile = "*/2 * * * * *" }: { readonly logLevel?: LogLevel.LogLevel; readonly reconcile?: string } = {}
) =>
  Effect.gen(function*() {
    const db = yield* Layer.build(database)
    const port = yield* Effect.promise(() => freePort())
    const config = yield* loadConfig(writeDaemonConfig(stack, port, { pull: "*/1 * * * * *", reconcile }), {})
    const lines: Array<string> = []
    const logged = Layer.merge(
      Logger.replace(Logger.defaultLogger, Logger.map(Logger.jsonLogger, (line) => void lines.push(line))),
      Logger.minimumLogLevel(logLevel)
    )
    yield* Layer.build(DaemonLive(config, { idle: "200 millis" }).pipe(Layer.provide(Layer.succeedContext(db)))).pipe(
      Effect.provide(logged)
    )
    return { port, config, lines, db }
  })

/** Drives the stack until `count` orders are fulfilled: each drafted once at the POD service and fulfilled once in the store. */
export const fulfilsEachOrderOnce = (stack: Stack, port: number, count: number, timeoutMs: number) =>
  Effect.promise(async () => {
    const final = await driveUntil(stack, () => statusOf(port), (s) => s.fulfilled === count, timeoutMs)
    expect(final).toEqual({ fulfilled: count })
    const stats = await getJson(`${stack.pod.url}/__sim/stats`)
    expect(Object.keys(stats.draftsByReferenceId)).toHaveLength(count)
    expect(stats.duplicateReferenceIds).toEqual([])
    const shop = await getJson(`${stack.shopify.url}/__sim/stats`)
    expect(Object.values(shop.fulfillmentsByOrder).every((n) => n === 1)).toBe(true)
  })
