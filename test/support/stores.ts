import * as fs from "node:fs"
import * as path from "node:path"
import { stringify } from "yaml"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningPodSimulator, startPodSimulator } from "../../src/simulator/pod/index.js"
import { tempDir } from "./cli.js"
import { seedDataDir } from "./databaseTemplate.js"
import { exited, freePort, getJson, MAPPED_SKUS, post, startDaemon, type StatusCounts, statusOf } from "./pipeline.js"

/**
 * End-to-end runs of the daemon against one non-Shopify store simulator: the POD simulator, a
 * temporary folder with a copy of the demo mapping, a daemon config naming one store, and the
 * crash-and-finish loop the per-platform tests share.
 */

export type StorePlatform = "shopify" | "woocommerce" | "etsy" | "jsonfeed"

export interface StoreStack {
  readonly pod: RunningPodSimulator
  readonly dir: string
  readonly mappingFile: string
  readonly close: () => Promise<void>
}

/**
 * The POD simulator and a folder holding the demo mapping. `rewriteMapping` adapts the copy (e.g. the
 * attribute a platform carries the design URL in); the store simulator is the caller's.
 */
export const startStoreStack = async (prefix: string, rewriteMapping: (csv: string) => string = (csv) => csv): Promise<StoreStack> => {
  const pod = await startPodSimulator()
  const dir = tempDir(prefix)
  // The daemons' embedded database, migrated already: what a first start would make of it.
  seedDataDir(path.join(dir, "data"))
  const mappingFile = path.join(dir, "mappings.csv")
  fs.writeFileSync(mappingFile, rewriteMapping(fs.readFileSync("config/mappings/demo-shopify.csv", "utf8")))
  return {
    pod,
    dir,
    mappingFile,
    close: async () => {
      await pod.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

export interface StoreUnderTest {
  readonly key: string
  readonly platform: StorePlatform
  readonly podStoreId: string
  /** The platform's section (`woocommerce:`, `etsy:`, `jsonfeed:`) as plain values. */
  readonly section: Record<string, string | number>
}

/**
 * A daemon config with one store of `store.platform`, on the embedded database, pulling and reconciling
 * every 2 s; `pod` adds keys to its `pod` section (webhooks, laterPackages); written to `<name>.yaml`.
 */
export const writeStoreDaemonConfig = (
  stack: StoreStack,
  port: number,
  store: StoreUnderTest,
  pod: Record<string, unknown> = {},
  name = "podsync"
): string => {
  const file = path.join(stack.dir, `${name}.yaml`)
  const config = {
    dataDir: path.join(stack.dir, "data"),
    log: { level: "${PODSYNC_LOG_LEVEL:-warning}" },
    server: { host: "127.0.0.1", port },
    pod: { baseUrl: stack.pod.url, clientKey: "sim-client-key", clientSecret: "sim-client-secret", timeoutMs: 5000, ...pod },
    stores: [{
      key: store.key,
      platform: store.platform,
      podStoreId: store.podStoreId,
      [store.platform]: store.section,
      mappings: stack.mappingFile
    }],
    schedules: { pull: "*/2 * * * * *", reconcile: "*/2 * * * * *", catalog: "0 0 * * * *", report: "0 0 6 * * *" },
    reports: { dir: path.join(stack.dir, "reports") }
  }
  fs.writeFileSync(file, stringify(config))
  return file
}

/** The demo mapping prints every other SKU (DARKHE, SPORTG, WHITE) with these fixed designs, front and back. */
const FIXED_DESIGNS = ["https://cdn.example.com/designs/podsync-front.png", "https://cdn.example.com/designs/podsync-back.png"]

/**
 * Order `i`'s one line: a mapped SKU (cycling through the demo mapping), 1 or 2 units, the buyer's own
 * front design, and the design URLs its POD line must print: the buyer's for the SKUs mapped to
 * `{{attr design_front}}` (FOREST, MILITA, CHARCO), else the mapping's fixed ones.
 */
export const demoLine = (i: number) => {
  const design = `https://cdn.example.com/d/${i}.png`
  return {
    sku: MAPPED_SKUS[i % MAPPED_SKUS.length]!,
    quantity: 1 + (i % 2),
    design,
    printed: i % 2 === 0 ? [design] : FIXED_DESIGNS
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const randomBetween = (min: number, max: number) => min + Math.floor(Math.random() * (max - min))

const driveOnce = async (podUrl: string) => {
  await post(`${podUrl}/__sim/checkout-all`, { paid: true }).catch(() => undefined)
  await post(`${podUrl}/__sim/ship-all`).catch(() => undefined)
}

const pushing = (s: StatusCounts) => (s.shipped ?? 0) + (s.fulfilled ?? 0) > 0
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/**
 * Starts the daemon and kills it with SIGKILL `kills` times. The first kill comes a random 1–3 s into
 * the first run, among pulls and draft creations. Each later run has the POD simulator check out and
 * ship what was drafted, waits until the daemon has seen a shipment, and kills it a random 0–1 s later,
 * among tracking pushes. Then runs it once more, driving the POD simulator until `orders` orders are
 * fulfilled, and stops it with SIGTERM. Returns the final counts and the run's timeline (each start's
 * duration, what each kill interrupted), for the test's log.
 */
export const crashThenFinish = async (
  podUrl: string,
  config: string,
  port: number,
  options: { readonly orders: number; readonly kills: number; readonly timeoutMs: number }
): Promise<{ readonly final: StatusCounts; readonly timeline: string }> => {
  const begun = Date.now()
  const deadline = begun + options.timeoutMs
  const timeline: Array<string> = []
  const start = async () => {
    const at = Date.now()
    const started = await startDaemon(config, port)
    timeline.push(`started in ${seconds(Date.now() - at)}`)
    return started
  }
  let daemon = await start()
  try {
    for (let run = 0; run < options.kills; run++) {
      const runStarted = Date.now()
      if (run === 0) {
        await sleep(randomBetween(1_000, 3_000))
      } else {
        while (!pushing(await statusOf(port).catch(() => ({})))) {
          if (Date.now() > deadline) throw new Error(`the daemon never got to pushing tracking\n${daemon.output().slice(-4000)}`)
          await driveOnce(podUrl)
          await sleep(250)
        }
        await sleep(randomBetween(0, 1_000))
      }
      const status = await statusOf(port).then(JSON.stringify, () => "(status unreadable)")
      daemon.kill("SIGKILL")
      await exited(daemon)
      timeline.push(`killed ${seconds(Date.now() - runStarted)} in at ${status}`)
      daemon = await start()
    }
    const lastStart = Date.now()
    let last: StatusCounts = {}
    for (;;) {
      last = await statusOf(port).catch(() => last)
      if ((last.fulfilled ?? 0) >= options.orders) {
        timeline.push(`all fulfilled ${seconds(Date.now() - lastStart)} later, ${seconds(Date.now() - begun)} in all`)
        return { final: last, timeline: timeline.join("; ") }
      }
      if (Date.now() > deadline) {
        throw new Error(
          `not all ${options.orders} orders fulfilled within ${options.timeoutMs} ms; last status ${JSON.stringify(last)}; ${
            timeline.join("; ")
          }\n${daemon.output().slice(-4000)}`
        )
      }
      await driveOnce(podUrl)
      await sleep(1_000)
    }
  } finally {
    daemon.kill("SIGTERM")
    await exited(daemon)
  }
}

export interface PodOutcome {
  /** Draft creations per reference id (a count above 1 is a duplicate). */
  readonly draftsByReferenceId: Readonly<Record<string, number>>
  readonly duplicateReferenceIds: ReadonlyArray<string>
  /** Tracking numbers of each POD order, by the reference id of its draft. */
  readonly trackingsByReferenceId: ReadonlyMap<string, ReadonlyArray<string>>
  /** The design URLs each POD order prints, by reference id. */
  readonly designsByReferenceId: ReadonlyMap<string, ReadonlyArray<string>>
  /** Connections the POD simulator dropped on purpose (commit-then-drop faults). */
  readonly connectionsDropped: number
}

interface PodOrderView {
  readonly reference_id: string
  readonly order_trackings: ReadonlyArray<{ readonly tracking_no: string }>
  readonly line_items: ReadonlyArray<{ readonly printing_options: ReadonlyArray<{ readonly design_url: string }> }>
}

/** What the POD simulator holds: its stats, and each order's trackings read through the v3 API. */
export const podOutcome = async (pod: RunningPodSimulator): Promise<PodOutcome> => {
  const stats = await getJson(`${pod.url}/__sim/stats`)
  const trackingsByReferenceId = new Map<string, ReadonlyArray<string>>()
  const designsByReferenceId = new Map<string, ReadonlyArray<string>>()
  const headers = { "X-Gearment-Client-Key": "sim-client-key", "X-Gearment-Client-Secret": "sim-client-secret" }
  for (let page = 1;; page++) {
    const response = await fetch(`${pod.url}/api/v3/orders?paging.limit=100&paging.page=${page}`, { headers })
    if (!response.ok) throw new Error(`listing POD orders: ${response.status} ${await response.text()}`)
    // An empty list answer has no `data`; a list item carries only the primary tracking, so each order is read whole.
    const body = (await response.json()) as { data?: Array<{ order_id: string }>; paging: { total_page: number } }
    for (const item of body.data ?? []) {
      const whole = await fetch(`${pod.url}/api/v3/orders/${item.order_id}`, { headers })
      const order = ((await whole.json()) as { data: PodOrderView }).data
      const reference = order.reference_id
      trackingsByReferenceId.set(reference, [
        ...(trackingsByReferenceId.get(reference) ?? []),
        ...(order.order_trackings ?? []).map((t) => t.tracking_no)
      ])
      const designs = order.line_items.flatMap((l) => l.printing_options.map((o) => o.design_url))
      designsByReferenceId.set(reference, [...(designsByReferenceId.get(reference) ?? []), ...designs])
    }
    if (page >= body.paging.total_page) break
  }
  return {
    draftsByReferenceId: stats.draftsByReferenceId,
    duplicateReferenceIds: stats.duplicateReferenceIds,
    trackingsByReferenceId,
    designsByReferenceId,
    connectionsDropped: stats.connectionsDropped
  }
}

/** Orders each per-platform end-to-end run creates, and the kill -9s it survives. */
export const E2E_ORDERS = 20
export const E2E_KILLS = 2

/**
 * One platform's part in the shared end-to-end story: its simulator, its store section, the faults
 * it injects into its own pushes, how it takes an order, and what its store must show at the end.
 */
export interface StoreEndToEndDriver<Sim extends { readonly url: string; readonly close: () => Promise<void> }, Order> {
  readonly describe: string
  readonly title: string
  /** The store's key and platform; its POD store is `store-<key>`. */
  readonly store: { readonly key: string; readonly platform: StorePlatform }
  readonly rewriteMapping?: (csv: string) => string
  readonly start: () => Promise<Sim>
  readonly section: (sim: Sim) => StoreUnderTest["section"]
  /** The store-side faults, as bodies of `POST /__sim/faults`; they must fire at least once. */
  readonly storeFaults: ReadonlyArray<Record<string, unknown>>
  /** Creates an order whose one line is `line`; returns its store order id. */
  readonly createOrder: (sim: Sim, line: ReturnType<typeof demoLine>) => Promise<string>
  /** The simulator's orders at the end, by store order id. */
  readonly orders: (sim: Sim) => Promise<ReadonlyMap<string, Order>>
  /** What one order shows at the end, given the POD order's one tracking number. */
  readonly orderShows: (order: Order, tracking: ReadonlyArray<string>, id: string) => void
  /** What the simulator's stats show at the end. */
  readonly statsShow: (stats: any, ids: ReadonlyArray<string>) => void
}

/**
 * The story every store platform runs end to end: `E2E_ORDERS` orders in the store, the first three
 * draft creations dropped after commit, `E2E_KILLS` kill -9s, and at the end exactly one draft per
 * order, carrying the buyer's design where the mapping asks for it, and the POD tracking in the store.
 */
export const storeEndToEnd = <Sim extends { readonly url: string; readonly close: () => Promise<void> }, Order>(
  driver: StoreEndToEndDriver<Sim, Order>
) =>
  describe(driver.describe, () => {
    let stack: StoreStack
    let sim: Sim
    beforeAll(async () => {
      stack = await startStoreStack(`stores-${driver.store.platform}`, driver.rewriteMapping)
      sim = await driver.start()
    })
    afterAll(async () => {
      await sim?.close()
      await stack?.close()
    })

    it(driver.title, async () => {
      const port = await freePort()
      const store = { ...driver.store, podStoreId: `store-${driver.store.key}`, section: driver.section(sim) }
      const config = writeStoreDaemonConfig(stack, port, store)
      for (const fault of driver.storeFaults) await post(`${sim.url}/__sim/faults`, fault)
      // The first three draft creations reach the POD service and lose their answer: each is found by its
      // reference id, never posted twice.
      await post(`${stack.pod.url}/__sim/faults`, { route: "POST /api/v3/orders/draft", kind: "commitThenDrop", count: 3 })

      const ids: Array<string> = []
      for (let i = 0; i < E2E_ORDERS; i++) ids.push(await driver.createOrder(sim, demoLine(i)))

      const { final, timeline } = await crashThenFinish(stack.pod.url, config, port, {
        orders: E2E_ORDERS,
        kills: E2E_KILLS,
        timeoutMs: 200_000
      })
      console.info(`${driver.store.platform}: ${timeline}`)
      expect(final).toEqual({ fulfilled: E2E_ORDERS })

      // One draft per store order at the POD service.
      const pod = await podOutcome(stack.pod)
      const references = ids.map((id) => `${store.key}:${id}`)
      expect(pod.duplicateReferenceIds).toEqual([])
      expect(pod.draftsByReferenceId).toEqual(Object.fromEntries(references.map((r) => [r, 1])))
      expect(pod.connectionsDropped).toBe(3)
      // The buyer's design came through where the mapping asks for it.
      expect(ids.map((id) => pod.designsByReferenceId.get(`${store.key}:${id}`))).toEqual(ids.map((_, i) => demoLine(i).printed))

      // Each order in the store shows the one tracking number of its POD order.
      const orders = await driver.orders(sim)
      for (const id of ids) {
        const tracking = pod.trackingsByReferenceId.get(`${store.key}:${id}`)
        expect(tracking, `POD order for ${id}`).toHaveLength(1)
        driver.orderShows(orders.get(id)!, tracking!, id)
      }
      const stats = await getJson(`${sim.url}/__sim/stats`)
      driver.statsShow(stats, ids)
      // The faults did fire: pushes went through the read-back path, not around it.
      expect(stats.faultsInjected.commitThenDrop).toBeGreaterThan(0)
    }, 240_000)
  })

/** `{ id: count }` for every id: what a per-order stat holds when each order saw `count`. */
export const eachOnce = (ids: ReadonlyArray<string>, count = 1) => Object.fromEntries(ids.map((id) => [id, count]))
