// Every box reaches the buyer, once, on every platform: two orders per platform shipped by the POD
// service in two boxes each, the second box of one followed through POD webhooks and of the other by
// polling alone, with the daemon killed (SIGKILL) between each order's two pushes. One daemon serves a
// store of every platform (one data folder, three starts, instead of four of each): each platform's
// orders go through the same kills and the same webhook and polling phases as they did alone.
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse, stringify } from "yaml"
import type { RunningEtsySimulator } from "../../src/simulator/etsy/index.js"
import type { RunningJsonFeedSimulator } from "../../src/simulator/jsonfeed/index.js"
import type { RunningShopifySimulator } from "../../src/simulator/shopify/index.js"
import type { RunningWooCommerceSimulator } from "../../src/simulator/woocommerce/index.js"
import { exited, freePort, getJson, podHeaders, post, startDaemon, statusOf, waitFor } from "../support/pipeline.js"
import { etsyMapping, etsySetup, jsonFeedSetup, type PlatformSetup, shopifySetup, wooCommerceSetup } from "../support/storePlatforms.js"
import { demoLine, startStoreStack, type StorePlatform, type StoreStack, writeStoreDaemonConfig } from "../support/stores.js"
import { pullEverySecond } from "../support/turns.js"

interface Simulator {
  readonly url: string
  readonly close: () => Promise<void>
}

interface PlatformDriver<Sim extends Simulator> extends PlatformSetup<Sim> {
  readonly platform: StorePlatform
  readonly key: string
  readonly rewriteMapping?: (csv: string) => string
  /** The tracking numbers the buyer is shown on the store's order, in the store's order. */
  readonly shown: (sim: Sim, id: string) => Promise<ReadonlyArray<string>>
  /** The simulator's stat of emails to the buyer about shipping, by order id. */
  readonly emails: string
  /** Shipping emails an order shipped in two boxes gets, as the platform sends them. */
  readonly emailsForTwoBoxes: number
}

const read = (sim: Simulator, path: string) => getJson(`${sim.url}/__sim/${path}`)

const shopify: PlatformDriver<RunningShopifySimulator> = {
  ...shopifySetup,
  platform: "shopify",
  key: "acme-shopify",
  shown: async (sim, id) =>
    ((await read(sim, `orders/${id}`)).fulfillments as Array<{ tracking: Array<{ number: string }> }>).flatMap((f) =>
      f.tracking.map((t) => t.number)
    ),
  // Shopify emails the buyer for the fulfilment, then a shipping update when the second number is added.
  emails: "notificationsByOrder",
  emailsForTwoBoxes: 2
}

const woocommerce: PlatformDriver<RunningWooCommerceSimulator> = {
  ...wooCommerceSetup,
  platform: "woocommerce",
  key: "acme-woo",
  shown: async (sim, id) =>
    ((await read(sim, `orders/${id}`)).shipment_trackings as Array<{ tracking_number: string }>).map((t) => t.tracking_number),
  // One Completed email, when the first box completes the order; the second box is one more tracking item.
  emails: "completedEmailsByOrder",
  emailsForTwoBoxes: 1
}

const etsy: PlatformDriver<RunningEtsySimulator> = {
  ...etsySetup,
  platform: "etsy",
  key: "acme-etsy",
  rewriteMapping: etsyMapping,
  shown: async (sim, id) => ((await read(sim, `receipts/${id}`)).shipments as Array<{ tracking_code: string }>).map((s) => s.tracking_code),
  // Etsy emails the buyer for every shipment: its own way, one per box.
  emails: "buyerEmailsByReceipt",
  emailsForTwoBoxes: 2
}

const jsonfeed: PlatformDriver<RunningJsonFeedSimulator> = {
  ...jsonFeedSetup,
  platform: "jsonfeed",
  key: "acme-feed",
  shown: async (sim, id) =>
    ((await read(sim, `orders/${id}`)).fulfillments as Array<{ tracking: { number: string } }>).map((f) => f.tracking.number),
  // One email per fulfilment the storefront records: the box, then the tracking-only box (docs/jsonfeed.md §6.5).
  emails: "buyerEmailsByOrder",
  emailsForTwoBoxes: 2
}

/** The POD order of a reference id, and its boxes' tracking numbers in shipping order. */
const podOrderOf = async (stack: StoreStack, reference: string) => {
  const listed = await fetch(`${stack.pod.url}/api/v3/orders?filter.reference_ids=${encodeURIComponent(reference)}`, {
    headers: podHeaders
  })
  const orderId = ((await listed.json()) as { data: Array<{ order_id: string }> }).data[0]!.order_id
  const whole = await fetch(`${stack.pod.url}/api/v3/orders/${orderId}`, { headers: podHeaders })
  const trackings = ((await whole.json()) as { data: { order_trackings: Array<{ tracking_no: string }> } }).data.order_trackings
  return { orderId, trackings: trackings.map((t) => t.tracking_no) }
}

/** A platform's simulator and its two orders: one followed by POD webhooks, one by polling. */
interface Running {
  readonly driver: PlatformDriver<any>
  readonly sim: Simulator
  readonly byWebhook: string
  readonly byPolling: string
  readonly references: readonly [string, string]
}

const DRIVERS: ReadonlyArray<PlatformDriver<any>> = [shopify, woocommerce, etsy, jsonfeed]

