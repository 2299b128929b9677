/**
 * A short run of the compiled daemon (`bin/podsync.js start`, built into
 * dist/) with its POD base URL on the recording proxy: a Shopify simulator
 * with a handful of paid orders, the POD simulator checking out and shipping
 * whatever is drafted, until every order is fulfilled or the time is up.
 * With `podWebhooks` the daemon subscribes to the POD service's webhooks
 * (through the proxy) and the simulator delivers to it directly.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { Schema } from "effect"
import { stringify } from "yaml"
import { startShopifySimulator } from "../src/simulator/shopify/index.js"
import { SIM_CLIENT_KEY, SIM_CLIENT_SECRET } from "./ClientTour.js"

export interface DaemonRunOptions {
  readonly repoRoot: string
  /** The recording proxy in front of the POD simulator. */
  readonly podUrl: string
  /** The POD simulator itself, for its /__sim admin endpoints (not recorded). */
  readonly podAdminUrl: string
  readonly orders: number
  readonly timeoutMs: number
  readonly podWebhooks: boolean
  /** Whether the daemon's POD webhook subscription has been answered (orders wait for it, so events reach it). */
  readonly subscribed: () => boolean
}

export interface DaemonRunResult {
  readonly orders: number
  readonly fulfilled: number
  readonly finalStatus: Readonly<Record<string, number>>
  readonly seconds: number
  readonly podWebhooks: boolean
  /** With `podWebhooks`: whether the daemon subscribed before the orders came. */
  readonly subscribedBeforeOrders: boolean
  /** POD webhook deliveries the daemon answered 200, of all attempts. */
  readonly webhookDeliveries: { readonly accepted: number; readonly attempts: number }
  readonly error?: string
  /** The daemon's last output lines, when something went wrong. */
  readonly outputTail?: string
}

// The mapped SKUs of config/mappings/demo-shopify.csv (variants of the seeded POD catalog).
const MAPPED_SKUS = ["UTS01-FOREST-S", "UTS01-DARKHE-M", "UTS01-MILITA-S", "UTS01-SPORTG-S", "UTS01-CHARCO-S", "UTS01-WHITE-S"]
const READY_TIMEOUT_MS = 90_000
const SUBSCRIBE_TIMEOUT_MS = 30_000
const STOP_TIMEOUT_MS = 15_000

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const request = async (url: string, method = "GET", body?: unknown): Promise<unknown> => {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000)
  })
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${(await response.text()).slice(0, 300)}`)
  return response.json()
}

const StatusBody = Schema.Struct({ orders: Schema.Array(Schema.Struct({ state: Schema.String, count: Schema.Number })) })
const DeliveryAttempts = Schema.Array(Schema.Struct({ status: Schema.NullOr(Schema.Number) }))

/** Order counts by state from the daemon's GET /status. */
const statusOf = async (port: number): Promise<Record<string, number>> => {
  const { orders } = Schema.decodeUnknownSync(StatusBody)(await request(`http://127.0.0.1:${port}/status`))
  const counts: Record<string, number> = {}
  for (const row of orders) counts[row.state] = (counts[row.state] ?? 0) + row.count
  return counts
}

const writeConfig = (dir: string, port: number, shopifyUrl: string, o: DaemonRunOptions): string => {
  const mappings = path.join(dir, "mappings.csv")
  fs.copyFileSync(path.join(o.repoRoot, "config/mappings/demo-shopify.csv"), mappings)
  const config = {
    dataDir: path.join(dir, "data"),
    log: { level: "warning" },
    server: { host: "127.0.0.1", port },
    pod: {
      baseUrl: o.podUrl,
      clientKey: SIM_CLIENT_KEY,
      clientSecret: SIM_CLIENT_SECRET,
      timeoutMs: 5000,
      ...(o.podWebhooks
        // Signed with the API client secret and sent with the API client key, as the service does: no separate webhook credential.
        ? { webhooks: { publicUrl: `http://127.0.0.1:${port}/webhooks/pod` } }
        : {})
    },
    stores: [{
      key: "demo-shopify",
      platform: "shopify",
      podStoreId: "store-demo",
      shopify: {
        shop: "acme.myshopify.com",
        accessToken: "shpat_sim_token",
        webhookSecret: "shopify-sim-webhook-secret",
        baseUrl: shopifyUrl
      },
      mappings
    }],
    schedules: { pull: "*/2 * * * * *", reconcile: "*/2 * * * * *", catalog: "0 0 * * * *", report: "0 0 6 * * *" },
    reports: { dir: path.join(dir, "reports") }
  }
  const file = path.join(dir, "podsync.yaml")
  fs.writeFileSync(file, stringify(config))
  return file
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()))

