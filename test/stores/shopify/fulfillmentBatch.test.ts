/**
 * Batched fulfilment pushes (`pushFulfillments`) over real HTTP against the
 * Shopify simulator. Outcomes are compared with single pushes
 * (`pushFulfillment`) made on a twin simulator holding the same orders (same
 * seed, same ids), so "exactly what a single push answers" is checked, not
 * restated.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Fiber, Option, TestClock } from "effect"
import { getOperationAST, parse } from "graphql"
import type { RunningShopifySimulator } from "../../../src/simulator/shopify/index.js"
import { queryCost } from "../../../src/simulator/shopify/cost.js"
import { makeShopifySchema } from "../../../src/simulator/shopify/schema.graphql.js"
import type { FulfillmentOutcome, FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import {
  FULFILLMENT_STATES,
  FULFILLMENT_STATES_COST_PER_ORDER,
  FULFILLMENT_STATES_PER_QUERY,
  orderGid
} from "../../../src/stores/shopify/ShopifyQueries.js"
import { isAmbiguous, type StoreError } from "../../../src/stores/StoreErrors.js"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"
import { admin, connectTo, startSimulator } from "./harness.js"

interface SimOrder {
  readonly legacyResourceId: string
  readonly lineItems: ReadonlyArray<{ readonly id: string; readonly quantity: number }>
  readonly fulfillmentOrders: ReadonlyArray<{ id: string; status: string }>
  readonly fulfillments: ReadonlyArray<{
    id: string
    notifyCustomer: boolean
    fulfillmentOrderIds: ReadonlyArray<string>
    tracking: ReadonlyArray<{ number: string | null }>
    lines: ReadonlyArray<{ lineItemId: string; quantity: number }>
  }>
}

interface Stats {
  readonly requests: number
  readonly throttled: number
  readonly fulfillmentsByOrder: Record<string, number>
  readonly notificationsByOrder: Record<string, number>
  readonly mutations: Record<string, number>
  readonly operations: Record<string, number>
}

const stats = (sim: RunningShopifySimulator) => admin<Stats>(sim, "GET", "stats")

const lines = (count: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, i) => ({ sku: `TEE-${i}`, title: `Tee ${i}`, quantity: 2, ...extra }))

const orderSpec = { lineItems: lines(3) }

const tracking = (number: string) => ({ company: "UPS", number, url: `https://www.ups.com/track?tracknum=${number}` })

const push = (order: SimOrder, picks: ReadonlyArray<[index: number, quantity: number]>, number: string): FulfillmentPush => ({
  storeOrderId: order.legacyResourceId,
  lines: picks.map(([index, quantity]) => ({ lineId: order.lineItems[index]!.id, quantity })) as unknown as FulfillmentPush["lines"],
  tracking: tracking(number)
})

const everything = (order: SimOrder, number: string) =>
  push(order, order.lineItems.map((l, i): [number, number] => [i, l.quantity]), number)

const read = (sim: RunningShopifySimulator, id: string) => admin<SimOrder>(sim, "GET", `orders/${id}`)

const singly = (connector: StoreConnector, pushes: ReadonlyArray<FulfillmentPush>) =>
  Effect.forEach(pushes, (p) => Effect.either(connector.pushFulfillment(p)))

/**
 * An outcome in terms both twins share: each fulfilment id becomes what it is (tracking, fulfillment
 * orders, lines, notification), an error its tag and ambiguity.
 */
