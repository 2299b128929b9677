// The POD and Shopify simulators for the pipeline benchmark, in a child process of their own:
// the benchmark's process then holds only the daemon (and a light driver loop), so its CPU time
// is the daemon's. Talks to its parent over the IPC channel.
//
//   parent → { type: "cpu" }   child → { type: "cpu", user, system }   (microseconds, this process)
//   parent → { type: "drive", intervalMs }   child checks out and ships everything at the POD simulator every intervalMs
//   parent → { type: "drafts" } child → { type: "drafts", drafts }   (drafts the POD simulator holds)
//   parent → { type: "stop" }  child closes both simulators and exits
//   child → { type: "ready", podUrl, shopifyUrl } once both listen
import { fork } from "node:child_process"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"
import { startPodSimulator } from "../src/simulator/pod/index.js"
import { startShopifySimulator } from "../src/simulator/shopify/index.js"

export interface SimsOptions {
  /** Lift the POD simulator's 100 requests / 10 s limit. */
  readonly podLimitLifted: boolean
  /** Lift the Shopify simulator's query-cost bucket (default: Shopify's Standard plan, 2,000 points, 100/s). */
  readonly shopifyBucketLifted: boolean
}

export interface RunningSims {
  readonly podUrl: string
  readonly shopifyUrl: string
  /** CPU time the simulators' process has used so far, in microseconds. */
  readonly cpuMicros: () => Promise<number>
  /**
   * Starts the driver loop in the simulators' process (so that its CPU is not counted as the daemon's):
   * every `intervalMs`, every draft is checked out (paid) and every order in production shipped.
   */
  readonly drive: (intervalMs: number) => void
  /** Drafts the POD simulator holds now. */
  readonly drafts: () => Promise<number>
  readonly stop: () => Promise<void>
}

type FromChild =
  | { readonly type: "ready"; readonly podUrl: string; readonly shopifyUrl: string }
  | { readonly type: "cpu"; readonly user: number; readonly system: number }
  | { readonly type: "drafts"; readonly drafts: number }

/** Forks this file as a child process and waits until both simulators listen. */
export const startSims = (options: SimsOptions): Promise<RunningSims> =>
  new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(options)], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
    const cpuWaiters: Array<(micros: number) => void> = []
    const draftWaiters: Array<(drafts: number) => void> = []
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    child.once("error", reject)
    child.on("message", (message: FromChild) => {
      if (message.type === "cpu") cpuWaiters.shift()?.(message.user + message.system)
      if (message.type === "drafts") draftWaiters.shift()?.(message.drafts)
      if (message.type === "ready") {
        resolve({
          podUrl: message.podUrl,
          shopifyUrl: message.shopifyUrl,
          cpuMicros: () =>
            new Promise((answer) => {
              cpuWaiters.push(answer)
              child.send({ type: "cpu" })
            }),
          drive: (intervalMs) => child.send({ type: "drive", intervalMs }),
          drafts: () =>
            new Promise((answer) => {
              draftWaiters.push(answer)
              child.send({ type: "drafts" })
            }),
          stop: async () => {
            if (child.exitCode === null) child.send({ type: "stop" })
            const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
            await exited
            clearTimeout(timer)
          }
        })
      }
    })
    child.once("exit", (code) => reject(new Error(`the simulators' process exited early (code ${code})`)))
  })

const runChild = async (options: SimsOptions) => {
  const pod = await startPodSimulator(options.podLimitLifted ? { rateLimit: false } : {})
  const shopify = await startShopifySimulator(
    options.shopifyBucketLifted ? { bucket: { maximumAvailable: 1_000_000_000, restoreRate: 1_000_000_000 } } : {}
  )
  const post = (path: string, body: unknown) =>
    fetch(`${pod.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) =>
      r.text()
    )
  let driving = false
  const drive = async (intervalMs: number) => {
    while (driving) {
      await post("/__sim/checkout-all", { paid: true })
      await post("/__sim/ship-all", {})
      await sleep(intervalMs)
    }
  }
  process.on("message", (message: { readonly type: string; readonly intervalMs?: number }) => {
    if (message.type === "drive" && !driving) {
      driving = true
      void drive(message.intervalMs ?? 250)
    }
    if (message.type === "drafts") {
      void fetch(`${pod.url}/__sim/stats`).then((r) => r.json() as Promise<{ drafts: number }>)
        .then((stats) => process.send?.({ type: "drafts", drafts: stats.drafts }))
    }
    if (message.type === "cpu") {
      const usage = process.cpuUsage()
      process.send?.({ type: "cpu", user: usage.user, system: usage.system })
    }
    if (message.type === "stop") {
      driving = false
      void Promise.all([pod.close(), shopify.close()]).finally(() => process.exit(0))
    }
  })
  // The parent went away without saying stop: do not linger.
  process.on("disconnect", () => process.exit(0))
  process.send?.({ type: "ready", podUrl: pod.url, shopifyUrl: shopify.url })
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send !== undefined) {
  runChild(JSON.parse(process.argv[2] ?? "{}") as SimsOptions).catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
