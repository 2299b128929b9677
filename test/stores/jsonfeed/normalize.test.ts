import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Option, Stream } from "effect"
import * as Money from "../../../src/domain/Money.js"
import type { NormalizedOrder } from "../../../src/domain/NormalizedOrder.js"
import { canonicalTimestamp, type FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import { normalizeJsonFeedOrder } from "../../../src/stores/jsonfeed/JsonFeedNormalize.js"
import { decodeJsonFeedOrder } from "../../../src/stores/jsonfeed/JsonFeedSchemas.js"
import { admin, connectTo, settle, type SimOrder, startSimulator } from "./harness.js"

const realistic = {
  currency: "EUR",
  financialStatus: "partially_refunded",
  email: "zoe.muller7@example.org",
  shipTo: {
    name: "Zoë Müller",
    first_name: "Zoë",
    last_name: "Müller",
    company: null,
    line1: "Hohe Straße 12",
    line2: null,
    city: "Köln",
    region: "Nordrhein-Westfalen",
    region_code: "NW",
    postal_code: "50667",
    country_code: "DE",
    country: "Germany",
    phone: "+49 221 555012"
  },
  shippingMethod: { title: "Express", code: "EXPRESS", price: "15.00" },
  lines: [
    {
      sku: "TEE-BLK-M",
      variantId: "4100001",
      productId: "4100",
      title: "Organic Tee – fern study",
      variantTitle: "Black / M",
      quantity: 2,
      unitPrice: "26.00",
      attributes: [
        { key: "design_front", value: "https://cdn.storefront.test/designs/fern-study/front.png" },
        { key: "gift_message", value: "Für Zoë ♥" }
      ]
    },
    {
      sku: null,
      variantId: "4300000",
      productId: "4300",
      title: "Enamel Mug",
      variantTitle: null,
      quantity: 1,
      unitPrice: "18.00",
      attributes: []
    }
  ],
  note: "Bitte klingeln",
  tags: ["vip", "pop-up"],
  attributes: [{ key: "channel", value: "pop-up store" }]
}

const apiGet = (sim: { baseUrl: string; token: string }, path: string) =>
  Effect.promise(async () => (await fetch(`${sim.baseUrl}${path}`, { headers: { Authorization: `Bearer ${sim.token}` } })).json())

describe("JSON feed normalization", () => {
  it.scopedLive("reads a realistic order exactly: address, lines, attributes, refunds, shipped units, money", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const created = yield* admin<SimOrder>(sim, "POST", "orders", realistic)
      const [tee, mug] = created.lines
      // One tee refunded; the mug shipped.
      yield* admin(sim, "PATCH", `orders/${created.id}`, { lines: [{ id: tee!.id, currentQuantity: 1 }] })
      const connector = yield* connectTo(sim)
      const mugPush: FulfillmentPush = {
        storeOrderId: created.id,
        lines: [{ lineId: mug!.id, quantity: 1 }],
        tracking: { company: "DHL", number: "JD0123" }
      }
      yield* connector.pushFulfillment(mugPush)
      const now = yield* admin<SimOrder & { created_at: string }>(sim, "GET", `orders/${created.id}`)

      const order = Option.getOrThrow(yield* connector.getOrder(created.id))
      const expected: NormalizedOrder = {
        storeKey: "acme-feed",
        platform: "jsonfeed",
        storeOrderId: created.id,
        name: `#${created.id.slice(4)}`,
        // The connector's canonical form: a whole second reads "…08Z", not "…08.000Z".
        createdAt: canonicalTimestamp(now.created_at)!,
        updatedAt: canonicalTimestamp(now.updated_at)!,
        currency: "EUR",
        financialStatus: "partially_refunded",
        fulfillmentStatus: "partial",
        cancelled: false,
        holds: [],
        email: "zoe.muller7@example.org",
        shipTo: {
          name: "Zoë Müller",
          firstName: "Zoë",
          lastName: "Müller",
          line1: "Hohe Straße 12",
          city: "Köln",
          region: "Nordrhein-Westfalen",
          regionCode: "NW",
          postalCode: "50667",
          countryCode: "DE",
          country: "Germany",
          phone: "+49 221 555012"
        },
        shippingMethod: { title: "Express", code: "EXPRESS" },
        lines: [
          {
            lineId: tee!.id,
            sku: "TEE-BLK-M",
            variantId: "4100001",
            productId: "4100",
            title: "Organic Tee – fern study",
            variantTitle: "Black / M",
            quantity: 2,
            currentQuantity: 1,
            fulfillableQuantity: 1,
            requiresShipping: true,
            attributes: [
              { key: "design_front", value: "https://cdn.storefront.test/designs/fern-study/front.png" },
              { key: "gift_message", value: "Für Zoë ♥" }
            ]
          },
          {
            lineId: mug!.id,
            variantId: "4300000",
            productId: "4300",
            title: "Enamel Mug",
            quantity: 1,
            currentQuantity: 1,
            fulfillableQuantity: 0,
            requiresShipping: true,
            attributes: []
          }
        ],
        note: "Bitte klingeln",
        tags: ["vip", "pop-up"],
        attributes: [{ key: "channel", value: "pop-up store" }],
        total: Either.getOrThrow(Money.fromDecimalString("EUR", "59.00")),
        raw: yield* apiGet(sim, `/orders/${created.id}`)
      }
      expect(order).toEqual(expected)
      // The pull reads it the same way.
      yield* settle(sim)
      const pulled = Chunk.toReadonlyArray(yield* Stream.runCollect(connector.pull(null))).flatMap((p) => p.orders)
      expect(pulled).toEqual([expected])
    }))

  const normalize = (order: unknown) =>
    Either.flatMap(
      Either.mapLeft(decodeJsonFeedOrder(order), (e) => e.message),
      (decoded) => normalizeJsonFeedOrder("shop", decoded, order)
    )

  const minimal = {
    id: 1042,
    created_at: "2026-03-01T10:00:00+01:00",
    updated_at: "2026-03-01T10:05:00.5+01:00",
    currency: "usd",
    financial_status: "PAID",
    lines: [{ id: 7, title: "Tee", quantity: 3, fulfilled_quantity: 1 }]
  }

  it("fills what a minimal order leaves out, and reads numbers as ids and statuses in any case", () => {
    expect(normalize(minimal)).toEqual(
      Either.right({
        storeKey: "shop",
        platform: "jsonfeed",
        storeOrderId: "1042",
        name: "1042",
        createdAt: "2026-03-01T09:00:00Z",
        updatedAt: "2026-03-01T09:05:00.500Z",
        currency: "USD",
        financialStatus: "paid",
        fulfillmentStatus: "partial",
        cancelled: false,
        holds: [],
        shipTo: null,
        tags: [],
        attributes: [],
        raw: minimal,
        lines: [{
          lineId: "7",
          title: "Tee",
          quantity: 3,
          currentQuantity: 3,
          fulfillableQuantity: 2,
          attributes: [],
          requiresShipping: true
        }]
      })
    )
  })

  it("keeps the status it is given, maps unknown statuses to unknown, strips a country prefix from region codes", () => {
    const order = {
      ...minimal,
      financial_status: "settled",
      fulfillment_status: "On_Hold",
      cancelled_at: null,
      holds: [{ id: "h1", reason: "address check" }],
      ship_to: { first_name: "Ana", last_name: "Lima", line1: "1 Main St", city: "Austin", region_code: "us-tx", country_code: "us" },
      total: 52.9
    }
    const normalized = Either.getOrThrow(normalize(order))
    expect(normalized).toMatchObject({
      financialStatus: "unknown",
      fulfillmentStatus: "on_hold",
      holds: [{ heldId: "h1", reason: "address check" }],
      shipTo: {
        name: "Ana Lima",
        firstName: "Ana",
        lastName: "Lima",
        line1: "1 Main St",
        city: "Austin",
        regionCode: "TX",
        countryCode: "US"
      }
    })
    expect(Money.toDecimalString(normalized.total!)).toBe("52.9")
    expect(Either.getOrThrow(normalize({ ...minimal, cancelled_at: "2026-03-02T08:00:00Z", cancel_reason: "fraud" }))).toMatchObject({
      cancelled: true,
      cancelledAt: "2026-03-02T08:00:00Z",
      cancelReason: "fraud"
    })
  })

  it("refuses to guess: a bad timestamp, currency, amount or quantity makes the order unreadable", () => {
    expect(normalize({ ...minimal, updated_at: "yesterday" })).toEqual(Either.left('updated_at "yesterday" is not an ISO-8601 timestamp'))
    expect(normalize({ ...minimal, currency: "dollars" })).toEqual(Either.left('currency "dollars" is not an ISO 4217 code'))
    expect(Either.isLeft(normalize({ ...minimal, total: "12,50" }))).toBe(true)
    expect(Either.isLeft(normalize({ ...minimal, lines: [{ id: 7, title: "Tee", quantity: -1 }] }))).toBe(true)
    expect(Either.isLeft(normalize({ ...minimal, id: "" }))).toBe(true)
  })
})