const comparable = (sim: RunningShopifySimulator, results: ReadonlyArray<Either.Either<FulfillmentOutcome, StoreError>>) =>
  Effect.gen(function*() {
    const { orders } = yield* admin<{ orders: ReadonlyArray<SimOrder> }>(sim, "GET", "orders")
    const byId = new Map(orders.flatMap((o) => o.fulfillments.map((f) => [f.id, f] as const)))
    const describe = (id: string) => {
      const f = byId.get(id)
      return f === undefined
        ? `missing ${id}`
        : {
          tracking: f.tracking.map((t) => t.number),
          fos: f.fulfillmentOrderIds,
          lines: f.lines.map((l) => [l.lineItemId, l.quantity]),
          notify: f.notifyCustomer
        }
    }
    return results.map((result) =>
      Either.match(result, {
        onLeft: (error) => ({ error: error._tag, ambiguous: isAmbiguous(error) }),
        onRight: (outcome) => "fulfillmentIds" in outcome ? { ...outcome, fulfillmentIds: outcome.fulfillmentIds.map(describe) } : outcome
      })
    )
  })

/** Two simulators with the same orders; `build` runs on each and returns the same ids on both. */
const twins = <A, E, R>(build: (sim: RunningShopifySimulator) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const batched = yield* startSimulator()
    const single = yield* startSimulator()
    const a = yield* build(batched)
    const b = yield* build(single)
    // The same orders, ids and lines on both; the times may differ by the second that passed between the two builds.
    const untimed = (value: unknown) => JSON.stringify(value, (key, v: unknown) => (/At$/.test(key) ? undefined : v))
    expect(untimed(a)).toBe(untimed(b))
    return { batched, single, setup: a, batchedConnector: yield* connectTo(batched), singleConnector: yield* connectTo(single) }
  })

const delta = (before: Stats, after: Stats) => ({
  requests: after.requests - before.requests,
  operations: Object.fromEntries(
    Object.entries(after.operations)
      .map(([name, n]) => [name, n - (before.operations[name] ?? 0)] as const)
      .filter(([, n]) => n > 0)
  ),
  fulfillmentCreate: (after.mutations["fulfillmentCreate"] ?? 0) - (before.mutations["fulfillmentCreate"] ?? 0)
})

/** `count` orders of `orderSpec` placed on the simulator. */
const placeOrders = (sim: RunningShopifySimulator, count: number) =>
  Effect.forEach(Array.from({ length: count }), () => admin<SimOrder>(sim, "POST", "orders", orderSpec))

/** Each of `orders` has one fulfillment in the store. */
const expectFulfilledOnce = (sim: RunningShopifySimulator, orders: ReadonlyArray<SimOrder>) =>
  Effect.map(stats(sim), (after) => {
    for (const o of orders) expect(after.fulfillmentsByOrder[o.legacyResourceId]).toBe(1)
  })

