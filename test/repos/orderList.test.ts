import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { sql } from "kysely"
import { Db } from "../../src/db/Db.js"
import type { OrderState } from "../../src/domain/OrderState.js"
import { type ListCursor, type OrderListFilter, OrderListRepo } from "../../src/repos/OrderListRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { testDatabases } from "../support/database.js"
import { sampleLine, sampleOrder } from "../support/orders.js"

interface Seeded {
  readonly storeKey: string
  readonly storeOrderId: string
  readonly name: string
  readonly buyer: string
  readonly email: string
  readonly skus: ReadonlyArray<string>
  readonly state: OrderState
  readonly podDraftId?: string
  readonly podOrderId?: string
  readonly podStatus?: string
  readonly pulledAt: string
}

const STATES: ReadonlyArray<OrderState> = ["fulfilled", "drafted", "held", "shipped", "checked_out", "failed"]

/** 36 orders of two stores (EUR and USD), one every 6 hours from 2026-11-20, long names, several states. */
const ORDERS: ReadonlyArray<Seeded> = Array.from({ length: 36 }, (_, i) => {
  const etsy = i % 2 === 1
  const state = STATES[i % STATES.length] ?? "fulfilled"
  const drafted = state !== "held" && state !== "failed"
  return {
    storeKey: etsy ? "etsy-atelier" : "acme-shopify",
    storeOrderId: String(5550000 + i),
    name: etsy ? `${3100 + i}` : `#${1000 + i}`,
    buyer: i === 7 ? "Maria-Antonietta Castellano de la Vega y Fuentes" : i % 3 === 0 ? `Anna Schmidt ${i}` : `Jean Dupont ${i}`,
    email: `buyer${i}@example.com`,
    skus: i === 9 ? ["POSTER-A2-MATTE", "TEE-ORGANIC-HEATHER-XXL"] : [`TEE-BLK-${i % 4 === 0 ? "M" : "L"}`],
    state,
    ...(drafted ? { podDraftId: `d_${i}abc` } : {}),
    ...(drafted && state !== "drafted" ? { podOrderId: `o_${i}xyz` } : {}),
    ...(state === "checked_out"
      ? { podStatus: i % 4 === 0 ? "VENDOR_ORDER_STATUS_PAYMENT_FAILED" : "VENDOR_ORDER_STATUS_AWAITING_PAYMENT" }
      : {}),
    pulledAt: new Date(Date.parse("2026-11-20T00:00:00Z") + i * 6 * 3_600_000).toISOString()
  }
})

const seed = Effect.gen(function*() {
  const orders = yield* OrdersRepo
  const db = yield* Db
  for (const o of ORDERS) {
    const order = sampleOrder({
      storeKey: o.storeKey,
      platform: o.storeKey === "etsy-atelier" ? "etsy" : "shopify",
      storeOrderId: o.storeOrderId,
      name: o.name,
      email: o.email,
      currency: o.storeKey === "etsy-atelier" ? "USD" : "EUR",
      shipTo: { name: o.buyer, line1: "Hauptstraße 5", city: "München", postalCode: "80331", countryCode: "DE" },
      lines: o.skus.map((sku, n) => sampleLine({ lineId: `line-${n}`, sku }))
    })
    const { id } = yield* orders.upsertPulled(order, `${o.storeKey}:${o.storeOrderId}`)
    yield* db.use((k) =>
      sql`update store_orders set state = ${o.state}, pod_draft_id = ${o.podDraftId ?? null}, pod_order_id = ${o.podOrderId ?? null},
        pod_status = ${o.podStatus ?? null}, created_at = ${o.pulledAt}::timestamptz where id = ${id}`.execute(k)
    )
  }
})

const refsOf = (filter: Partial<OrderListFilter>) =>
  Effect.flatMap(OrderListRepo, (repo) => repo.list({ limit: 100, ...filter })).pipe(
    Effect.map((page) => page.orders.map((o) => o.referenceId))
  )

const newestFirst = (orders: ReadonlyArray<Seeded>) =>
  [...orders].sort((a, b) => b.pulledAt.localeCompare(a.pulledAt)).map((o) => `${o.storeKey}:${o.storeOrderId}`)

