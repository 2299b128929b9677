/**
 * A running daemon against a Shopify store that does not give podsync everything (issue 31): a
 * shop without Level 2 protected customer data, an app without a scope, a frozen or locked shop,
 * webhooks signed with another key, a pre-order. Each ends with the orders held (or waiting) with a
 * reason a seller understands, never a failed pull, and moves on by itself once the seller fixes it.
 */
import * as fs from "node:fs"
import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { podsyncScopes } from "../../src/simulator/shopify/index.js"
import { testDatabases } from "../support/database.js"
import { sharedDatabase } from "../support/sharedDatabase.js"
import { createOrders, driveUntil, getJson, post, statusOf } from "../support/pipeline.js"
import { simAdmin } from "../support/simAdmin.js"
import { daemonInProcess, scopedStack, until } from "../support/daemonInProcess.js"

const STORE = "demo-shopify"

interface Held {
  readonly storeKey: string
  readonly reason: string
  readonly count: number
}
interface Attention {
  readonly what: string
  readonly action: string
}
interface Status {
  readonly held: ReadonlyArray<Held>
  readonly attention: ReadonlyArray<Attention>
  readonly unreachable?: ReadonlyArray<{ readonly dependency: string; readonly lastError: string }>
  readonly webhookSignatures?: ReadonlyArray<{ readonly storeKey: string; readonly refused: number; readonly detail: string }>
}

const status = (port: number) => getJson(`http://127.0.0.1:${port}/status`) as Promise<Status>
const story = async (port: number, ref: string) =>
  ((await getJson(`http://127.0.0.1:${port}/explain?ref=${encodeURIComponent(ref)}`)).events as ReadonlyArray<{ reason: string | null }>)
    .map((e) => e.reason ?? "")

const failedPulls = (lines: ReadonlyArray<string>) => lines.filter((l) => l.includes(`pull of ${STORE} failed`))

