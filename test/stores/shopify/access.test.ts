/**
 * What the Shopify connector does with what Shopify will not give it, over real HTTP against the
 * simulator: a partial answer (ACCESS_DENIED beside good data) is kept with what was withheld, never
 * a failed page; `checkAccess` names each missing scope and withheld buyer data; a frozen or locked
 * shop is the store unavailable, with Shopify's words; an order out of the 60-day window is explained.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Option, Stream } from "effect"
import { podsyncScopes } from "../../../src/simulator/shopify/index.js"
import { LEVEL_2_REASON } from "../../../src/stores/shopify/ShopifyWithheld.js"
import { admin, connectTo, startSimulator } from "./harness.js"

interface SimOrder {
  readonly id: string
  readonly legacyResourceId: string
  readonly lineItems: ReadonlyArray<{ readonly id: string; readonly quantity: number }>
  readonly shippingAddress: { readonly city: string; readonly countryCodeV2: string }
}

const spec = {
  financialStatus: "PAID",
  email: "bartholomew.okonkwo-lindqvist@example.co.uk",
  currencyCode: "GBP",
  lineItems: [
    { sku: "UTS01-FOREST-S", title: "Organic Cotton Tee – Forest Green", quantity: 2, price: "24.50" },
    { sku: "MUG-11OZ", title: "Ceramic Mug 11oz", quantity: 1, price: "12.00" }
  ]
}

const pullEverything = (connector: Effect.Effect.Success<ReturnType<typeof connectTo>>) =>
  Effect.map(Stream.runCollect(connector.pull(null)), (pages) => Chunk.toReadonlyArray(pages))

describe("Shopify partial answers", () => {
  it.scopedLive("a shop without Level 2 access: the orders are pulled whole but the buyer's details, with why", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ plan: "basic" })
      const order = yield* admin<SimOrder>(sim, "POST", "orders", spec)
      yield* admin(sim, "POST", "orders/bulk", { count: 12 })
      const connector = yield* connectTo(sim, { pageSize: 5 })
      const pages = yield* pullEverything(connector)
      expect(pages.flatMap((p) => p.unreadable)).toEqual([])
      const orders = pages.flatMap((p) => p.orders)
      expect(orders).toHaveLength(13)
      const pulled = orders.find((o) => o.storeOrderId === order.legacyResourceId)!
      // What Shopify gave is there; what it withheld is absent, and said.
      expect(pulled.lines.map((l) => [l.sku, l.quantity])).toEqual([["UTS01-FOREST-S", 2], ["MUG-11OZ", 1]])
      expect(pulled.total).toBeDefined()
      expect(pulled.email).toBeUndefined()
      expect(pulled.shipTo).toMatchObject({ city: order.shippingAddress.city, countryCode: order.shippingAddress.countryCodeV2 })
      expect(pulled.shipTo?.line1).toBeUndefined()
      expect(pulled.withheld).toEqual([{
        fields: expect.arrayContaining(["email", "shipTo.name", "shipTo.line1", "shipTo.postalCode", "shipTo.phone"]),
        reason: LEVEL_2_REASON
      }])
      expect(orders.every((o) => o.withheld?.[0]?.reason === LEVEL_2_REASON)).toBe(true)
      // Read by id, the same.
      const byId = Option.getOrThrow(yield* connector.getOrder(order.legacyResourceId))
      expect(byId.withheld).toEqual(pulled.withheld)
    }))

  it.scopedLive("without read_products every line's variant and product are withheld, on every line item page", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ scopes: podsyncScopes.filter((s) => s !== "read_products") })
      // 14 lines: the pull's first page holds 10, a follow-up query the rest.
      const lineItems = Array.from({ length: 14 }, (_, i) => ({ sku: `TEE-${i}`, title: `Tee ${i}`, quantity: 1, variantId: `4471${i}` }))
      const order = yield* admin<SimOrder>(sim, "POST", "orders", { ...spec, lineItems })
      const connector = yield* connectTo(sim)
      const [pulled] = (yield* pullEverything(connector)).flatMap((p) => p.orders)
      expect(pulled?.lines).toHaveLength(14)
      expect(pulled?.lines.every((l) => l.variantId === undefined && l.sku !== undefined)).toBe(true)
      expect(pulled?.email).toBe(spec.email)
      const [withheld] = pulled?.withheld ?? []
      expect(withheld?.fields).toEqual(order.lineItems.flatMap((l) => [`lines.${l.id}.variantId`, `lines.${l.id}.productId`]))
      expect(withheld?.reason).toContain("lacks the read_products access scope")
    }))

  it.scopedLive("an order whose whole fulfilment orders are denied is an error naming the scope, not a partial order", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ scopes: podsyncScopes.filter((s) => !s.includes("merchant_managed")) })
      const order = yield* admin<SimOrder>(sim, "POST", "orders", spec)
      const connector = yield* connectTo(sim)
      const read = yield* Effect.either(connector.getOrder(order.legacyResourceId))
      expect(Either.isLeft(read) && read.left._tag).toBe("StoreApiError")
      expect(Either.isLeft(read) && read.left.message).toContain("read_merchant_managed_fulfillment_orders")
    }))
})

describe("Shopify checkAccess", () => {
  it.scopedLive("names each missing scope with what fails without it; read_all_orders is a warning", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({
        scopes: ["read_orders", "read_merchant_managed_fulfillment_orders", "write_merchant_managed_fulfillment_orders"]
      })
      yield* admin(sim, "POST", "orders", spec)
      const connector = yield* connectTo(sim)
      const findings = yield* connector.checkAccess!()
      expect(findings.map((f) => [f.severity, f.message.split(":")[0]])).toEqual([
        ["error", "the app lacks the write_orders access scope"],
        ["error", "the app lacks the read_products access scope"],
        ["warning", "the app lacks the read_all_orders access scope"]
      ])
      expect(findings[1]?.message).toContain("lines mapped by variant id are held")
      expect(findings[2]?.message).toContain("orders older than 60 days read as missing")
    }))

  it.scopedLive("says when the buyer's details are withheld, and nothing when the app has all it needs", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ plan: "basic" })
      const connector = yield* connectTo(sim)
      expect((yield* connector.checkAccess!()).map((f) => f.severity)).toEqual(["note"])
      yield* admin(sim, "POST", "orders", spec)
      const findings = yield* connector.checkAccess!()
      expect(findings).toEqual([{ severity: "error", message: `${LEVEL_2_REASON}. Until then every order is held` }])
      yield* admin(sim, "POST", "shop", { plan: "shopify" })
      expect(yield* connector.checkAccess!()).toEqual([])
    }))
})

describe("Shopify unavailable shop", () => {
  for (const [standing, status, words] of [["frozen", 402, "frozen"], ["locked", 423, "locked"]] as const) {
    it.scopedLive(`a ${standing} shop (${status}) is the store unavailable with Shopify's words, until it answers again`, () =>
      Effect.gen(function*() {
        const sim = yield* startSimulator()
        const order = yield* admin<SimOrder>(sim, "POST", "orders", spec)
        const connector = yield* connectTo(sim)
        yield* admin(sim, "POST", "shop", { standing })
        const read = yield* Effect.either(connector.getOrder(order.legacyResourceId))
        expect(Either.isLeft(read) && read.left).toMatchObject({ _tag: "StoreUnavailableError", status, ambiguous: false })
        expect(Either.isLeft(read) && read.left.message).toContain(
          `the shop is ${words} ("${status === 402 ? "Unavailable Shop" : "Locked"}")`
        )
        yield* admin(sim, "POST", "shop", { standing: "active" })
        expect(Option.isSome(yield* connector.getOrder(order.legacyResourceId))).toBe(true)
      }))
  }
})

describe("Shopify orders older than 60 days", () => {
  it.scopedLive("without read_all_orders a late package's push is refused as unknown, saying why; with it, it goes", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ scopes: podsyncScopes.filter((s) => s !== "read_all_orders") })
      const order = yield* admin<SimOrder>(sim, "POST", "orders", spec)
      yield* admin(sim, "POST", "clock/advance", { seconds: 61 * 86_400 })
      const connector = yield* connectTo(sim)
      const push = {
        storeOrderId: order.legacyResourceId,
        lines: [{ lineId: order.lineItems[0]!.id, quantity: 2 }] as const,
        tracking: { company: "Royal Mail", number: "RM123456785GB" }
      }
      const refused = yield* connector.pushFulfillment(push)
      expect(refused).toMatchObject({ _tag: "Rejected", reason: "unknown_order" })
      expect(refused._tag === "Rejected" && refused.messages[0]).toContain("without the read_all_orders access scope only the last 60 days")
      const [batched] = yield* connector.pushFulfillments!([push])
      expect(batched).toEqual(Either.right(refused))
      yield* admin(sim, "POST", "shop", { scopes: podsyncScopes })
      expect(yield* connector.pushFulfillment(push)).toMatchObject({ _tag: "Created" })
    }))
})
