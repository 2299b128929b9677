/**
 * Batched annotations (`annotateMany`) over real HTTP against the Shopify
 * simulator: one mutation for many orders, each order's tag and metafield
 * set, a refusal failing only the order it names.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { RunningShopifySimulator } from "../../../src/simulator/shopify/index.js"
import { DRAFTED_TAG, draftedAnnotation } from "../../../src/domain/StoreTypes.js"
import { metafieldIndexOf } from "../../../src/stores/shopify/ShopifyAnnotations.js"
import { admin, connectTo, startSimulator } from "./harness.js"

interface SimOrder {
  readonly legacyResourceId: string
  readonly tags: ReadonlyArray<string>
  readonly metafields: ReadonlyArray<{ namespace: string; key: string; value: string }>
}

interface Stats {
  readonly requests: number
  readonly mutations: Record<string, number>
  readonly operations: Record<string, number>
}

const stats = (sim: RunningShopifySimulator) => admin<Stats>(sim, "GET", "stats")
const read = (sim: RunningShopifySimulator, id: string) => admin<SimOrder>(sim, "GET", `orders/${id}`)
const marks = (order: SimOrder) => ({ tags: order.tags, metafields: order.metafields.map((m) => [m.namespace, m.key, m.value]) })

const createOrders = (sim: RunningShopifySimulator, count: number) =>
  Effect.forEach(Array.from({ length: count }), () => admin<SimOrder>(sim, "POST", "orders", { tags: ["vip"] }))

/** A simulator with `count` orders tagged vip, and a connector to it. */
const withOrders = (count: number) =>
  Effect.gen(function*() {
    const sim = yield* startSimulator()
    const orders = yield* createOrders(sim, count)
    return { sim, orders, connector: yield* connectTo(sim) }
  })

