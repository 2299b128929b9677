// Runs one scenario of the budget benchmark: resets the POD simulator, spawns the replicas
// (compiled workers, dist/bench/budget-worker.js), and measures at the simulator.
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Option, Redacted } from "effect"
import pg from "pg"
import type { RateLimitSettings } from "../src/budget/SlotLog.js"
import { DbLive } from "../src/db/Db.js"
import { migrateToLatest } from "../src/db/Migrator.js"
import type { BudgetWorkerConfig, BudgetWorkerResult, LimiterKind } from "./budget-worker.js"

export interface Scenario {
  readonly name: string
  readonly limiter: LimiterKind
  readonly replicas: number
  /** budget only */
  readonly headroom: number
}

export interface ScenarioOptions {
  readonly simUrl: string
  readonly seconds: number
  /** The service's limit; our budget is configured with the same numbers. */
  readonly service: { readonly requests: number; readonly windowSeconds: number; readonly blockSeconds: number }
  readonly latencyMs: readonly [number, number] | null
  /** Required when a budget scenario has more than one replica. */
  readonly databaseUrl?: string | undefined
  readonly callersPerReplica: number
  /** Called once every replica is sending (e.g. to inject a fault). */
  readonly whileRunning?: (simUrl: string) => Promise<void>
}

export interface ScenarioResult {
  readonly name: string
  readonly limiter: LimiterKind
  readonly replicas: number
  readonly headroom: number | null
  readonly seconds: number
  /** Requests the simulator accepted during the measured seconds. */
  readonly accepted: number
  readonly acceptedPerSecond: number
  /** acceptedPerSecond ÷ (requests / windowSeconds) */
  readonly utilisation: number
  readonly rejected429: number
  /** Utilisation from the end of the first window to the end: without the first window's burst. */
  readonly steadyUtilisation: number | null
  /**
   * budget only: L ÷ the mean time between a send and the L-th send after it (one slot's cycle:
   * window + round trip), ÷ the full rate. The long-run figure, free of where the run stops.
   */
  readonly cycleUtilisation: number | null
  /** budget only: mean time from a slot freeing (answer + window) to its reuse, as the replicas measured it. */
  readonly meanReuseDelayMs: number | null
  /** Mean time from a slot's grant to its answer, as the replicas measured it. */
  readonly meanRoundTripMs: number
  /** The most requests the simulator saw (accepted or refused) in any window. */
  readonly maxInWindow: number
  readonly workers: ReadonlyArray<BudgetWorkerResult>
}

interface Stats {
  readonly total: number
  readonly accepted: number
  readonly rejected429: number
  readonly maxInWindow: number
}

const here = path.dirname(fileURLToPath(import.meta.url))
/** The compiled worker, whether this file runs compiled (dist/bench) or as source under vitest (bench). */
export const workerScript = here.includes(`${path.sep}dist${path.sep}`)
  ? path.join(here, "budget-worker.js")
  : path.join(here, "..", "dist", "bench", "budget-worker.js")

const admin = async <A>(url: string, method: string, route: string, body?: unknown): Promise<A> => {
  const response = await fetch(`${url}/__sim${route}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`simulator ${method} ${route} → ${response.status}: ${text}`)
  return (text === "" ? undefined : JSON.parse(text)) as A
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

const withSchema = async <A>(url: string, f: (schema: string) => Promise<A>): Promise<A> => {
  const schema = `bench_budget_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(`create schema "${schema}"`)
  try {
    await Effect.runPromise(
      Effect.scoped(migrateToLatest).pipe(
        Effect.provide(DbLive({ url: Option.some(Redacted.make(url)), dataDir: "unused", schema })),
        Effect.asVoid
      )
    )
    return await f(schema)
  } finally {
    await client.query(`drop schema if exists "${schema}" cascade`)
    await client.end()
  }
}

interface RunningWorker {
  readonly ready: Promise<void>
  readonly start: (startAt: number) => void
  readonly result: Promise<BudgetWorkerResult>
}

const runWorker = (config: BudgetWorkerConfig): RunningWorker => {
  const child = spawn(process.execPath, [workerScript, JSON.stringify(config)], { stdio: ["ignore", "pipe", "pipe", "ipc"] })
  let output = ""
  // PODSYNC_BENCH_VERBOSE=1 shows the workers' logs as they come.
  const verbose = process.env.PODSYNC_BENCH_VERBOSE === "1"
  const collect = (chunk: Buffer) => {
    output += chunk.toString()
    if (verbose) process.stderr.write(chunk)
  }
  child.stdout!.on("data", collect)
  child.stderr!.on("data", collect)
  const result = new Promise<BudgetWorkerResult>((resolve, reject) => {
    child.on("error", reject)
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`budget worker exited with ${code}:\n${output.slice(-4000)}`))
      try {
        resolve(JSON.parse(fs.readFileSync(config.resultFile, "utf8")) as BudgetWorkerResult)
        fs.rmSync(config.resultFile, { force: true })
      } catch (error) {
        reject(error)
      }
    })
  })
  const ready = new Promise<void>((resolve, reject) => {
    child.on("message", (message: { type?: string }) => message.type === "ready" && resolve())
    result.then(() => reject(new Error("budget worker ended before it was ready")), reject)
  })
  return { ready, start: (startAt) => child.send({ type: "start", startAt }), result }
}