describe("Shopify batched fulfilment pushes", () => {
  it.scopedLive("pushes many orders in one read and one create request, with the outcomes single pushes give", () =>
    Effect.gen(function*() {
      const { batched, single, setup, batchedConnector, singleConnector } = yield* twins((sim) =>
        Effect.gen(function*() {
          const open = yield* placeOrders(sim, 6)
          const cancelled = yield* admin<SimOrder>(sim, "POST", "orders", orderSpec)
          yield* admin(sim, "POST", `orders/${cancelled.legacyResourceId}/cancel`, { reason: "customer" })
          const held = yield* admin<SimOrder>(sim, "POST", "orders", orderSpec)
          yield* admin(sim, "POST", `orders/${held.legacyResourceId}/hold`, { reason: "HIGH_RISK_OF_FRAUD" })
          return { open, cancelled, held }
        })
      )
      const { open, cancelled, held } = setup
      const pushes: Array<FulfillmentPush> = [
        ...open.map((o, i) => (i % 2 === 0 ? everything(o, `1ZBATCH${i}`) : push(o, [[0, 1], [2, 2]], `1ZBATCH${i}`))),
        everything(cancelled, "1ZCANCELLED"),
        everything(held, "1ZHELD"),
        { ...everything(open[0]!, "1ZNOTANID"), storeOrderId: "#1001" },
        { ...everything(open[0]!, "1ZUNKNOWN"), storeOrderId: "99999999" }
      ]

      const before = yield* stats(batched)
      const results = yield* batchedConnector.pushFulfillments!(pushes)
      // An order Shopify does not know asks which scopes the app holds, to say why it may not (read_all_orders).
      expect(delta(before, yield* stats(batched))).toEqual({
        requests: 3,
        operations: { PodsyncFulfillmentStates: 1, PodsyncAccessScopes: 1, PodsyncFulfillmentCreateMany: 1 },
        fulfillmentCreate: 6
      })
      const expected = yield* singly(singleConnector, pushes)
      expect(yield* comparable(batched, results)).toEqual(yield* comparable(single, expected))
      expect(results.map((r) => (Either.isRight(r) ? r.right._tag : r.left._tag))).toEqual([
        ...open.map(() => "Created"),
        "Rejected",
        "OnHold",
        "Rejected",
        "Rejected"
      ])
      expect(results.slice(6).map((r) => Either.getOrThrow(r))).toMatchObject([
        { reason: "order_cancelled" },
        { holds: [{ heldId: held.fulfillmentOrders[0]!.id, reason: "HIGH_RISK_OF_FRAUD" }] },
        { reason: "unknown_order", messages: ['"#1001" is not a Shopify order id'] },
        { reason: "unknown_order", messages: ["order 99999999 does not exist"] }
      ])
      const after = yield* stats(batched)
      for (const o of open) {
        expect(after.fulfillmentsByOrder[o.legacyResourceId]).toBe(1)
        expect(after.notificationsByOrder[o.legacyResourceId]).toBe(1)
      }

      // The same batch again: every package is already there, nothing is created.
      const beforeRepeat = yield* stats(batched)
      const repeated = yield* batchedConnector.pushFulfillments!(pushes)
      const repeatDelta = delta(beforeRepeat, yield* stats(batched))
      // One read, then the lines of each fulfilment carrying the tracking number (as a single push reads them).
      expect(repeatDelta).toEqual({
        requests: 2 + open.length,
        operations: { PodsyncFulfillmentStates: 1, PodsyncAccessScopes: 1, PodsyncFulfillmentLineItems: open.length },
        fulfillmentCreate: 0
      })
      expect(repeated.slice(0, open.length).map((r) => Either.getOrThrow(r)._tag)).toEqual(open.map(() => "AlreadyPushed"))
      const expectedRepeat = yield* singly(singleConnector, pushes)
      expect(yield* comparable(batched, repeated)).toEqual(yield* comparable(single, expectedRepeat))
    }))

  it.scopedLive("answers a non-Shopify order id without any request", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const order = yield* admin<SimOrder>(sim, "POST", "orders", orderSpec)
      const connector = yield* connectTo(sim)
      const before = yield* stats(sim)
      const results = yield* connector.pushFulfillments!([{ ...everything(order, "X1"), storeOrderId: "gid://shopify/Order/1" }])
      expect(results.map((r) => Either.getOrThrow(r))).toEqual([
        { _tag: "Rejected", reason: "unknown_order", messages: ['"gid://shopify/Order/1" is not a Shopify order id'] }
      ])
      expect((yield* stats(sim)).requests).toBe(before.requests)
      expect(yield* connector.pushFulfillments!([])).toEqual([])
    }))

  it.scopedLive("pushes of one order in one batch go one after the other, as single pushes would", () =>
    Effect.gen(function*() {
      const { batched, single, setup, batchedConnector, singleConnector } = yield* twins((sim) => placeOrders(sim, 3))
      const [a, b, c] = setup
      const pushes = [
        push(a!, [[0, 1]], "BOX-A1"),
        push(b!, [[0, 2]], "BOX-B1"),
        push(a!, [[0, 1], [1, 2]], "BOX-A2"),
        push(a!, [[0, 1]], "BOX-A1"), // the same package again: AlreadyPushed, not a second fulfilment
        push(c!, [[2, 2]], "BOX-C1"),
        push(b!, [[0, 2]], "BOX-B2") // no unit of that line left
      ]
      const results = yield* batchedConnector.pushFulfillments!(pushes)
      const expected = yield* singly(singleConnector, pushes)
      expect(yield* comparable(batched, results)).toEqual(yield* comparable(single, expected))
      expect(results.map((r) => Either.getOrThrow(r)._tag)).toEqual([
        "Created",
        "Created",
        "Created",
        "AlreadyPushed",
        "Created",
        "NothingToFulfil"
      ])
      expect((yield* stats(batched)).fulfillmentsByOrder).toEqual({
        [a!.legacyResourceId]: 2,
        [b!.legacyResourceId]: 1,
        [c!.legacyResourceId]: 1
      })
    }))

  it.scopedLive("reads again alone an order the batched read may have cut short, and splits a package over fulfillment orders", () =>
    Effect.gen(function*() {
      const { batched, single, setup, batchedConnector, singleConnector } = yield* twins((sim) =>
        Effect.gen(function*() {
          // 12 lines: more than the batched read's 10 fulfillment order lines, paged like a single read pages them.
          const manyLines = yield* admin<SimOrder>(sim, "POST", "orders", { lineItems: lines(12) })
          // Four locations: four fulfillment orders, more than the batched read's 3.
          const fourLocations = yield* admin<SimOrder>(sim, "POST", "orders", {
            lineItems: ["Leeds", "Berlin", "Austin", "Lyon"].flatMap((location) => lines(1, { location }))
          })
          // Two locations: one package, two fulfilments, one email.
          const twoLocations = yield* admin<SimOrder>(sim, "POST", "orders", {
            lineItems: [...lines(1, { location: "Leeds" }), ...lines(1, { location: "Berlin" })]
          })
          // Ten fulfilments already: as many as the batched read asks for.
          const tenPackages = yield* admin<SimOrder>(sim, "POST", "orders", { lineItems: lines(11) })
          const connector = yield* connectTo(sim)
          for (const [i] of tenPackages.lineItems.slice(0, 10).entries()) {
            yield* connector.pushFulfillment(push(tenPackages, [[i, 2]], `EARLIER-${i}`))
          }
          return { manyLines, fourLocations, twoLocations, tenPackages }
        })
      )
      const { manyLines, fourLocations, twoLocations, tenPackages } = setup
      expect(fourLocations.fulfillmentOrders).toHaveLength(4)
      const pushes = [
        everything(manyLines, "MANY-LINES"),
        everything(fourLocations, "FOUR-LOCATIONS"),
        everything(twoLocations, "TWO-LOCATIONS"),
        push(tenPackages, [[10, 2]], "ELEVENTH"),
        // The same package again: its fulfilment is the 11th, beyond what the batched read returns.
        push(tenPackages, [[10, 2]], "ELEVENTH")
      ]

      const before = yield* stats(batched)
      const results = yield* batchedConnector.pushFulfillments!(pushes)
      const batchDelta = delta(before, yield* stats(batched))
      const expected = yield* singly(singleConnector, pushes)
      expect(yield* comparable(batched, results)).toEqual(yield* comparable(single, expected))
      expect(results.map((r) => Either.getOrThrow(r)._tag)).toEqual(["Created", "Created", "Created", "Created", "AlreadyPushed"])
      expect(batchDelta.operations).toEqual({
        PodsyncFulfillmentStates: 2, // the second round: tenPackages's second push
        PodsyncFulfillmentOrderLineItems: 1, // manyLines' lines 11 and 12
        PodsyncFulfillmentState: 3, // fourLocations; tenPackages in each round
        PodsyncFulfillmentLineItems: 1, // the lines of the ELEVENTH fulfilment, for the repeat
        PodsyncFulfillmentCreateMany: 1
      })
      // manyLines 1 + fourLocations 4 + twoLocations 2 + tenPackages 1, all in one mutation.
      expect(batchDelta.fulfillmentCreate).toBe(8)

      const two = yield* read(batched, twoLocations.legacyResourceId)
      expect(two.fulfillments.map((f) => f.notifyCustomer)).toEqual([true, false])
      expect(Either.getOrThrow(results[2]!)).toMatchObject({ _tag: "Created", notifiedCustomer: true })
      expect((yield* stats(batched)).notificationsByOrder[fourLocations.legacyResourceId]).toBe(1)
      const many = yield* read(batched, manyLines.legacyResourceId)
      expect(many.fulfillments[0]!.lines).toHaveLength(12)
    }))

  it.scopedLive("a 5xx on the create request is an ambiguous failure of every push in it; the retry creates each once", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const orders = yield* placeOrders(sim, 4)
      const cancelled = yield* admin<SimOrder>(sim, "POST", "orders", orderSpec)
      yield* admin(sim, "POST", `orders/${cancelled.legacyResourceId}/cancel`, { reason: "customer" })
      const connector = yield* connectTo(sim)
      const pushes = [...orders.map((o, i) => everything(o, `1Z5XX${i}`)), everything(cancelled, "1Z5XXC")]
      yield* admin(sim, "POST", "faults", { operation: "fulfillmentCreate", kind: "error5xx", count: 1 })

      const failed = yield* connector.pushFulfillments!(pushes)
      const errors = failed.slice(0, orders.length).map((r) => Either.getLeft(r).pipe(Option.getOrThrow))
      expect(errors.map((e) => [e._tag, isAmbiguous(e)])).toEqual(orders.map(() => ["StoreUnavailableError", true]))
      expect(new Set(errors).size).toBe(1) // the request's error, for each of its pushes
      expect(Either.getOrThrow(failed[orders.length]!)).toMatchObject({ _tag: "Rejected", reason: "order_cancelled" })

      // What a single push gives for the same failure.
      const lone = yield* admin<SimOrder>(sim, "POST", "orders", orderSpec)
      yield* admin(sim, "POST", "faults", { operation: "fulfillmentCreate", kind: "error5xx", count: 1 })
      const singleError = yield* Effect.flip(connector.pushFulfillment(everything(lone, "1Z5XXLONE")))
      expect([singleError._tag, isAmbiguous(singleError)]).toEqual([errors[0]!._tag, true])

      const retried = yield* connector.pushFulfillments!(pushes)
      expect(retried.slice(0, orders.length).map((r) => Either.getOrThrow(r)._tag)).toEqual(orders.map(() => "Created"))
      yield* expectFulfilledOnce(sim, orders)
    }))

  it.scopedLive("an order the store drops after committing is found on the retry (commitThenDrop)", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const orders = yield* placeOrders(sim, 3)
      const connector = yield* connectTo(sim)
      const pushes = orders.map((o, i) => everything(o, `1ZDROP${i}`))
      yield* admin(sim, "POST", "faults", { operation: "fulfillmentCreate", kind: "commitThenDrop", count: 1 })
      const failed = yield* connector.pushFulfillments!(pushes)
      expect(failed.every((r) => Either.isLeft(r) && isAmbiguous(r.left))).toBe(true)
      const retried = yield* connector.pushFulfillments!(pushes)
      expect(retried.map((r) => Either.getOrThrow(r)._tag)).toEqual(orders.map(() => "AlreadyPushed"))
      yield* expectFulfilledOnce(sim, orders)
    }))

  it.scoped("a read Shopify keeps throttling is a failure of every push in it, not ambiguous, and creates nothing", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const orders = yield* placeOrders(sim, 3)
      const connector = yield* connectTo(sim, { requestTimeout: "1 hour" })
      // Every attempt throttled: 21 answers per attempt, 5 attempts (the first and 4 retries of a read).
      yield* admin(sim, "POST", "faults", { operation: "nodes", kind: "throttle", count: 21 * 5 })
      const fiber = yield* Effect.fork(connector.pushFulfillments!(orders.map((o, i) => everything(o, `1ZTHROTTLED${i}`))))
      // The retries' back-off runs on TestClock: move it until the batch ends.
      for (let i = 0; i < 20_000 && Option.isNone(yield* Fiber.poll(fiber)); i++) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2)))
        if (Chunk.size(yield* TestClock.sleeps()) > 0) yield* TestClock.adjust("1 second")
      }
      const results = yield* Fiber.join(fiber)
      expect(results.map((r) => Either.getLeft(r).pipe(Option.map((e) => [e._tag, isAmbiguous(e)]), Option.getOrThrow))).toEqual(
        orders.map(() => ["StoreUnavailableError", false])
      )
      const after = yield* stats(sim)
      expect(after.throttled).toBe(21 * 5)
      expect(after.mutations["fulfillmentCreate"] ?? 0).toBe(0)
    }))

  it.scopedLive("reads 25 orders per query and creates up to 50 fulfilments per mutation", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const orders = yield* placeOrders(sim, 53)
      const connector = yield* connectTo(sim)
      const before = yield* stats(sim)
      const results = yield* connector.pushFulfillments!(orders.map((o, i) => everything(o, `1ZMANY${i}`)))
      expect(results.every((r) => Either.isRight(r) && r.right._tag === "Created")).toBe(true)
      expect(delta(before, yield* stats(sim))).toEqual({
        requests: 5,
        operations: { PodsyncFulfillmentStates: 3, PodsyncFulfillmentCreateMany: 2 },
        fulfillmentCreate: 53
      })
    }))
})

