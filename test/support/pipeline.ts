import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { afterAll, beforeAll, expect } from "vitest"
import { type RunningPodSimulator, startPodSimulator } from "../../src/simulator/pod/index.js"
import { type RunningShopifySimulator, startShopifySimulator } from "../../src/simulator/shopify/index.js"
import { exited, freePort, spawnPodsync, tempDir, waitForHttp } from "./cli.js"
import { seedDataDir } from "./databaseTemplate.js"

/** The demo mapping: store SKUs that the seeded POD catalog carries, one ignored gift-wrap line. */
export const MAPPED_SKUS = ["UTS01-FOREST-S", "UTS01-DARKHE-M", "UTS01-MILITA-S", "UTS01-SPORTG-S", "UTS01-CHARCO-S", "UTS01-WHITE-S"]

export interface Stack {
  readonly pod: RunningPodSimulator
  readonly shopify: RunningShopifySimulator
  readonly dir: string
  readonly mappingFile: string
  readonly close: () => Promise<void>
}

export interface StackOptions {
  readonly podRateLimit?: false
  /** Shopify's cost bucket; default a Plus-sized one (see below). */
  readonly shopifyBucket?: { readonly maximumAvailable: number; readonly restoreRate: number }
}

export const startStack = async (options: StackOptions = {}): Promise<Stack> => {
  const pod = await startPodSimulator(options.podRateLimit === false ? { rateLimit: false } : {})
  // A Plus-sized cost bucket: these tests are about exactly-once, not about Shopify's pacing
  // (the connector's own tests cover that), and a Standard bucket paces 200 fulfillments to minutes.
  const shopify = await startShopifySimulator({ bucket: options.shopifyBucket ?? { maximumAvailable: 20_000, restoreRate: 1_000 } })
  const dir = tempDir("pipeline")
  // The daemons' embedded database (`dataDir` below), migrated already: what a first start would make of it.
  seedDataDir(path.join(dir, "data"))
  const mappingFile = path.join(dir, "mappings.csv")
  fs.copyFileSync("config/mappings/demo-shopify.csv", mappingFile)
  return {
    pod,
    shopify,
    dir,
    mappingFile,
    close: async () => {
      await Promise.all([pod.close(), shopify.close()])
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

/**
 * A stack started before the enclosing suite's tests and closed after them. What it returns reads
 * through to that stack, so a suite uses it as it would the stack itself, once `beforeAll` has run.
 */
export const sharedStack = (options: StackOptions = {}): Stack => {
  let started: Stack | undefined
  beforeAll(async () => {
    started = await startStack(options)
  })
  afterAll(async () => started?.close())
  return new Proxy({} as Stack, {
    get: (_, key) => {
      if (started === undefined) throw new Error("the stack is used before the suite's beforeAll started it")
      return started[key as keyof Stack]
    }
  })
}

/** The POD simulator's API credentials, under the default header pair. */
export const podHeaders = { "X-Gearment-Client-Key": "sim-client-key", "X-Gearment-Client-Secret": "sim-client-secret" }

/** Polls `read` every 500 ms (a failed read counts as not yet) until `done` holds; fails after `timeoutMs`. */
export const waitFor = async <A>(read: () => Promise<A>, done: (a: A) => boolean, timeoutMs: number): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read().catch(() => undefined)
    if (value !== undefined && done(value)) return value
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms; last ${JSON.stringify(value)}`)
    await new Promise((r) => setTimeout(r, 500))
  }
}

/** A daemon config against the stack; `database` a Postgres URL (one schema per test) or the embedded default. */
export interface DaemonConfigOptions {
  readonly databaseUrl?: string
  readonly name?: string
  /** Cron expressions; a seconds field is allowed. Default: every 2 s. */
  readonly pull?: string
  readonly reconcile?: string
  /** Subscribe the daemon to the POD simulator's webhooks (verified with the default key, the API client secret). */
  readonly podWebhooks?: boolean
  /** `pipeline.leaseSeconds`: how long a claim lasts without a heartbeat (default 60). */
  readonly leaseSeconds?: number
}

export const writeDaemonConfig = (stack: Stack, port: number, options: DaemonConfigOptions = {}) => {
  const file = path.join(stack.dir, `${options.name ?? "podsync"}.yaml`)
  fs.writeFileSync(
    file,
    [
      ...(options.databaseUrl ? ["database:", `  url: "${options.databaseUrl}"`] : []),
      `dataDir: ${path.join(stack.dir, "data")}`,
      "log:",
      "  level: ${PODSYNC_LOG_LEVEL:-warning}",
      "server:",
      "  host: 127.0.0.1",
      `  port: ${port}`,
      "pod:",
      `  baseUrl: ${stack.pod.url}`,
      "  clientKey: sim-client-key",
      "  clientSecret: sim-client-secret",
      "  timeoutMs: 5000",
      ...(options.podWebhooks
        ? [
          "  webhooks:",
          // Signed with pod.clientSecret and sent with pod.clientKey, as the service (and the simulator) does.
          `    publicUrl: http://127.0.0.1:${port}/webhooks/pod`
        ]
        : []),
      "stores:",
      "  - key: demo-shopify",
      "    platform: shopify",
      "    podStoreId: store-demo",
      "    shopify:",
      "      shop: acme.myshopify.com",
      "      accessToken: shpat_sim_token",
      "      webhookSecret: shopify-sim-webhook-secret",
      `      baseUrl: ${stack.shopify.url}`,
      `    mappings: ${stack.mappingFile}`,
      "schedules:",
      `  pull: "${options.pull ?? "*/2 * * * * *"}"`,
      `  reconcile: "${options.reconcile ?? "*/2 * * * * *"}"`,
      '  catalog: "0 0 * * * *"',
      '  report: "0 0 6 * * *"',
      "reports:",
      `  dir: ${path.join(stack.dir, "reports")}`,
      ...(options.leaseSeconds === undefined ? [] : ["pipeline:", `  leaseSeconds: ${options.leaseSeconds}`])
    ].join("\n")
  )
  return file
}