for (const database of testDatabases()) {
  layer(Layer.provideMerge(Layer.mergeAll(OrdersRepo.Default, OrderListRepo.Default), database.layer))(
    `the console's list of all orders on ${database.name}`,
    (it) => {
      it.effect("finds an order by its number, buyer, email, SKU, reference id and POD ids", () =>
        Effect.gen(function*() {
          yield* seed
          expect(yield* refsOf({ search: "#1004" })).toEqual(["acme-shopify:5550004"])
          expect(yield* refsOf({ search: "1004" })).toEqual(["acme-shopify:5550004"])
          expect(yield* refsOf({ search: "3105" })).toEqual(["etsy-atelier:5550005"])
          // A buyer by one word of the name, by two, and by the whole long name typed in another case.
          expect(yield* refsOf({ search: "castellano" })).toEqual(["etsy-atelier:5550007"])
          expect(yield* refsOf({ search: "Anna  Schmidt 12" })).toEqual(["acme-shopify:5550012"])
          expect(yield* refsOf({ search: "MARIA-ANTONIETTA castellano de la vega y fuentes" })).toEqual(["etsy-atelier:5550007"])
          expect(yield* refsOf({ search: "Buyer11@Example.com" })).toEqual(["etsy-atelier:5550011"])
          expect(yield* refsOf({ search: "buyer11" })).toEqual(["etsy-atelier:5550011"])
          expect(yield* refsOf({ search: "tee-organic-heather-xxl" })).toEqual(["etsy-atelier:5550009"])
          expect(yield* refsOf({ search: "POSTER-A2-MATTE" })).toEqual(["etsy-atelier:5550009"])
          expect(yield* refsOf({ search: "TEE-BLK-M" })).toEqual(
            newestFirst(ORDERS.filter((o) => o.skus.includes("TEE-BLK-M")))
          )
          expect(yield* refsOf({ search: "acme-shopify:5550020" })).toEqual(["acme-shopify:5550020"])
          expect(yield* refsOf({ search: "5550021" })).toEqual(["etsy-atelier:5550021"])
          expect(yield* refsOf({ search: "d_13abc" })).toEqual(["etsy-atelier:5550013"])
          expect(yield* refsOf({ search: "o_15xyz" })).toEqual(["etsy-atelier:5550015"])
          expect(yield* refsOf({ search: "nobody-ordered-this" })).toEqual([])
        }))

      it.effect("filters by state, store and the day it was pulled, and searches within them", () =>
        Effect.gen(function*() {
          yield* seed
          expect(yield* refsOf({ state: "held" })).toEqual(newestFirst(ORDERS.filter((o) => o.state === "held")))
          expect(yield* refsOf({ storeKey: "etsy-atelier" })).toEqual(newestFirst(ORDERS.filter((o) => o.storeKey === "etsy-atelier")))
          const from = new Date("2026-11-22T00:00:00Z")
          const to = new Date("2026-11-23T00:00:00Z")
          expect(yield* refsOf({ from, to })).toEqual(
            newestFirst(ORDERS.filter((o) => o.pulledAt >= from.toISOString() && o.pulledAt < to.toISOString()))
          )
          expect(yield* refsOf({ storeKey: "acme-shopify", state: "fulfilled", search: "tee-blk-m" })).toEqual([
            "acme-shopify:5550024",
            "acme-shopify:5550012",
            "acme-shopify:5550000"
          ])
          const counted = yield* Effect.flatMap(OrderListRepo, (repo) => repo.list({ limit: 5, storeKey: "etsy-atelier" }))
          expect(counted.matching).toBe(18)
          expect(counted.countCapped).toBe(false)
          expect(yield* Effect.flatMap(OrderListRepo, (repo) => repo.storeKeys)).toEqual(["acme-shopify", "etsy-atelier"])
        }))

      it.effect("pages through every order without a gap or a repeat, both ways, while new orders come in", () =>
        Effect.gen(function*() {
          yield* seed
          const repo = yield* OrderListRepo
          const seen: Array<string> = []
          let cursor: ListCursor | undefined
          let pages = 0
          for (;;) {
            const page = yield* repo.list({ limit: 7, cursor })
            seen.push(...page.orders.map((o) => o.referenceId))
            pages++
            if (pages === 2) {
              // An order pulled meanwhile is newer than every page: the next pages are as they were.
              yield* Effect.flatMap(OrdersRepo, (r) =>
                r.upsertPulled(sampleOrder({ storeOrderId: "9990001", name: "#9001" }), "acme-shopify:9990001"))
            }
            const last = page.orders.at(-1)
            if (!page.older || last === undefined) {
              break
            }
            cursor = { direction: "older", createdAt: last.cursorAt, id: last.id }
          }
          expect(pages).toBe(6)
          expect(seen).toEqual(newestFirst(ORDERS))

          // Back from the oldest page towards the newest: the same orders, and then the new one.
          const back: Array<string> = []
          let first = (yield* repo.list({ limit: 7, cursor })).orders[0]
          back.unshift(...(yield* repo.list({ limit: 7, cursor })).orders.map((o) =>
            o.referenceId
          ))
          for (;;) {
            if (first === undefined) break
            const page = yield* repo.list({ limit: 7, cursor: { direction: "newer", createdAt: first.cursorAt, id: first.id } })
            back.unshift(...page.orders.map((o) => o.referenceId))
            first = page.newer ? page.orders[0] : undefined
          }
          expect(back).toEqual(["acme-shopify:9990001", ...newestFirst(ORDERS)])
        }))

      it.effect("lists the drafts to check out and the POD orders to pay, oldest first, and those whose payment failed", () =>
        Effect.gen(function*() {
          yield* seed
          const { orders, total } = yield* Effect.flatMap(OrderListRepo, (repo) => repo.toPay(100))
          const expected = ORDERS.filter((o) => o.state === "drafted" || o.podStatus !== undefined)
          expect(total).toBe(expected.length)
          expect(orders.map((o) => o.referenceId)).toEqual([...newestFirst(expected)].reverse())
          expect(orders.find((o) => o.referenceId === "acme-shopify:5550004")?.kind).toBe("payment_failed")
          expect(orders.find((o) => o.referenceId === "etsy-atelier:5550001")?.kind).toBe("checkout")
          expect(orders.find((o) => o.referenceId === "acme-shopify:5550010")?.kind).toBe("awaiting_payment")
        }))
    }
  )
}
