// One podsync daemon inside the benchmark's process: `Layer.launch(daemonLayer(config))` forked
// in this runtime, against the simulators, on real PostgreSQL (a fresh schema, dropped afterwards)
// or on PGlite in a temporary data directory.
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Fiber, Layer, Logger, LogLevel, Schema } from "effect"
import pg from "pg"
import { loggerLayer } from "../src/cli/AppRuntime.js"
import { daemonLayer } from "../src/app/DaemonLive.js"
import { AppConfig } from "../src/config/AppConfig.js"

export type Database = { readonly kind: "postgres"; readonly url: string } | { readonly kind: "pglite" }

export interface DaemonSettings {
  readonly podUrl: string
  readonly shopifyUrl: string
  readonly database: Database
  /** Raise `pod.rateLimit.requests` to 1,000,000 per 10 s (for a simulator whose limit is lifted). */
  readonly podLimitLifted: boolean
  /** Subscribe the daemon's `/webhooks/pod` at the POD service (pod.webhooks.publicUrl). */
  readonly podWebhooks: boolean
  /** The POD topics subscribed (default: all seven). */
  readonly podWebhookTopics?: ReadonlyArray<string>
  readonly schedules: { readonly pull: string; readonly reconcile: string }
  /** The mapping CSV copied into the run's directory. */
  readonly mappingSource: string
  /**
   * Where the daemon's log lines go instead of stderr (JSON lines there), from which level on:
   * a benchmark that keeps them out of its output. Default: stderr at warning.
   */
  readonly log?: { readonly logger: Logger.Logger<unknown, void>; readonly level: "debug" | "info" | "warning" | "error" }
}

export interface RunningDaemon {
  /** Date.now() when the daemon was launched. */
  readonly startedAt: number
  readonly port: number
  readonly url: string
  readonly storeKey: string
  /** Set for PostgreSQL: the application_name of the daemon's connections (to find its server processes). */
  readonly applicationName?: string
  /** Set for PostgreSQL: the run's schema (dropped by `stop`). */
  readonly schema?: string
  readonly stop: () => Promise<void>
}

export const STORE_KEY = "bench-shopify"
// The simulators' defaults.
const SHOPIFY_WEBHOOK_SECRET = "shopify-sim-webhook-secret"
// Never during a run: the catalog is read once at start, and no report is written.
const YEARLY = "0 0 0 1 1 *"

/**
 * A daemon writes the previous day's report a minute after it starts, if none was written
 * (src/reports/ReportSchedule.ts): a one-off that reads the POD service and the store. A run that
 * must not count it waits this long after launch before its orders come.
 */
export const REPORT_CATCH_UP_MS = 65_000

const LOG_LEVELS = { debug: LogLevel.Debug, info: LogLevel.Info, warning: LogLevel.Warning, error: LogLevel.Error } as const

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

const withClient = async <A>(url: string, f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

const withParams = (url: string, params: Record<string, string>) => {
  const parsed = new URL(url)
  for (const [key, value] of Object.entries(params)) parsed.searchParams.set(key, value)
  return parsed.toString()
}

const waitUntilReady = async (url: string, fiber: Fiber.RuntimeFiber<unknown, unknown>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const exit = fiber.unsafePoll()
    if (exit !== null) throw new Error(`the daemon stopped while starting: ${Exit.isFailure(exit) ? String(exit.cause) : "exited"}`)
    const ready = await fetch(`${url}/readyz`).then((r) => r.ok, () => false)
    if (ready) return
    if (Date.now() > deadline) throw new Error(`the daemon was not ready within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Starts a daemon and waits for /readyz. `stop` interrupts it (layers close) and removes its schema or data directory. */
export const startDaemon = async (settings: DaemonSettings): Promise<RunningDaemon> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-bench-"))
  const mappings = path.join(dir, "mappings.csv")
  fs.copyFileSync(settings.mappingSource, mappings)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const suffix = randomUUID().replaceAll("-", "").slice(0, 12)
  const schema = `bench_${suffix}`
  const applicationName = `podsync-bench-${suffix}`
  const database = settings.database
  if (database.kind === "postgres") await withClient(database.url, (c) => c.query(`create schema "${schema}"`))

  const raw = {
    ...(database.kind === "postgres"
      ? { database: { url: withParams(database.url, { options: `-c search_path=${schema}`, application_name: applicationName }) } }
      : {}),
    dataDir: path.join(dir, "data"),
    log: { level: settings.log?.level ?? "warning" },
    server: { host: "127.0.0.1", port },
    pod: {
      baseUrl: settings.podUrl,
      clientKey: "sim-client-key",
      clientSecret: "sim-client-secret",
      timeoutMs: 10_000,
      ...(settings.podLimitLifted ? { rateLimit: { requests: 1_000_000, windowSeconds: 10, blockSeconds: 60, headroom: 0 } } : {}),
      ...(settings.podWebhooks
        ? { webhooks: { publicUrl: `${url}/webhooks/pod`, ...(settings.podWebhookTopics ? { topics: settings.podWebhookTopics } : {}) } }
        : {})
    },
    stores: [{
      key: STORE_KEY,
      platform: "shopify",
      podStoreId: "store-bench",
      shopify: {
        shop: "acme.myshopify.com",
        accessToken: "shpat_sim_token",
        webhookSecret: SHOPIFY_WEBHOOK_SECRET,
        baseUrl: settings.shopifyUrl
      },
      mappings
    }],
    schedules: { ...settings.schedules, catalog: YEARLY, report: YEARLY },
    reports: { dir: path.join(dir, "reports") }
  }
  const config = Schema.decodeUnknownSync(AppConfig)(raw)
  const startedAt = Date.now()
  const logging = settings.log === undefined
    ? loggerLayer(config.log.level)
    : Layer.merge(
      Logger.replace(Logger.defaultLogger, settings.log.logger),
      Logger.minimumLogLevel(LOG_LEVELS[settings.log.level])
    )
  const fiber = Effect.runFork(Layer.launch(daemonLayer(config)).pipe(Effect.provide(logging)))

  const cleanUp = async () => {
    if (database.kind === "postgres") await withClient(database.url, (c) => c.query(`drop schema if exists "${schema}" cascade`))
    fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitUntilReady(url, fiber, 120_000)
  } catch (error) {
    await Effect.runPromise(Fiber.interrupt(fiber))
    await cleanUp()
    throw error
  }
  return {
    startedAt,
    port,
    url,
    storeKey: STORE_KEY,
    ...(database.kind === "postgres" ? { applicationName, schema } : {}),
    stop: async () => {
      await Effect.runPromise(Fiber.interrupt(fiber))
      await cleanUp()
    }
  }
}