describe("Shopify batched fulfilment read: cost", () => {
  const schema = makeShopifySchema()
  const requested = (ids: number) => {
    const document = parse(FULFILLMENT_STATES)
    const variables = { ids: Array.from({ length: ids }, (_, i) => orderGid(String(5610000001 + i))) }
    return queryCost(schema, getOperationAST(document)!, {}, variables).requested
  }

  it("asks for 33 points an order, 825 for a full chunk of 25: under Shopify's 1,000-point cap", () => {
    expect(requested(1)).toBe(FULFILLMENT_STATES_COST_PER_ORDER)
    expect(requested(FULFILLMENT_STATES_PER_QUERY)).toBe(FULFILLMENT_STATES_COST_PER_ORDER * FULFILLMENT_STATES_PER_QUERY)
    expect(requested(FULFILLMENT_STATES_PER_QUERY)).toBeLessThan(1000)
    // The cap is real: 31 orders would be refused.
    expect(requested(31)).toBeGreaterThan(1000)
  })

  it.scopedLive("the simulator charges a full chunk what the calculation says, and answers it", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const orders = yield* placeOrders(sim, FULFILLMENT_STATES_PER_QUERY)
      const answer = yield* Effect.promise(async () => {
        const response = await fetch(sim.graphqlUrl, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Shopify-Access-Token": sim.accessToken },
          body: JSON.stringify({
            query: FULFILLMENT_STATES,
            variables: {
              ids: orders.map((o) => orderGid(o.legacyResourceId))
            }
          })
        })
        return (await response.json()) as {
          data?: { nodes: ReadonlyArray<{ id: string; fulfillmentOrders: { nodes: ReadonlyArray<unknown> } }> }
          errors?: unknown
          extensions: { cost: { requestedQueryCost: number; actualQueryCost: number } }
        }
      })
      expect(answer.errors).toBeUndefined()
      expect(answer.extensions.cost.requestedQueryCost).toBe(FULFILLMENT_STATES_COST_PER_ORDER * FULFILLMENT_STATES_PER_QUERY)
      expect(answer.extensions.cost.actualQueryCost).toBeLessThan(answer.extensions.cost.requestedQueryCost)
      expect(answer.data!.nodes.map((n) => n.id)).toEqual(orders.map((o) => orderGid(o.legacyResourceId)))
      expect(answer.data!.nodes.every((n) => n.fulfillmentOrders.nodes.length === 1)).toBe(true)
    }))
})