describe.each(testDatabases())("a Shopify store that withholds data from a running daemon ($name)", (fresh) => {
  // One database for the block, emptied as each test's daemon starts on it: no test here is about a
  // new database, and each daemon still starts on an empty one (its store's cursor, orders and leases gone).
  const database = sharedDatabase(fresh)
  it.scopedLive(
    "without Level 2 access every order is held saying why, no pull fails, and each is drafted once the plan gives the data",
    () =>
      Effect.gen(function*() {
        const stack = yield* scopedStack()
        yield* Effect.promise(() => simAdmin(stack.shopify.url, "POST", "shop", { plan: "basic" }))
        const ids = yield* Effect.promise(() => createOrders(stack, 4))
        const { port, lines } = yield* daemonInProcess(stack, database.layer)
        yield* until("the orders to be held", async () => (await statusOf(port)).held === 4, 30_000)
        const held = yield* Effect.promise(() => status(port))
        expect(held.held).toMatchObject([{ storeKey: STORE, reason: "withheld_by_store", count: 4 }])
        expect(held.attention.find((a) => a.what === "held: withheld_by_store")?.action).toContain("Level 2 protected customer data")
        const told = yield* Effect.promise(() => story(port, `${STORE}:${ids[0]}`))
        expect(told.some((r) => r.startsWith("the store withheld the buyer's email, name, address"))).toBe(true)
        expect(told.some((r) => r.includes("on the Shopify plan or higher"))).toBe(true)
        expect(failedPulls(lines)).toEqual([])

        // The seller moves to the Shopify plan: nothing changes in the orders, yet each is read again and drafted.
        yield* Effect.promise(() => simAdmin(stack.shopify.url, "POST", "shop", { plan: "shopify" }))
        yield* until("the orders to be drafted", async () => ((await statusOf(port)).drafted ?? 0) === 4, 30_000)
        expect(lines.some((l) => l.includes("held order(s) read again: the store now gives what it withheld"))).toBe(true)
        const released = yield* Effect.promise(() => story(port, `${STORE}:${ids[0]}`))
        expect(released).toContain("the store now gives podsync what it withheld before")
        expect(failedPulls(lines)).toEqual([])
      }),
    120_000
  )

  it.scopedLive(
    "without read_products a line mapped by variant id is held saying which scope, and drafted once it is granted",
    () =>
      Effect.gen(function*() {
        const stack = yield* scopedStack()
        // The mapping names store variants (not SKUs), as many sellers' files do.
        fs.writeFileSync(
          stack.mappingFile,
          [
            "store_variant_id,store_sku,pod_variant_id,pod_legacy_id,print_front,print_back,print_pocket,print_left_sleeve,print_right_sleeve,print_whole,barcode_url,ignore",
            "44170001,,GM0002010011,,https://cdn.example.com/designs/podsync-front.png,,,,,,,",
            "44170002,,GM0002010020,,https://cdn.example.com/designs/podsync-front.png,,,,,,,"
          ].join("\n")
        )
        yield* Effect.promise(() =>
          simAdmin(stack.shopify.url, "POST", "shop", { scopes: podsyncScopes.filter((s) => s !== "read_products") })
        )
        const order = yield* Effect.promise(() =>
          post(`${stack.shopify.url}/__sim/orders`, {
            financialStatus: "PAID",
            lineItems: [
              { sku: "TEE-FOREST-S", variantId: "44170001", title: "Organic Tee – Forest Green / S", quantity: 2, price: "24.00" },
              { sku: "TEE-HEATHER-M", variantId: "44170002", title: "Organic Tee – Dark Heather / M", quantity: 1, price: "24.00" }
            ]
          })
        )
        const { port, lines } = yield* daemonInProcess(stack, database.layer)
        yield* until("the order to be held", async () => (await statusOf(port)).held === 1, 30_000)
        expect((yield* Effect.promise(() => status(port))).held).toMatchObject([{ reason: "withheld_by_store", count: 1 }])
        const told = yield* Effect.promise(() => story(port, `${STORE}:${order.legacyResourceId}`))
        expect(told.some((r) => r.includes("the store withheld its variant") && r.includes("lacks the read_products access scope")))
          .toBe(true)
        expect(failedPulls(lines)).toEqual([])

        yield* Effect.promise(() => simAdmin(stack.shopify.url, "POST", "shop", { scopes: podsyncScopes }))
        yield* until("the order to be drafted", async () => ((await statusOf(port)).drafted ?? 0) === 1, 30_000)
      }),
    120_000
  )

  it.scopedLive(
    "a frozen then locked shop is an outage with Shopify's words, probed; the pushes resume the moment it answers",
    () =>
      Effect.gen(function*() {
        const stack = yield* scopedStack()
        const { port, lines } = yield* daemonInProcess(stack, database.layer)
        yield* Effect.promise(() => createOrders(stack, 3))
        yield* until("the orders to be drafted", async () => ((await statusOf(port)).drafted ?? 0) === 3, 30_000)
        // The lines from the freeze on: on a loaded machine a pull before it may time out, an outage of its own.
        const sinceFrozen = lines.length
        yield* Effect.promise(() => simAdmin(stack.shopify.url, "POST", "shop", { standing: "frozen" }))
        yield* Effect.promise(() => simAdmin(stack.pod.url, "POST", "checkout-all", { paid: true }))
        yield* Effect.promise(() => simAdmin(stack.pod.url, "POST", "ship-all"))
        const frozen = yield* until("the outage to be reported", async () =>
          ((await status(port)).unreachable ?? []).some((u) => u.dependency === `store:${STORE}`), 30_000).pipe(
            Effect.zipRight(Effect.promise(() =>
              status(port)
            ))
          )
        expect(frozen.unreachable?.find((u) => u.dependency === `store:${STORE}`)?.lastError).toBe(
          'HTTP 402 Payment Required: the shop is frozen until its owner pays the platform\'s bill ("Unavailable Shop")'
        )
        yield* until("the shipped orders to wait for the store", async () => ((await statusOf(port)).shipped ?? 0) === 3, 30_000)
        expect(lines.slice(sinceFrozen).filter((l) => l.includes(`store ${STORE} unreachable since`))).toHaveLength(1)
        expect(lines.some((l) => l.includes("not a GraphQL response"))).toBe(false)

        // Locked next: still the same outage, now saying so.
        yield* Effect.promise(() => simAdmin(stack.shopify.url, "POST", "shop", { standing: "locked" }))
        yield* until("the lock to be said", async () =>
          ((await status(port)).unreachable ?? []).some((u) =>
            u.lastError.startsWith("HTTP 423 Locked")
          ), 30_000)

        // Back: the probe's answer wakes the waiting pushes at once.
        yield* Effect.promise(() =>
          simAdmin(stack.shopify.url, "POST", "shop", { standing: "active" })
        )
        yield* until("the pushes to be made", async () => ((await statusOf(port)).fulfilled ?? 0) === 3, 30_000)
        expect(lines.slice(sinceFrozen).some((l) => l.includes(`store ${STORE} back after`))).toBe(true)
        expect((yield* Effect.promise(() => status(port))).unreachable).toEqual([])
      }),
    120_000
  )
})