// The run is the suite's (its beforeAll: a failure there fails every test below); each platform's outcome is its own test.
describe("every platform: an order shipped in two boxes", () => {
  let stack: StoreStack
  const running: Array<Running> = []

  /**
   * A daemon config with one store of every platform, each with its own mapping file; `pod` adds keys to
   * its `pod` section, as writeStoreDaemonConfig does.
   */
  const configFor = (port: number, pod: Record<string, unknown>, name: string) => {
    const file = pullEverySecond(writeStoreDaemonConfig(stack, port, storeOf(running[0]!), pod, name))
    const document = parse(fs.readFileSync(file, "utf8"))
    document.stores = running.map((r) => {
      const mappings = path.join(stack.dir, `mappings-${r.driver.platform}.csv`)
      const csv = fs.readFileSync(stack.mappingFile, "utf8")
      fs.writeFileSync(mappings, r.driver.rewriteMapping?.(csv) ?? csv)
      const store = storeOf(r)
      return { key: store.key, platform: store.platform, podStoreId: store.podStoreId, [store.platform]: store.section, mappings }
    })
    fs.writeFileSync(file, stringify(document))
    return file
  }
  const storeOf = (r: Running) => ({
    key: r.driver.key,
    platform: r.driver.platform,
    podStoreId: `store-${r.driver.key}`,
    section: r.driver.section(r.sim)
  })
  const boxes = (timeoutMs: number, count: number, which: (r: Running) => string) =>
    Promise.all(running.map((r) => waitFor(() => r.driver.shown(r.sim, which(r)), (shown) => shown.length >= count, timeoutMs)))
  const shipSecondBox = async (which: (r: Running) => string) => {
    for (const r of running) {
      await post(`${stack.pod.url}/__sim/orders/${(await podOrderOf(stack, which(r))).orderId}/ship`, { packages: 1 })
    }
  }

  beforeAll(async () => {
    stack = await startStoreStack("packages")
    for (const driver of DRIVERS) {
      const sim: Simulator = await driver.start()
      const [byWebhook, byPolling] = [await driver.createOrder(sim, demoLine(0)), await driver.createOrder(sim, demoLine(1))]
      running.push({ driver, sim, byWebhook, byPolling, references: [`${driver.key}:${byWebhook}`, `${driver.key}:${byPolling}`] })
    }
    const orders = 2 * running.length
    const port = await freePort()
    // Followed by POD webhooks alone (no later-box looks), or by reconciliation alone (a look every 1.8 s).
    const withWebhooks = configFor(port, {
      webhooks: { publicUrl: `http://127.0.0.1:${port}/webhooks/pod` },
      laterPackages: { everyHours: 1, forDays: 0 }
    }, "webhooks")
    const polling = configFor(port, { laterPackages: { everyHours: 0.0005, forDays: 1 } }, "polling")

    // The first box of each: drafted, checked out and shipped at the POD service, pushed to the store.
    let daemon = await startDaemon(withWebhooks, port)
    try {
      await waitFor(
        async () => {
          await post(`${stack.pod.url}/__sim/checkout-all`, { paid: true })
          await post(`${stack.pod.url}/__sim/ship-all`)
          return statusOf(port)
        },
        (s) => (s.fulfilled ?? 0) === orders,
        90_000
      )
      for (const r of running) expect(await r.driver.shown(r.sim, r.byWebhook), r.driver.platform).toHaveLength(1)
      daemon.kill("SIGKILL")
      await exited(daemon)

      // The second box of one order each, told by the service's tracking webhook.
      daemon = await startDaemon(withWebhooks, port)
      await shipSecondBox((r) => r.references[0])
      await boxes(90_000, 2, (r) => r.byWebhook)
      daemon.kill("SIGKILL")
      await exited(daemon)

      // The second box of the other, with no webhook at all: reconciliation's look finds it.
      await post(`${stack.pod.url}/__sim/webhooks/auto`, { enabled: false })
      daemon = await startDaemon(polling, port)
      await shipSecondBox((r) => r.references[1])
      await boxes(90_000, 2, (r) => r.byPolling)
      await waitFor(() => statusOf(port), (s) => (s.fulfilled ?? 0) === orders, 60_000)
    } finally {
      daemon.kill("SIGTERM")
      await exited(daemon)
    }
  }, 300_000)

  afterAll(async () => {
    for (const r of running) await r.sim.close()
    await stack?.close()
  })

  it.each(DRIVERS.map((d) => d.platform))(
    "%s: shows both tracking numbers to the buyer, each once, by POD webhooks and by polling, through kill -9 between the pushes",
    async (platform) => {
      const { driver, sim, byWebhook, byPolling, references } = running.find((r) => r.driver.platform === platform)!
      for (const [index, id] of [byWebhook, byPolling].entries()) {
        const pod = await podOrderOf(stack, references[index]!)
        expect(pod.trackings, `POD order of ${id}`).toHaveLength(2)
        expect(await driver.shown(sim, id), `store order ${id}`).toEqual(pod.trackings)
      }
      const stats = await read(sim, "stats")
      expect(stats[driver.emails]).toEqual({ [byWebhook]: driver.emailsForTwoBoxes, [byPolling]: driver.emailsForTwoBoxes })
      const podStats = await read(stack.pod, "stats")
      // This platform's two orders, one draft each (the others' are their tests').
      expect(Object.fromEntries(references.map((r) => [r, podStats.draftsByReferenceId[r]]))).toEqual(
        Object.fromEntries(references.map((r) => [r, 1]))
      )
    }
  )

  it("drafts each order of every platform once at the POD service, and no other", async () => {
    const podStats = await read(stack.pod, "stats")
    expect(podStats.draftsByReferenceId).toEqual(Object.fromEntries(running.flatMap((r) => r.references.map((ref) => [ref, 1]))))
  })
})