export const post = async (url: string, body: unknown = {}) => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return response.json() as Promise<any>
}

export const getJson = async (url: string) => (await fetch(url)).json() as Promise<any>

/** The total of the one POD draft made for `referenceId` at the POD simulator, in units (fails when there is not exactly one). */
export const draftTotalAt = async (podUrl: string, referenceId: string): Promise<number> => {
  const found = await (await fetch(
    `${podUrl}/api/v3/orders/draft?filter.reference_ids=${encodeURIComponent(referenceId)}`,
    { headers: podHeaders }
  )).json() as any
  if (found?.data?.length !== 1) throw new Error(`${referenceId}: ${found?.data?.length ?? 0} drafts at the POD service, not 1`)
  const draft = await (await fetch(`${podUrl}/api/v3/orders/draft/${found.data[0].order_id}`, { headers: podHeaders })).json() as any
  const total = draft.data.order_total as { units?: string | number; nanos?: number }
  return Number(total.units ?? 0) + (total.nanos ?? 0) / 1e9
}

/** Creates `count` paid Shopify orders, one mapped POD line each (SKUs cycling through the mapping). */
export const createOrders = async (stack: Stack, count: number, extra: Record<string, unknown> = {}) => {
  const ids: Array<string> = []
  for (let i = 0; i < count; i++) {
    const sku = MAPPED_SKUS[i % MAPPED_SKUS.length]!
    const order = await post(`${stack.shopify.url}/__sim/orders`, {
      financialStatus: "PAID",
      lineItems: [{
        sku,
        title: "Podsync Tee",
        quantity: 1 + (i % 2),
        price: "24.00",
        customAttributes: [{ key: "design_front", value: `https://cdn.example.com/d/${i}.png` }]
      }],
      ...extra
    })
    ids.push(String(order.legacyResourceId))
  }
  return ids
}

export interface StatusCounts {
  readonly [state: string]: number
}

export const statusOf = async (port: number): Promise<StatusCounts> => {
  const body = await getJson(`http://127.0.0.1:${port}/status`)
  const counts: Record<string, number> = {}
  for (const row of body.orders as Array<{ state: string; count: number }>) counts[row.state] = (counts[row.state] ?? 0) + row.count
  return counts
}