describe("Shopify batched annotations", () => {
  it.scopedLive("tags and sets the draft metafield of many orders in one request, repeatably", () =>
    Effect.gen(function*() {
      const { sim, orders, connector } = yield* withOrders(7)
      const items = orders.map((o, i) => ({ storeOrderId: o.legacyResourceId, annotation: draftedAnnotation(`dft_${i}`) }))

      const before = yield* stats(sim)
      const results = yield* connector.annotateMany!(items)
      const after = yield* stats(sim)
      expect(results.every(Either.isRight)).toBe(true)
      expect(after.requests - before.requests).toBe(1)
      expect(after.operations["PodsyncAnnotateMany"]).toBe(1)
      expect(after.mutations).toMatchObject({ metafieldsSet: 1, tagsAdd: 7 })
      for (const [i, o] of orders.entries()) {
        expect(marks(yield* read(sim, o.legacyResourceId))).toEqual({
          tags: ["vip", DRAFTED_TAG],
          metafields: [["podsync", "draft", `dft_${i}`]]
        })
      }

      // Again: nothing changes, still one request.
      expect((yield* connector.annotateMany!(items)).every(Either.isRight)).toBe(true)
      expect((yield* stats(sim)).requests - after.requests).toBe(1)
      for (const [i, o] of orders.entries()) {
        expect(marks(yield* read(sim, o.legacyResourceId))).toEqual({
          tags: ["vip", DRAFTED_TAG],
          metafields: [["podsync", "draft", `dft_${i}`]]
        })
      }
    }))

  it.scopedLive("a refusal fails only the order it names, with the error a single annotate gives", () =>
    Effect.gen(function*() {
      const { sim, orders, connector } = yield* withOrders(4)
      const items = [
        { storeOrderId: orders[0]!.legacyResourceId, annotation: draftedAnnotation("dft_0") },
        // Unknown to the store: metafieldsSet refuses its owner, tagsAdd its id.
        { storeOrderId: "424242", annotation: draftedAnnotation("dft_x") },
        { storeOrderId: orders[1]!.legacyResourceId, annotation: { field: { key: "draft", value: "dft_1" } } },
        // A value a single-line field refuses.
        { storeOrderId: orders[2]!.legacyResourceId, annotation: { tag: DRAFTED_TAG, field: { key: "draft", value: "two\nlines" } } },
        { storeOrderId: orders[3]!.legacyResourceId, annotation: { tag: "podsync:only-a-tag" } },
        { storeOrderId: "#1001", annotation: draftedAnnotation("dft_y") },
        { storeOrderId: orders[3]!.legacyResourceId, annotation: { note: "Shopify keeps no notes" } }
      ]

      const before = yield* stats(sim)
      const results = yield* connector.annotateMany!(items)
      const after = yield* stats(sim)
      // The batch, then the metafields it did not refuse again: metafieldsSet saves all or none.
      expect(after.requests - before.requests).toBe(2)
      expect(after.operations).toMatchObject({ PodsyncAnnotateMany: 1, PodsyncMetafieldsSet: 1 })

      const singles = yield* Effect.forEach(items, (item) => Effect.either(connector.annotate(item.storeOrderId, item.annotation)))
      const errorOf = (r: Either.Either<void, { _tag: string; operation: string; messages?: ReadonlyArray<string> }>) =>
        Either.match(r, { onRight: () => "ok", onLeft: (e) => ({ tag: e._tag, operation: e.operation, messages: e.messages }) })
      expect(results.map(errorOf)).toEqual(singles.map(errorOf))
      expect(results.map(errorOf)).toEqual([
        "ok",
        { tag: "StoreApiError", operation: "metafieldsSet", messages: ["Owner does not exist."] },
        "ok",
        { tag: "StoreApiError", operation: "metafieldsSet", messages: ["Value must be a single line."] },
        "ok",
        { tag: "StoreApiError", operation: "annotate", messages: ['"#1001" is not a Shopify order id'] },
        "ok"
      ])

      const [first, second, third, fourth] = yield* Effect.forEach(orders, (o) => read(sim, o.legacyResourceId))
      expect(marks(first!)).toEqual({ tags: ["vip", DRAFTED_TAG], metafields: [["podsync", "draft", "dft_0"]] })
      expect(marks(second!)).toEqual({ tags: ["vip"], metafields: [["podsync", "draft", "dft_1"]] })
      // As with a single annotate, its tag was added in the same request; its metafield was not.
      expect(marks(third!)).toEqual({ tags: ["vip", DRAFTED_TAG], metafields: [] })
      expect(marks(fourth!)).toEqual({ tags: ["vip", "podsync:only-a-tag"], metafields: [] })
    }))

  it.scopedLive("sends at most 25 orders per request, and one order's two annotations in turn", () =>
    Effect.gen(function*() {
      const { sim, orders, connector } = yield* withOrders(30)
      const items = [
        ...orders.map((o) => ({ storeOrderId: o.legacyResourceId, annotation: draftedAnnotation("dft_first") })),
        { storeOrderId: orders[0]!.legacyResourceId, annotation: draftedAnnotation("dft_second") }
      ]
      const before = yield* stats(sim)
      const results = yield* connector.annotateMany!(items)
      expect(results.every(Either.isRight)).toBe(true)
      // 25 + 5 orders, then the second annotation of the first order.
      expect((yield* stats(sim)).operations["PodsyncAnnotateMany"]! - (before.operations["PodsyncAnnotateMany"] ?? 0)).toBe(3)
      expect(marks(yield* read(sim, orders[0]!.legacyResourceId)).metafields).toEqual([["podsync", "draft", "dft_second"]])
      expect(marks(yield* read(sim, orders[29]!.legacyResourceId)).metafields).toEqual([["podsync", "draft", "dft_first"]])
    }))

  it("reads which metafield a userError names from its field path", () => {
    expect(metafieldIndexOf({ field: ["metafields", "3", "value"], message: "x" }, 5)).toBe(3)
    expect(metafieldIndexOf({ field: ["metafields"], message: "too many" }, 5)).toBeNull()
    expect(metafieldIndexOf({ field: null, message: "x" }, 5)).toBeNull()
    expect(metafieldIndexOf({ field: ["metafields", "7", "value"], message: "x" }, 5)).toBeNull()
  })
})
