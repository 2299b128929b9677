import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { podsync } from "../support/cli.js"
import { MAX_NAMED_ORDERS } from "../../src/pipeline/PullLoop.js"
import { createOrders, driveUntil, expectEachOrderOnce, getJson, post, sharedStack, waitFor } from "../support/pipeline.js"
import { freePort, startDaemon, statusOf, stopDaemons, writeDaemonConfig } from "../support/pipeline.js"

const ORDERS = 20

describe("the pipeline driven by webhooks, both directions", () => {
  const stack = sharedStack()

  it("acts once per event on duplicated and reordered deliveries, and rejects forgeries before any work", async () => {
    const port = await freePort()
    // Polling slowed to every 30 s: orders arrive and move on webhooks.
    const config = writeDaemonConfig(stack, port, { pull: "*/30 * * * * *", reconcile: "*/30 * * * * *", podWebhooks: true })
    const daemon = await startDaemon(config, port)
    try {
      const hook = `http://127.0.0.1:${port}/webhooks/demo-shopify`
      for (const topic of ["orders/create", "orders/updated", "orders/cancelled"]) {
        await post(`${stack.shopify.url}/__sim/webhooks/subscribe`, { topic, address: hook })
      }
      await post(`${stack.shopify.url}/__sim/webhooks/settings`, { duplicates: 2, reorder: true, delayMs: 50 })

      // Forged deliveries: rejected with 401, nothing done.
      const body = JSON.stringify({ id: 1, admin_graphql_api_id: "gid://shopify/Order/1" })
      const forgedStore = await fetch(hook, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "X-Shopify-Hmac-Sha256": createHmac("sha256", "not-the-secret").update(body).digest("base64"),
          "X-Shopify-Topic": "orders/create",
          "X-Shopify-Webhook-Id": "forged-1",
          "X-Shopify-Shop-Domain": "acme.myshopify.com"
        }
      })
      expect(forgedStore.status).toBe(401)
      const forgedPod = await fetch(`http://127.0.0.1:${port}/webhooks/pod`, {
        method: "POST",
        body: "{}",
        headers: {
          "content-type": "application/json",
          "X-Connect-Timestamp": String(Math.floor(Date.now() / 1000)),
          "X-Connect-Nonce": "n-1",
          "X-Connect-Signature": "00",
          "X-Connect-Client-Key": "sim-webhook-client-key"
        }
      })
      expect(forgedPod.status).toBe(401)
      // Only POSTs go to the receivers; anything else under /webhooks/ is the router's: not found.
      expect((await fetch(hook)).status).toBe(404)

      // The orders come in waves of 5, 1.5 s apart: the webhooks of a wave name few enough orders to
      // be read alone (the daemon gathers a second's hints; more than 10 orders named at once make a
      // pull of the store instead).
      const ids: Array<string> = []
      for (let wave = 0; wave < ORDERS / 5; wave++) {
        if (wave > 0) await new Promise((resolve) => setTimeout(resolve, 1_500))
        ids.push(...(await createOrders(stack, 5)))
      }
      // POD deliveries duplicated and reordered too.
      const final = await driveUntil(
        stack,
        async () => {
          await post(`${stack.pod.url}/__sim/webhooks/deliver`, { duplicates: 1, reorder: true }).catch(() => undefined)
          return statusOf(port)
        },
        (s) => (s.fulfilled ?? 0) === ORDERS,
        120_000
      )
      expect(final).toEqual({ fulfilled: ORDERS })

      const { pod, shop } = await expectEachOrderOnce(stack, ids)
      // Status events are answered together by list calls; only package (tracking) events read an order whole:
      // about one whole read per order (two when a package event is delivered twice), not one per event.
      const requests = pod.requests as Record<string, number>
      expect(requests["GET /api/v3/orders/:order_id"] ?? 0).toBeLessThanOrEqual(ORDERS * 2)
      const operations = shop.operations as Record<string, number>
      // Whole-store pulls: the one at start and the 30 s schedule's, not one per delivery.
      expect(operations["PodsyncOrdersPage"] ?? 0).toBeLessThan(ORDERS / 2)

      // The webhooks did the work: deliveries reached the daemon on both sides.
      const podDeliveries = (await getJson(`${stack.pod.url}/__sim/webhooks/deliveries`)) as Array<{ status: number | null; topic: string }>
      const answers: Record<string, number> = {}
      for (const d of podDeliveries) answers[`${d.topic} ${d.status}`] = (answers[`${d.topic} ${d.status}`] ?? 0) + 1
      // Every genuine delivery that got an answer was accepted (duplicates and replays answer 200 too).
      expect(Object.keys(answers).filter((k) => !k.endsWith(" 200") && !k.endsWith(" null"))).toEqual([])
      // How many events the POD service sends before the run ends depends on timing; that they arrive and are accepted does not.
      expect(podDeliveries.filter((d) => d.status === 200).length).toBeGreaterThan(0)
      // Every answer the receivers gave is counted: the forgeries as rejected, the copies as duplicates.
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
      const delivered = (source: string, outcome: string) =>
        Number(new RegExp(`podsync_webhook_deliveries_total\\{source="${source}",outcome="${outcome}"\\} (\\d+)`).exec(metrics)?.[1])
      expect([delivered("demo-shopify", "rejected"), delivered("pod", "rejected")]).toEqual([1, 1])
      expect(delivered("demo-shopify", "accepted")).toBeGreaterThanOrEqual(ORDERS)
      expect(delivered("demo-shopify", "duplicate")).toBeGreaterThan(0)
      expect(delivered("pod", "accepted")).toBeGreaterThan(0)

      // A steady flow of deliveries, each naming another order (a flash sale): 300 over 3 s. The daemon
      // gathers a second's hints into one pull of the store, instead of pulling back to back.
      const before = (await getJson(`${stack.shopify.url}/__sim/stats`)).operations as Record<string, number>
      const started = Date.now()
      for (let i = 0; i < 300; i++) {
        const id = 7_000_000 + i
        const delivery = JSON.stringify({ id, admin_graphql_api_id: `gid://shopify/Order/${id}` })
        const answer = await fetch(hook, {
          method: "POST",
          body: delivery,
          headers: {
            "content-type": "application/json",
            "X-Shopify-Hmac-Sha256": createHmac("sha256", "shopify-sim-webhook-secret").update(delivery).digest("base64"),
            "X-Shopify-Topic": "orders/updated",
            "X-Shopify-Webhook-Id": `flash-${i}`,
            "X-Shopify-Event-Id": `flash-event-${i}`,
            "X-Shopify-Triggered-At": new Date().toISOString(),
            "X-Shopify-Shop-Domain": "acme.myshopify.com"
          }
        })
        expect(answer.status).toBe(200)
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + (i + 1) * 10 - Date.now())))
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      const after = (await getJson(`${stack.shopify.url}/__sim/stats`)).operations as Record<string, number>
      const reads = (ops: Record<string, number>, operation: string) => (ops[operation] ?? 0) - (before[operation] ?? 0)
      const seconds = Math.ceil((Date.now() - started) / 1000)
      // At most one pull or one read of named orders a second (HINT_PULL_SPACING), and the 30 s
      // schedule's pull: a pull reads a page or two; a read of named orders reads each of them, at
      // most MAX_NAMED_ORDERS (how many hints one second gathers depends on the machine's load: under
      // load a few at a time, each read alone, then the pull they fall back to as they name no order
      // of the store). Pulling back to back (no gathering) made 365 page reads here, on a 2-core machine.
      expect(reads(after, "PodsyncOrdersPage")).toBeLessThanOrEqual(2 * (seconds + 1))
      expect(reads(after, "PodsyncOrder")).toBeLessThanOrEqual(MAX_NAMED_ORDERS * seconds)
      expect(reads(after, "PodsyncOrdersPage") + reads(after, "PodsyncOrder")).toBeGreaterThan(0)

      // A webhook naming its order makes the daemon read that order alone, not pull the store's overlap
      // window. How many of the waves' orders were read alone depends on the machine's load (a wave's
      // hints fold into a pull running then, slow waves gather into more than MAX_NAMED_ORDERS): so one
      // order more, alone, at the end (a 21st order makes each pull above read three pages of 10). It is
      // read alone (and no page) unless a pull (the 30 s schedule's, the flash sale's last) ran meanwhile:
      // then another lone order, up to five. A daemon that pulls on webhooks reads a page every time.
      const seen = async () => Object.values(await statusOf(port)).reduce((n, c) => n + c, 0)
      let probes = 0
      let alone: { order: number; page: number } | undefined
      for (; probes < 5 && alone === undefined; probes++) {
        const probeBefore = (await getJson(`${stack.shopify.url}/__sim/stats`)).operations as Record<string, number>
        await createOrders(stack, 1)
        await waitFor(seen, (n) => n === ORDERS + probes + 1, 30_000)
        const probeAfter = (await getJson(`${stack.shopify.url}/__sim/stats`)).operations as Record<string, number>
        const read = {
          order: (probeAfter["PodsyncOrder"] ?? 0) - (probeBefore["PodsyncOrder"] ?? 0),
          page: (probeAfter["PodsyncOrdersPage"] ?? 0) - (probeBefore["PodsyncOrdersPage"] ?? 0)
        }
        if (read.page === 0) alone = read
      }
      expect(alone, `${probes} lone orders, each met a store pull`).toBeDefined()
      expect(alone!.order).toBeGreaterThanOrEqual(1)
    } finally {
      await stopDaemons(daemon)
    }
  }, 240_000)
})