/** Polls until `done(status)` holds, driving the POD simulator's checkout and shipping on each turn. */
export const driveUntil = async (
  stack: Stack,
  read: () => Promise<StatusCounts>,
  done: (counts: StatusCounts) => boolean,
  timeoutMs: number
): Promise<StatusCounts> => {
  const deadline = Date.now() + timeoutMs
  let last: StatusCounts = {}
  for (;;) {
    try {
      last = await read()
      if (done(last)) return last
    } catch {
      // the daemon may be restarting
    }
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms; last status ${JSON.stringify(last)}`)
    await post(`${stack.pod.url}/__sim/checkout-all`, { paid: true }).catch(() => undefined)
    await post(`${stack.pod.url}/__sim/ship-all`).catch(() => undefined)
    await new Promise((r) => setTimeout(r, 1_000))
  }
}

export const startDaemon = async (config: string, port: number, env: Record<string, string> = {}) => {
  const daemon = spawnPodsync(["start", "--config", config], env)
  // Ready, or ended before it was: a daemon that refused its config fails the test at once, with
  // what it printed, not after the whole wait.
  const ready = waitForHttp(`http://127.0.0.1:${port}/readyz`, 90_000).then(() => undefined)
  ready.catch(() => undefined)
  const ended = exited(daemon).then(({ code, signal }) => new Error(`the daemon ended (${signal ?? `exit ${code}`}) before it was ready`))
  const failed = await Promise.race([ready, ended]).catch((error: unknown) => error as Error)
  if (failed !== undefined) {
    daemon.kill("SIGKILL")
    throw new Error(`${failed.message}\n${daemon.output()}`)
  }
  return daemon
}

export { exited, freePort }

/** Stops daemons with SIGTERM and waits until they have exited. */
export const stopDaemons = async (...daemons: ReadonlyArray<ReturnType<typeof spawnPodsync>>) => {
  for (const daemon of daemons) daemon.kill("SIGTERM")
  await Promise.all(daemons.map(exited))
}

/**
 * The exactly-once outcome of a run over the Shopify orders `ids`: one draft each at the POD service,
 * none twice, and one fulfilment each in the store. Answers both simulators' stats for what a test checks beside.
 */
export const expectEachOrderOnce = async (stack: Stack, ids: ReadonlyArray<string>) => {
  const pod = await getJson(`${stack.pod.url}/__sim/stats`)
  expect(pod.duplicateReferenceIds).toEqual([])
  expect(Object.keys(pod.draftsByReferenceId)).toHaveLength(ids.length)
  const shop = await getJson(`${stack.shopify.url}/__sim/stats`)
  expect(Object.keys(shop.fulfillmentsByOrder).sort()).toEqual([...ids].sort())
  expect(Object.values(shop.fulfillmentsByOrder).every((n) => n === 1)).toBe(true)
  return { pod, shop }
}

/**
 * A suite of replicas on the test PostgreSQL (`url`): a stack, and a schema of the suite's own that
 * the replicas' `databaseUrl` points at, made before the suite's tests and dropped after them, with an
 * admin connection to read it.
 */
export const replicaSuite = (url: string | undefined, prefix: string, options: StackOptions = {}) => {
  const schema = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  const admin = new pg.Client({ connectionString: url })
  const suite = { stack: undefined as unknown as Stack, schema, admin, databaseUrl: `${url}?options=-c%20search_path%3D${schema}` }
  beforeAll(async () => {
    suite.stack = await startStack(options)
    await admin.connect()
    await admin.query(`create schema "${schema}"`)
  })
  afterAll(async () => {
    await admin.query(`drop schema if exists "${schema}" cascade`)
    await admin.end()
    await suite.stack.close()
  })
  return suite
}

/** A free port for a daemon, and its config against `stack` there. */
export const daemonConfig = async (stack: Stack, options: DaemonConfigOptions = {}) => {
  const port = await freePort()
  return { port, config: writeDaemonConfig(stack, port, options) }
}
