/**
 * End to end on the simulators, the stores as their platforms publish them (store-apis.md §0): the
 * daemon pulls, drafts at the POD service, and pushes the POD's tracking back, and what the buyer
 * would see is read at the store simulator.
 *
 * - WooCommerce on a host that strips the Authorization header, with the Shipment Tracking extension
 *   (the Completed email lists carrier, number and link) and without it (a customer note says them).
 * - Etsy with the published webhook envelope (each delivery makes the daemon read its one receipt,
 *   not pull the shop), carriers as getShippingCarriers names them (the buyer's email links the
 *   tracking, or the note does for a carrier Etsy does not list), and a 403 on one receipt's
 *   shipment: that order waits for a person with Etsy's words, the others ship.
 */
import * as fs from "node:fs"
import { parse, stringify } from "yaml"
import { describe, expect, it } from "vitest"
import { startEtsySimulator } from "../../src/simulator/etsy/index.js"
import { startWooCommerceSimulator } from "../../src/simulator/woocommerce/index.js"
import { exited, freePort, getJson, post, startDaemon, type StatusCounts, statusOf } from "../support/pipeline.js"
import { etsyMapping, etsySetup, wooCommerceSetup } from "../support/storePlatforms.js"
import { demoLine, podOutcome, startStoreStack, writeStoreDaemonConfig } from "../support/stores.js"

const ORDERS = 3

/**
 * Runs the daemon (`started` once it is ready) until `done`, driving the POD simulator's checkout and
 * shipping; `atEnd` runs while it still runs; then it is stopped.
 */
