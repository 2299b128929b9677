// Every box reaches the buyer, once, on every platform: two orders shipped by the POD service in two
// boxes each, the second box of one followed through POD webhooks and of the other by polling alone,
// with the daemon killed (SIGKILL) between each order's two pushes.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { RunningEtsySimulator } from "../../src/simulator/etsy/index.js"
import type { RunningJsonFeedSimulator } from "../../src/simulator/jsonfeed/index.js"
import type { RunningShopifySimulator } from "../../src/simulator/shopify/index.js"
import type { RunningWooCommerceSimulator } from "../../src/simulator/woocommerce/index.js"
import { exited, freePort, getJson, podHeaders, post, startDaemon, statusOf, waitFor } from "../support/pipeline.js"
import { etsyMapping, etsySetup, jsonFeedSetup, type PlatformSetup, shopifySetup, wooCommerceSetup } from "../support/storePlatforms.js"
import { demoLine, startStoreStack, type StorePlatform, type StoreStack, writeStoreDaemonConfig } from "../support/stores.js"

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

const twoBoxes = <Sim extends Simulator>(driver: PlatformDriver<Sim>) =>
  describe(`${driver.platform}: an order shipped in two boxes`, () => {
    let stack: StoreStack
    let sim: Sim
    beforeAll(async () => {
      stack = await startStoreStack(`packages-${driver.platform}`, driver.rewriteMapping)
      sim = await driver.start()
    })
    afterAll(async () => {
      await sim?.close()
      await stack?.close()
    })

    it(
      "shows both tracking numbers to the buyer, each once, by POD webhooks and by polling, through kill -9 between the pushes",
      async () => {
        const port = await freePort()
        const store = { key: driver.key, platform: driver.platform, podStoreId: `store-${driver.key}`, section: driver.section(sim) }
        // Followed by POD webhooks alone (no later-box looks), or by reconciliation alone (a look every 1.8 s).
        const withWebhooks = writeStoreDaemonConfig(stack, port, store, {
          webhooks: { publicUrl: `http://127.0.0.1:${port}/webhooks/pod` },
          laterPackages: { everyHours: 1, forDays: 0 }
        }, "webhooks")
        const polling = writeStoreDaemonConfig(stack, port, store, { laterPackages: { everyHours: 0.0005, forDays: 1 } }, "polling")
        const [byWebhook, byPolling] = [await driver.createOrder(sim, demoLine(0)), await driver.createOrder(sim, demoLine(1))]
        const references = [byWebhook, byPolling].map((id) => `${driver.key}:${id}`)
        const boxes = async (id: string, count: number) => waitFor(() => driver.shown(sim, id), (shown) => shown.length >= count, 90_000)

        // The first box of each: drafted, checked out and shipped at the POD service, pushed to the store.
        let daemon = await startDaemon(withWebhooks, port)
        try {
          await waitFor(
            async () => {
              await post(`${stack.pod.url}/__sim/checkout-all`, { paid: true })
              await post(`${stack.pod.url}/__sim/ship-all`)
              return statusOf(port)
            },
            (s) => (s.fulfilled ?? 0) === 2,
            90_000
          )
          expect(await driver.shown(sim, byWebhook)).toHaveLength(1)
          daemon.kill("SIGKILL")
          await exited(daemon)

          // The second box of one order, told by the service's tracking webhook.
          daemon = await startDaemon(withWebhooks, port)
          await post(`${stack.pod.url}/__sim/orders/${(await podOrderOf(stack, references[0]!)).orderId}/ship`, { packages: 1 })
          await boxes(byWebhook, 2)
          daemon.kill("SIGKILL")
          await exited(daemon)

          // The second box of the other, with no webhook at all: reconciliation's look finds it.
          await post(`${stack.pod.url}/__sim/webhooks/auto`, { enabled: false })
          daemon = await startDaemon(polling, port)
          await post(`${stack.pod.url}/__sim/orders/${(await podOrderOf(stack, references[1]!)).orderId}/ship`, { packages: 1 })
          await boxes(byPolling, 2)
          await waitFor(() => statusOf(port), (s) => (s.fulfilled ?? 0) === 2, 60_000)
        } finally {
          daemon.kill("SIGTERM")
          await exited(daemon)
        }

        for (const [index, id] of [byWebhook, byPolling].entries()) {
          const pod = await podOrderOf(stack, references[index]!)
          expect(pod.trackings, `POD order of ${id}`).toHaveLength(2)
          expect(await driver.shown(sim, id), `store order ${id}`).toEqual(pod.trackings)
        }
        const stats = await read(sim, "stats")
        expect(stats[driver.emails]).toEqual({ [byWebhook]: driver.emailsForTwoBoxes, [byPolling]: driver.emailsForTwoBoxes })
        const podStats = await read(stack.pod, "stats")
        expect(podStats.draftsByReferenceId).toEqual(Object.fromEntries(references.map((r) => [r, 1])))
      },
      300_000
    )
  })

twoBoxes(shopify)
twoBoxes(woocommerce)
twoBoxes(etsy)
twoBoxes(jsonfeed)
