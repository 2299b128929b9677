import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runScenario, type ScenarioResult, workerScript } from "../../bench/budget-scenario.js"
import type { TracedSend } from "../../bench/budget-gates.js"
import { type RunningPodSimulator, startPodSimulator } from "../../src/simulator/pod/index.js"
import { simAdmin } from "./simAdmin.js"

const databaseUrl = process.env.TEST_DATABASE_URL
const service = { requests: 20, windowSeconds: 2, blockSeconds: 10 }
const forcedRetryAfterSeconds = 2

// Three OS processes (compiled workers: `npm run build` first) share one budget through the real
// PostgreSQL and saturate the simulator's strict sliding-window limit; midway the simulator
// answers one request 429 on its own.
describe.runIf(databaseUrl !== undefined)("three replicas sharing one PostgreSQL", () => {
  let sim: RunningPodSimulator
  let result: ScenarioResult
  let sends: Array<TracedSend>

  beforeAll(async () => {
    if (!fs.existsSync(workerScript)) throw new Error(`${workerScript} is missing: run npm run build first`)
    sim = await startPodSimulator({ rateLimit: service })
    result = await runScenario(
      { name: "3 replicas", limiter: "budget", replicas: 3, headroom: 0 },
      {
        simUrl: sim.url,
        seconds: 10,
        service,
        latencyMs: [20, 200],
        databaseUrl,
        callersPerReplica: 10,
        whileRunning: async (url) => {
          await new Promise((resolve) => setTimeout(resolve, 5000))
          await simAdmin(url, "POST", "/faults", {
            route: "GET /api/v3/catalog",
            kind: "rateLimit429",
            count: 1,
            retryAfterSeconds: forcedRetryAfterSeconds
          })
        }
      }
    )
    sends = result.workers.flatMap((w) => w.sends).sort((a, b) => a[0] - b[0])
  }, 120_000)
  afterAll(() => sim?.close())

  it("are never refused by the limit while saturating it", () => {
    // The only 429 is the one the simulator was told to send.
    expect(result.rejected429).toBe(1)
    expect(sends.filter(([, , status]) => status === 429)).toHaveLength(1)
    expect(result.maxInWindow).toBeLessThanOrEqual(service.requests)
    expect(result.maxInWindow).toBe(service.requests)
    // Every replica took part (how the slots split among replicas is not a guarantee).
    for (const worker of result.workers) expect(worker.sends.length).toBeGreaterThan(0)
  })

  it("all stop sending after one of them is answered 429, until its Retry-After has passed", () => {
    const [, refusedAt] = sends.find(([, , status]) => status === 429)!
    const pauseEnd = refusedAt + forcedRetryAfterSeconds * 1000
    // A grant already being decided when the 429 arrived may still go out in the next few ms.
    const duringPause = sends.filter(([sentAt]) => sentAt > refusedAt + 100 && sentAt < pauseEnd)
    expect(duringPause).toEqual([])
    // Then traffic resumes (within the jitter of at most 1 s).
    expect(sends.some(([sentAt]) => sentAt >= pauseEnd && sentAt <= pauseEnd + 1500)).toBe(true)
  })
})