export const runScenario = async (scenario: Scenario, options: ScenarioOptions): Promise<ScenarioResult> => {
  const shared = scenario.limiter === "budget" && scenario.replicas > 1
  if (shared && options.databaseUrl === undefined) throw new Error(`${scenario.name} needs a PostgreSQL database (TEST_DATABASE_URL)`)
  const run = async (schema: string | undefined): Promise<ScenarioResult> => {
    const sim = options.simUrl
    await admin(sim, "POST", "/reset")
    await admin(sim, "POST", "/rate-limit", options.service)
    if (options.latencyMs !== null) await admin(sim, "POST", "/faults", { kind: "latency", latencyMs: options.latencyMs })
    const rateLimit: RateLimitSettings = { ...options.service, headroom: scenario.headroom }
    const workers = Array.from({ length: scenario.replicas }, () =>
      runWorker({
        simUrl: sim,
        limiter: scenario.limiter,
        database: schema === undefined ? undefined : { url: options.databaseUrl!, schema },
        credential: "bench",
        rateLimit,
        seconds: options.seconds,
        callers: options.callersPerReplica,
        resultFile: path.join(os.tmpdir(), `podsync-budget-${process.pid}-${randomUUID()}.json`)
      }))
    const finished = Promise.all(workers.map((w) => w.result))
    finished.catch(() => undefined)
    // Replicas boot at their own pace (seconds on a busy machine); they start sending together.
    await Promise.all(workers.map((w) => w.ready))
    const startAt = Date.now() + 500
    for (const worker of workers) worker.start(startAt)
    await sleep(startAt - Date.now())
    const before = await admin<Stats>(sim, "GET", "/stats")
    const running = options.whileRunning?.(sim)
    const windowMs = options.service.windowSeconds * 1000
    const steadyFrom = options.seconds * 1000 >= 2 * windowMs
      ? await sleep(startAt + windowMs - Date.now()).then(() => admin<Stats>(sim, "GET", "/stats"))
      : undefined
    await running
    await sleep(startAt + options.seconds * 1000 - Date.now())
    const atDeadline = await admin<Stats>(sim, "GET", "/stats")
    const results = await finished
    const after = await admin<Stats>(sim, "GET", "/stats")
    const accepted = atDeadline.accepted - before.accepted
    const perSecond = accepted / options.seconds
    const fullRate = options.service.requests / options.service.windowSeconds
    const steadyUtilisation = steadyFrom === undefined
      ? null
      : (atDeadline.accepted - steadyFrom.accepted) / (options.seconds - options.service.windowSeconds) / fullRate
    const sends = results.flatMap((w) => w.sends).sort((a, b) => a[0] - b[0])
    const answered = sends.filter(([, , status]) => status !== 0)
    const meanRoundTripMs = answered.reduce((sum, [sent, done]) => sum + done - sent, 0) / Math.max(1, answered.length)
    const limit = Math.floor(rateLimit.requests * (1 - rateLimit.headroom) + 1e-9)
    let cycleUtilisation: number | null = null
    let meanReuseDelayMs: number | null = null
    if (scenario.limiter === "budget" && sends.length > 2 * limit) {
      let cycles = 0
      let reuse = 0
      const frees = sends.map(([, done]) => done + windowMs).sort((a, b) => a - b)
      for (let k = 0; k + limit < sends.length; k++) {
        cycles += sends[k + limit]![0] - sends[k]![0]
        reuse += sends[k + limit]![0] - frees[k]!
      }
      const meanCycleMs = cycles / (sends.length - limit)
      cycleUtilisation = Math.round(((limit / meanCycleMs) * 1000 / fullRate) * 1000) / 1000
      meanReuseDelayMs = Math.round(reuse / (sends.length - limit))
    }
    return {
      name: scenario.name,
      limiter: scenario.limiter,
      replicas: scenario.replicas,
      headroom: scenario.limiter === "budget" ? scenario.headroom : null,
      seconds: options.seconds,
      accepted,
      acceptedPerSecond: Math.round(perSecond * 1000) / 1000,
      utilisation: Math.round((perSecond / fullRate) * 1000) / 1000,
      steadyUtilisation: steadyUtilisation === null ? null : Math.round(steadyUtilisation * 1000) / 1000,
      cycleUtilisation,
      meanRoundTripMs: Math.round(meanRoundTripMs),
      meanReuseDelayMs,
      rejected429: after.rejected429,
      maxInWindow: after.maxInWindow,
      workers: results
    }
  }
  return shared ? withSchema(options.databaseUrl!, run) : run(undefined)
}
