// Benchmark of the shared rate budget against the POD simulator at the real limit (100 requests
// per 10 s, 1-minute block), saturated demand, 20–400 ms injected latency: ours with 1 replica
// (in-process) and 3 replicas (3 processes sharing PostgreSQL), and, as peers, a naive token
// bucket and Effect's RateLimiter. Figures are measured at the simulator.
//
//   npm run build && node dist/bench/budget.js [--seconds 60] [--only ours-1,naive,…] [--database-url URL]
//   (the database defaults to $TEST_DATABASE_URL, then $DATABASE_URL)
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { startPodSimulator } from "../src/simulator/pod/index.js"
import { runScenario, type Scenario, type ScenarioResult } from "./budget-scenario.js"

const scenarios: ReadonlyArray<Scenario & { readonly id: string }> = [
  { id: "ours-1", name: "budget, 1 replica, headroom 0", limiter: "budget", replicas: 1, headroom: 0 },
  { id: "ours-3", name: "budget, 3 replicas, headroom 0", limiter: "budget", replicas: 3, headroom: 0 },
  { id: "ours-1-default", name: "budget, 1 replica, headroom 0.05", limiter: "budget", replicas: 1, headroom: 0.05 },
  { id: "ours-3-default", name: "budget, 3 replicas, headroom 0.05", limiter: "budget", replicas: 3, headroom: 0.05 },
  { id: "naive", name: "naive token bucket (100 tokens, 10/s)", limiter: "naive-token-bucket", replicas: 1, headroom: 0 },
  { id: "effect-token-bucket", name: "Effect RateLimiter token-bucket 100/10 s", limiter: "effect-token-bucket", replicas: 1, headroom: 0 },
  { id: "effect-fixed-window", name: "Effect RateLimiter fixed-window 100/10 s", limiter: "effect-fixed-window", replicas: 1, headroom: 0 }
]

const service = { requests: 100, windowSeconds: 10, blockSeconds: 60 }
const latencyMs = [20, 400] as const
// The same demand whatever the number of replicas: 40 concurrent callers in all.
const callers = 40

const here = path.dirname(fileURLToPath(import.meta.url))
const root = here.includes(`${path.sep}dist${path.sep}`) ? path.join(here, "..", "..") : path.join(here, "..")

const main = async () => {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "60" },
      only: { type: "string" },
      "database-url": { type: "string" }
    }
  })
  const seconds = Number(values.seconds)
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error("--seconds must be a positive number")
  const databaseUrl = values["database-url"] ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL
  const only = values.only?.split(",").map((s) => s.trim())
  const selected = scenarios.filter((s) =>
    (only === undefined || only.includes(s.id)) &&
    (s.replicas === 1 || s.limiter !== "budget" || databaseUrl !== undefined)
  )
  const skipped = scenarios.filter((s) => !selected.includes(s)).map((s) => s.name)

  const sim = await startPodSimulator({ rateLimit: service })
  const results: Array<ScenarioResult> = []
  try {
    for (const scenario of selected) {
      process.stdout.write(`running: ${scenario.name} (${seconds} s)…\n`)
      const callersPerReplica = Math.ceil(callers / scenario.replicas)
      results.push(await runScenario(scenario, { simUrl: sim.url, seconds, service, latencyMs, databaseUrl, callersPerReplica }))
    }
  } finally {
    await sim.close()
  }

  const rows = results.map((r) => ({
    scenario: r.name,
    replicas: r.replicas,
    utilisation: r.utilisation.toFixed(3),
    "after 1st window": r.steadyUtilisation === null ? "-" : r.steadyUtilisation.toFixed(3),
    "slot cycles": r.cycleUtilisation === null ? "-" : r.cycleUtilisation.toFixed(3),
    "accepted/s": r.acceptedPerSecond.toFixed(2),
    "round trip ms": r.meanRoundTripMs,
    "reuse delay ms": r.meanReuseDelayMs ?? "-",
    "429s": r.rejected429,
    "max in 10 s": r.maxInWindow
  }))
  console.table(rows)
  if (skipped.length > 0) console.log(`skipped (no database, or not selected): ${skipped.join("; ")}`)

  const report = {
    benchmark: "shared POD rate budget",
    service,
    latencyMs,
    seconds,
    callers,
    note: "utilisation = requests the simulator accepted per second ÷ (requests / windowSeconds) over the run; " +
      "steadyUtilisation: the same from the end of the first window (no initial burst); " +
      "cycleUtilisation (budget only): L ÷ mean time between a send and the L-th next send, ÷ the full rate, " +
      "the long-run rate whatever the run's length; meanRoundTripMs: grant to answer, as the replicas saw it; " +
      "meanReuseDelayMs: from a slot freeing (answer + window) to its next grant; " +
      "429s and max in window are counted by the simulator over the whole run. Peers pause on a 429 for its Retry-After.",
    targets: { headroom0: "utilisation ≥ 0.95 with 0 429s", headroom005: "utilisation ≥ 0.93 with 0 429s" },
    node: process.version,
    loadAverageAtEnd: os.loadavg().map((n) => Math.round(n * 100) / 100),
    cpus: os.cpus().length,
    skipped,
    scenarios: results.map(({ workers, ...figures }) => ({
      ...figures,
      sentByReplica: workers.map((w) => w.sends.length),
      failures: workers.map((w) => w.failures)
    }))
  }
  const file = path.join(root, "bench", "results", "budget.json")
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`figures written to ${path.relative(process.cwd(), file)}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