const runUntil = async (
  podUrl: string,
  config: string,
  port: number,
  done: (s: StatusCounts) => boolean,
  hooks: { readonly started?: () => Promise<void>; readonly atEnd?: () => Promise<void> } = {}
) => {
  const daemon = await startDaemon(config, port)
  try {
    await hooks.started?.()
    const deadline = Date.now() + 90_000
    for (;;) {
      const status = await statusOf(port).catch((): StatusCounts => ({}))
      if (done(status)) {
        await hooks.atEnd?.()
        return status
      }
      if (Date.now() > deadline) throw new Error(`not done: ${JSON.stringify(status)}\n${daemon.output().slice(-4000)}`)
      await post(`${podUrl}/__sim/checkout-all`, { paid: true }).catch(() => undefined)
      await post(`${podUrl}/__sim/ship-all`).catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  } finally {
    daemon.kill("SIGTERM")
    await exited(daemon)
  }
}

interface WooOrder {
  readonly id: number
  readonly status: string
  readonly emails: ReadonlyArray<
    { readonly type: string; readonly tracking: ReadonlyArray<{ provider: string; number: string; link: string }>; readonly note?: string }
  >
}

describe("WooCommerce end to end on a host that strips the Authorization header", () => {
  for (const shipmentTracking of [true, false]) {
    it(
      `the buyer gets carrier, number and link ${
        shipmentTracking ? "in the Completed email (extension)" : "in a customer note (no extension)"
      }`,
      async () => {
        const stack = await startStoreStack("stores-woo-host")
        const woo = await startWooCommerceSimulator({ stripsAuthorizationHeader: true, shipmentTracking })
        try {
          const port = await freePort()
          const store = {
            key: "acme-woo",
            platform: "woocommerce" as const,
            podStoreId: "store-acme-woo",
            section: wooCommerceSetup.section(woo)
          }
          const config = writeStoreDaemonConfig(stack, port, store)
          const ids: Array<string> = []
          for (let i = 0; i < ORDERS; i++) ids.push(await wooCommerceSetup.createOrder(woo, demoLine(i)))
          expect(await runUntil(stack.pod.url, config, port, (s) => (s.fulfilled ?? 0) >= ORDERS)).toEqual({ fulfilled: ORDERS })

          const pod = await podOutcome(stack.pod)
          const orders = (await getJson(`${woo.url}/__sim/orders`)).orders as Array<WooOrder>
          for (const id of ids) {
            const order = orders.find((o) => String(o.id) === id)!
            const [number] = pod.trackingsByReferenceId.get(`acme-woo:${id}`)!
            expect(order.status, `order ${id}`).toBe("completed")
            const completed = order.emails.filter((e) => e.type === "customer_completed_order")
            const notes = order.emails.filter((e) => e.type === "customer_note")
            if (shipmentTracking) {
              expect(completed[0]!.tracking, `order ${id}`).toEqual([{
                provider: expect.any(String),
                number,
                link: expect.stringContaining("http")
              }])
              expect(completed[0]!.tracking[0]!.provider).not.toBe("")
              expect(notes, `order ${id}`).toEqual([])
            } else {
              expect(notes, `order ${id}`).toHaveLength(1)
              expect(notes[0]!.note, `order ${id}`).toMatch(
                new RegExp(`on its way with \\w+.*\\nTracking number: ${number}\\nTrack your package: http`)
              )
            }
          }
          // The host refused the header: the daemon moved the key to the query string, once per start.
          expect((await getJson(`${woo.url}/__sim/stats`)).authFailures).toBeGreaterThan(0)
        } finally {
          await woo.close()
          await stack.close()
        }
      },
      150_000
    )
  }
})

interface EtsyReceipt {
  readonly receipt_id: number
  readonly is_shipped: boolean
  readonly buyer_emails: ReadonlyArray<
    { carrier_name: string | null; tracking_code: string | null; tracking_link: string | null; note_to_buyer: string | null }
  >
}

describe("Etsy end to end with the published webhooks and carriers", () => {
  it("reads each webhook's one receipt, names carriers as Etsy lists them, and refuses only the receipt Etsy refuses", async () => {
    const stack = await startStoreStack("stores-etsy-published", etsyMapping)
    const etsy = await startEtsySimulator()
    try {
      const port = await freePort()
      const store = {
        key: "acme-etsy",
        platform: "etsy" as const,
        podStoreId: "store-acme-etsy",
        section: { ...etsySetup.section(etsy), webhookSecret: etsy.webhookSecret }
      }
      const config = writeStoreDaemonConfig(stack, port, store)
      // The shop is pulled once at start, then only each half hour: receipts come in on webhooks.
      const yaml = parse(fs.readFileSync(config, "utf8"))
      fs.writeFileSync(config, stringify({ ...yaml, schedules: { ...yaml.schedules, pull: "0 */30 * * * *" } }))
      await post(`${etsy.url}/__sim/webhooks/subscribe`, { url: `http://127.0.0.1:${port}/webhooks/acme-etsy`, events: ["ORDER_PAID"] })
      const listPulls = async () => ((await getJson(`${etsy.url}/__sim/stats`)).requestsByOperation.getShopReceipts ?? 0) as number
      let pullsAtStart = 0
      const ids: Array<string> = []
      let story = ""
      const status = await runUntil(stack.pod.url, config, port, (s) => (s.fulfilled ?? 0) >= ORDERS - 1 && (s.failed ?? 0) >= 1, {
        started: async () => {
          // The pull at start has read the (empty) shop; from now on receipts arrive on webhooks.
          for (let i = 0; i < 1_200 && (pullsAtStart = await listPulls()) === 0; i++) await new Promise((r) => setTimeout(r, 50))
          for (let i = 0; i < ORDERS; i++) ids.push(await etsySetup.createOrder(etsy, demoLine(i)))
          await post(`${etsy.url}/__sim/receipts/${ids[0]}/refuse-shipments`, {
            error: "This order is being fulfilled with an Etsy shipping label; tracking cannot be added"
          })
        },
        atEnd: async () => {
          story = JSON.stringify(await getJson(`http://127.0.0.1:${port}/explain?ref=acme-etsy:${ids[0]}`))
        }
      })
      expect(status).toEqual({ fulfilled: ORDERS - 1, failed: 1 })

      const stats = await getJson(`${etsy.url}/__sim/stats`)
      // Each ORDER_PAID envelope named its receipt: read alone, never a pull of the shop.
      expect(await listPulls()).toBe(pullsAtStart)
      expect(stats.requestsByOperation.getShopReceipt).toBeGreaterThanOrEqual(ORDERS)
      expect(stats.webhooksDelivered).toBeGreaterThanOrEqual(ORDERS)

      const pod = await podOutcome(stack.pod)
      const receipts = (await getJson(`${etsy.url}/__sim/receipts`)).receipts as Array<EtsyReceipt>
      for (const id of ids.slice(1)) {
        const receipt = receipts.find((r) => String(r.receipt_id) === id)!
        const [number] = pod.trackingsByReferenceId.get(`acme-etsy:${id}`)!
        expect(receipt.is_shipped, `receipt ${id}`).toBe(true)
        // What the buyer read: the tracking linked by Etsy (a carrier it lists), or carrier and link in the note ("other").
        const [email] = receipt.buyer_emails
        expect(email!.tracking_code).toBe(number)
        if (email!.carrier_name === "other") expect(email!.note_to_buyer, `receipt ${id}`).toMatch(new RegExp(`${number!}.*http`))
        else expect(email!.tracking_link, `receipt ${id}`).toContain(number)
      }
      // The refused receipt: not shipped, nobody emailed; its order failed with Etsy's words for a person.
      const refused = receipts.find((r) => String(r.receipt_id) === ids[0])!
      expect([refused.is_shipped, refused.buyer_emails]).toEqual([false, []])
      expect(story).toContain('"state":"failed"')
      expect(story).toContain("Etsy refused the shipment of this receipt: This order is being fulfilled with an Etsy shipping label")
    } finally {
      await etsy.close()
      await stack.close()
    }
  }, 150_000)
})