const stop = async (child: ChildProcess) => {
  child.kill("SIGTERM")
  const stopped = await Promise.race([exited(child).then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)])
  if (!stopped) {
    child.kill("SIGKILL")
    await exited(child)
  }
}

const deliveries = async (podAdminUrl: string) => {
  const attempts = Schema.decodeUnknownSync(DeliveryAttempts)(await request(`${podAdminUrl}/__sim/webhooks/deliveries`))
  return { accepted: attempts.filter((a) => a.status === 200).length, attempts: attempts.length }
}

export const runDaemon = async (o: DaemonRunOptions): Promise<DaemonRunResult> => {
  const started = Date.now()
  const shopify = await startShopifySimulator({ bucket: { maximumAvailable: 20_000, restoreRate: 1_000 } })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-conformance-"))
  let daemon: ChildProcess | undefined
  let output = ""
  let last: Record<string, number> = {}
  let subscribedBeforeOrders = false
  const result = (extra: { readonly error?: string } = {}): DaemonRunResult => ({
    orders: o.orders,
    fulfilled: last["fulfilled"] ?? 0,
    finalStatus: last,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    podWebhooks: o.podWebhooks,
    subscribedBeforeOrders,
    webhookDeliveries: { accepted: 0, attempts: 0 },
    ...extra,
    ...(extra.error === undefined ? {} : { outputTail: output.slice(-3000) })
  })
  try {
    const port = await freePort()
    const config = writeConfig(dir, port, shopify.url, o)
    const child = spawn(process.execPath, [path.join(o.repoRoot, "bin/podsync.js"), "start", "--config", config], {
      cwd: o.repoRoot,
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    daemon = child
    const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-20_000))
    child.stdout?.on("data", keep)
    child.stderr?.on("data", keep)

    const readyBy = Date.now() + READY_TIMEOUT_MS
    while (!(await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.ok, () => false))) {
      if (child.exitCode !== null) return result({ error: `the daemon exited with ${child.exitCode} before it was ready` })
      if (Date.now() > readyBy) return result({ error: `the daemon was not ready within ${READY_TIMEOUT_MS} ms` })
      await sleep(200)
    }
    if (o.podWebhooks) {
      const subscribeBy = Date.now() + SUBSCRIBE_TIMEOUT_MS
      while (!o.subscribed() && Date.now() < subscribeBy) await sleep(200)
      subscribedBeforeOrders = o.subscribed()
    }
    for (let i = 0; i < o.orders; i++) {
      await request(`${shopify.url}/__sim/orders`, "POST", {
        financialStatus: "PAID",
        lineItems: [{
          sku: MAPPED_SKUS[i % MAPPED_SKUS.length],
          title: "Podsync Tee",
          quantity: 1 + (i % 2),
          price: "24.00",
          customAttributes: [{ key: "design_front", value: `https://cdn.example.com/d/${i}.png` }]
        }]
      })
    }
    // A failed turn (the daemon's /status busy, the simulator refusing a checkout) is retried on the
    // next one; the last such failure is reported if the orders are not all fulfilled in time.
    let lastFailure = ""
    const attempt = <A>(p: Promise<A>): Promise<A | undefined> =>
      p.catch((error: unknown) => {
        lastFailure = String(error)
        return undefined
      })
    const deadline = Date.now() + o.timeoutMs
    for (;;) {
      last = (await attempt(statusOf(port))) ?? last
      if ((last["fulfilled"] ?? 0) >= o.orders) break
      if (Date.now() > deadline) {
        const error = `${last["fulfilled"] ?? 0} of ${o.orders} orders fulfilled within ${o.timeoutMs} ms${
          lastFailure === "" ? "" : ` (last failure: ${lastFailure})`
        }`
        return { ...result({ error }), webhookDeliveries: await deliveries(o.podAdminUrl) }
      }
      await attempt(request(`${o.podAdminUrl}/__sim/checkout-all`, "POST", { paid: true }))
      await attempt(request(`${o.podAdminUrl}/__sim/ship-all`, "POST", {}))
      await sleep(1_000)
    }
    return { ...result(), webhookDeliveries: await deliveries(o.podAdminUrl) }
  } catch (error) {
    return result({ error: String(error) })
  } finally {
    if (daemon !== undefined) await stop(daemon)
    await shopify.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
