// What the pipeline benchmark reads: the simulators' admin endpoints, the daemon's /status, CPU
// time (this process, and the PostgreSQL server processes serving the daemon's connections), and
// percentiles.
import * as fs from "node:fs"
import * as os from "node:os"
import pg from "pg"

export const post = async (url: string, body: unknown = {}): Promise<any> => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return response.json()
}

export const getJson = async (url: string, headers: Record<string, string> = {}): Promise<any> => {
  const response = await fetch(url, { headers })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return response.json()
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Orders by state, as the daemon's /status counts them. */
/**
 * The daemon's look-ups before a first draft (drafts and orders by reference id, LookUpStage.ts), from
 * its /metrics: the same paths as reconciliation's lists at the simulator, told apart by operation.
 */
export const lookUpCalls = async (daemonUrl: string): Promise<{ readonly drafts: number; readonly orders: number }> => {
  const text = await (await fetch(`${daemonUrl}/metrics`)).text()
  const sum = (operation: string) =>
    text.split("\n").filter((l) => l.startsWith("podsync_pod_requests_total{") && l.includes(`operation="${operation}"`))
      .reduce((total, l) => total + Number(l.split(" ").at(-1)), 0)
  return { drafts: sum("drafts.lookUp"), orders: sum("orders.lookUp") }
}

export const statusCounts = async (daemonUrl: string): Promise<Record<string, number>> => {
  const body = await getJson(`${daemonUrl}/status`)
  const counts: Record<string, number> = {}
  for (const row of body.orders as Array<{ state: string; count: number }>) counts[row.state] = (counts[row.state] ?? 0) + row.count
  return counts
}

export interface PodStats {
  readonly total: number
  readonly requests: Readonly<Record<string, number>>
  readonly rejected429: number
  readonly drafts: number
  readonly orders: number
  readonly duplicateReferenceIds: ReadonlyArray<string>
  readonly webhooksQueued: number
}

export const podStats = (podUrl: string): Promise<PodStats> => getJson(`${podUrl}/__sim/stats`)

/** Requests per endpoint between two snapshots (endpoints with none left out). */
export const requestsBetween = (before: PodStats, after: PodStats): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [route, count] of Object.entries(after.requests)) {
    const delta = count - (before.requests[route] ?? 0)
    if (delta > 0) out[route] = delta
  }
  return out
}

/**
 * Waits until the POD simulator has seen no request for `quietMs` (and no webhook is queued);
 * `quiet` is false when `timeoutMs` passed first. `seconds`: until the last request seen.
 */
export const podQuiet = async (
  podUrl: string,
  quietMs: number,
  timeoutMs: number
): Promise<{ readonly stats: PodStats; readonly quiet: boolean; readonly seconds: number }> => {
  const started = Date.now()
  let last = await podStats(podUrl)
  let since = Date.now()
  for (;;) {
    await sleep(250)
    const now = await podStats(podUrl)
    if (now.total !== last.total || now.webhooksQueued > 0) {
      last = now
      since = Date.now()
    } else if (Date.now() - since >= quietMs) {
      return { stats: now, quiet: true, seconds: (since - started) / 1000 }
    }
    if (Date.now() - started > timeoutMs) return { stats: now, quiet: false, seconds: (Date.now() - started) / 1000 }
  }
}

/** The POD simulator's webhook delivery attempts, by answer status ("none": no answer). */
export const podDeliveries = async (podUrl: string) => {
  const attempts = (await getJson(`${podUrl}/__sim/webhooks/deliveries`)) as Array<
    { readonly delivery_id: string; readonly status: number | null }
  >
  const byStatus: Record<string, number> = {}
  for (const a of attempts) byStatus[String(a.status ?? "none")] = (byStatus[String(a.status ?? "none")] ?? 0) + 1
  return { deliveries: new Set(attempts.map((a) => a.delivery_id)).size, attempts: attempts.length, byStatus }
}

export interface ShopifyStats {
  readonly requests: number
  readonly throttled: number
  readonly costSpent: number
  /** Executed mutations per root field. */
  readonly mutations: Readonly<Record<string, number>>
  readonly fulfillmentsByOrder: Readonly<Record<string, number>>
}

export const shopifyStats = (shopifyUrl: string): Promise<ShopifyStats> => getJson(`${shopifyUrl}/__sim/stats`)

/** Nearest-rank percentile of a non-empty list. */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)))
  return sorted[rank - 1]!
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits

const ticksPerSecond = 100 // USER_HZ on Linux

/** CPU seconds (user + system) a process has used, from /proc; undefined once it is gone. */
const processCpuSeconds = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name (which may hold spaces) start at state; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
  } catch {
    return undefined
  }
}

/**
 * CPU time of the PostgreSQL server processes serving the daemon's connections (found by their
 * application_name). Sampled on each `sample()`: a backend is credited from its first sample (or
 * from zero if it appeared after `start`) to its last, so a backend that closes between samples
 * loses at most one interval. Linux only, and only when the server runs on this machine.
 */
export const postgresBackendCpu = async (url: string, applicationName: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const first = new Map<number, number>()
  const last = new Map<number, number>()
  let started = false
  const sample = async () => {
    const rows =
      (await client.query<{ pid: number }>("select pid from pg_stat_activity where application_name = $1", [applicationName])).rows
    for (const { pid } of rows) {
      const cpu = processCpuSeconds(pid)
      if (cpu === undefined) continue
      if (!first.has(pid)) first.set(pid, started ? 0 : cpu)
      last.set(pid, cpu)
    }
  }
  return {
    start: async () => {
      first.clear()
      last.clear()
      await sample()
      started = true
    },
    sample,
    /** CPU seconds since `start`, or undefined when /proc showed none of the backends (a remote server). */
    seconds: () => {
      if (last.size === 0) return undefined
      let total = 0
      for (const [pid, cpu] of last) total += cpu - (first.get(pid) ?? 0)
      return total
    },
    close: () => client.end()
  }
}

export type BackendCpu = Awaited<ReturnType<typeof postgresBackendCpu>>

export const loadAverage = () => os.loadavg().map((l) => round(l, 2))

/** Whether a PostgreSQL server answers at `url` (the benchmarks then run on it too). */
export const reachable = async (url: string) => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 })
  try {
    await client.connect()
    await client.query("select 1")
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}