describe("the POD service's address and stock events, end to end", () => {
  const stack = sharedStack({ podRateLimit: false })

  const podApi = (path: string) =>
    fetch(`${stack.pod.url}${path}`, {
      headers: { "X-Gearment-Client-Key": "sim-client-key", "X-Gearment-Client-Secret": "sim-client-secret" }
    })
      .then((r) => r.json() as Promise<any>)

  /** Polls the daemon's story of an order until `check` holds. */
  const storyUntil = async (config: string, reference: string, check: (text: string) => boolean, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const story = await podsync(["explain", reference, "--config", config])
      if (check(story.stdout)) return story.stdout
      if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms:\n${story.stdout}\n${story.stderr}`)
      await new Promise((r) => setTimeout(r, 500))
    }
  }

  it(
    "an address the service cannot verify and a variant it runs out of make the order need a person, in status and explain, until they clear",
    async () => {
      const port = await freePort()
      // Defaults for the webhook keys: the daemon verifies with pod.clientSecret, as the simulator signs.
      const config = writeDaemonConfig(stack, port, {
        pull: "*/2 * * * * *",
        reconcile: "*/3 * * * * *",
        podWebhooks: true,
        name: "conditions"
      })
      const daemon = await startDaemon(config, port)
      try {
        // An order whose address the service cannot verify (the simulator's rule: zip code 00000), and two others.
        const [unverifiable] = await createOrders(stack, 1, { shippingAddress: { zip: "00000" } })
        const [, outOfStock] = await createOrders(stack, 2)
        const addressRef = `demo-shopify:${unverifiable}`
        const stockRef = `demo-shopify:${outOfStock}`

        // The draft is made, the service says at once it cannot verify the address: the order waits for a person.
        const addressStory = await storyUntil(config, addressRef, (text) => text.includes("pod_on_hold (address_unverified)"))
        expect(addressStory).toContain("could not verify the shipping address")
        expect(addressStory).toContain("correct it (or confirm it as it is) at the POD service")

        // The second order's variant runs out at the service while its draft waits for checkout.
        await storyUntil(config, stockRef, (text) => /: drafted, POD draft/.test(text))
        const drafts = await podApi(`/api/v3/orders/draft?filter.reference_ids=${encodeURIComponent(stockRef)}`)
        const variantId: string = drafts.data[0].line_items[0].variant.variant_id
        await post(`${stack.pod.url}/__sim/variants/${variantId}/stock`, { label: "OUT_OF_STOCK" })
        const stockStory = await storyUntil(config, stockRef, (text) => text.includes("pod_on_hold (variant_out_of_stock)"))
        expect(stockStory).toContain("Wait for the restock")

        const status = await podsync(["status", "--config", config])
        expect(status.stdout).toMatch(/demo-shopify\s+pod_on_hold: address_unverified\s+1\s/)
        expect(status.stdout).toMatch(/demo-shopify\s+pod_on_hold: variant_out_of_stock\s+1\s/)
        expect(status.stdout).toContain("correct or confirm it at the POD service")

        // Reconciliation (every 3 s) does not undo either while the service still says so.
        await new Promise((r) => setTimeout(r, 4_000))
        expect(await statusOf(port)).toMatchObject({ pod_on_hold: 2 })

        // The seller fixes the address at the service, the variant is restocked: both go on, and everything ships.
        const addressDraft = (await podApi(`/api/v3/orders/draft?filter.reference_ids=${encodeURIComponent(addressRef)}`)).data[0].order_id
        await post(`${stack.pod.url}/__sim/drafts/${addressDraft}/address-verification`, { verified: true })
        await post(`${stack.pod.url}/__sim/variants/${variantId}/stock`, { label: "IN_STOCK" })
        // The verified event lets the first go; the second has no back-in-stock event: the next reconciliation reads its draft.
        await storyUntil(
          config,
          addressRef,
          (text) => /pod_on_hold\s+-> drafted\s+the POD service has verified the shipping address/.test(text)
        )
        await storyUntil(config, stockRef, (text) => /pod_on_hold\s+-> drafted\s+the POD service has the variant in stock again/.test(text))
        const final = await driveUntil(stack, () => statusOf(port), (s) => (s.fulfilled ?? 0) === 3, 120_000)
        expect(final).toEqual({ fulfilled: 3 })
      } catch (error) {
        // What the daemon said, and what the store saw of it, so a failure here can be read.
        const shop = await getJson(`${stack.shopify.url}/__sim/stats`).catch(() => ({}))
        throw new Error(
          `${(error as Error).message}\n--- the daemon's log ---\n${daemon.output().slice(-6000)}\n--- Shopify ---\n${
            JSON.stringify(shop).slice(0, 2000)
          }`,
          {
            cause: error
          }
        )
      } finally {
        await stopDaemons(daemon)
      }
    },
    240_000
  )
})