describe("a running daemon and Shopify's other answers", () => {
  const database = sharedDatabase(testDatabases()[0]!)

  it.scopedLive("webhooks signed with another key are said once, in the log and /status, until one verifies", () =>
    Effect.gen(function*() {
      const stack = yield* scopedStack()
      const { port, lines } = yield* daemonInProcess(stack, database.layer)
      const deliver = (key: string, n: number) => {
        const body = JSON.stringify({ id: 5610000001 + n, updated_at: "2026-11-21T10:00:00Z" })
        return fetch(`http://127.0.0.1:${port}/webhooks/${STORE}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-shopify-topic": "orders/updated",
            "x-shopify-hmac-sha256": createHmac("sha256", key).update(body).digest("base64"),
            "x-shopify-shop-domain": "acme.myshopify.com",
            "x-shopify-webhook-id": `wh-${n}`,
            "x-shopify-event-id": `ev-${n}`
          },
          body
        })
      }
      // Made by hand in the Shopify admin: signed with the key that admin page shows.
      for (let n = 0; n < 3; n++) expect((yield* Effect.promise(() => deliver("key-shown-in-the-admin", n))).status).toBe(401)
      const said = lines.filter((l) => l.includes(`store ${STORE}'s webhooks are refused`))
      expect(said).toHaveLength(1)
      expect(said[0]).toContain("signed with the key shown on that page, not with the app's client secret")
      const refused = (yield* Effect.promise(() => status(port))).webhookSignatures
      expect(refused).toMatchObject([{ storeKey: STORE, refused: 3 }])
      expect(refused?.[0]?.detail).toContain("Settings › Notifications › Webhooks")
      // The seller sets the right key: the next delivery verifies and the trouble is over.
      expect((yield* Effect.promise(() => deliver(stack.shopify.webhookSecret, 9))).status).toBe(200)
      expect((yield* Effect.promise(() => status(port))).webhookSignatures).toEqual([])
    }), 60_000)

  it.scopedLive("a pre-order's tracking waits for its date, and the order's story says until when", () =>
    Effect.gen(function*() {
      const stack = yield* scopedStack()
      const fulfillAt = "2030-03-14T09:00:00Z"
      const [id] = yield* Effect.promise(() => createOrders(stack, 1, { fulfillAt }))
      const { port } = yield* daemonInProcess(stack, database.layer)
      yield* Effect.promise(() => driveUntil(stack, () => statusOf(port), (s) => (s.shipped ?? 0) === 1, 60_000))
      const ref = `${STORE}:${id}`
      yield* until("the push to have been tried", async () => (await story(port, ref)).some((r) => r.includes("schedules")), 30_000)
      const told = yield* Effect.promise(() => story(port, ref))
      expect(told.find((r) => r.includes("schedules"))).toMatch(
        new RegExp(
          `^the store schedules this order's fulfilment for later \\(a pre-order or a "fulfil at" date: ${fulfillAt}\\): tracking \\S+ waits until then$`
        )
      )
      expect(told.some((r) => r.includes("nothing left") || r.includes("no units"))).toBe(false)
      expect(yield* Effect.promise(() => statusOf(port))).toEqual({ shipped: 1 })
    }), 90_000)
})