const minimalGood = {
  id: "ord_1",
  created_at: "2026-03-01T09:00:00Z",
  updated_at: "2026-03-01T09:30:00Z",
  currency: "EUR",
  financial_status: "paid",
  lines: []
}

/** A storefront that answers one fixed page: a good order, two unreadable ones, and an upper bound from the future. */
const quirkyStorefront = (page: unknown) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ baseUrl: string; token: string; url: string; webhookSecret: string; close: () => Promise<void> }>((resolve) => {
          const server = createServer((req, res) => {
            req.resume()
            req.on("end", () => res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(page)))
          })
          server.listen(0, "127.0.0.1", () => {
            const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
            resolve({ url, baseUrl: url, token: "t", webhookSecret: "s", close: () => new Promise((done) => server.close(() => done())) })
          })
        })
    ),
    (shop) => Effect.promise(shop.close)
  )

describe("JSON feed pages with orders that cannot be read", () => {
  it.scopedLive("reports them once per version beside the good ones, and disbelieves an upper bound from the future", () =>
    Effect.gen(function*() {
      const bad = {
        id: "ord_2",
        created_at: "2026-03-01T10:00:00Z",
        updated_at: "2026-03-01T10:00:01Z",
        currency: "EUR",
        financial_status: "paid"
      }
      const page = {
        orders: [{ ...minimalGood }, bad, bad, { id: "ord_3", updated_at: "not a date" }],
        next_cursor: null,
        upper_bound: "2999-01-01T00:00:00Z"
      }
      const shop = yield* quirkyStorefront(page)
      const connector = yield* connectTo(shop)
      const [only] = Chunk.toReadonlyArray(yield* Stream.runCollect(connector.pull(null)))
      expect(only!.orders.map((o) => o.storeOrderId)).toEqual(["ord_1"])
      expect(only!.unreadable.map((u) => [u.storeOrderId, u.raw])).toEqual([["ord_2", bad], ["ord_3", page.orders[3]]])
      expect(only!.unreadable[0]!.problem).toContain("lines")
      // The watermark is the newest order seen, not the year 2999.
      expect(only!.cursor.watermark).toBe("2026-03-01T10:00:01Z")
    }))
})
