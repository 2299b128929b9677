/**
 * The simulator on batched documents: `nodes(ids:)` with a fragment on Order,
 * aliased mutation fields, and what they cost (an interface costs its most
 * expensive possible selection; `nodes` one object per id; a mutation field 10).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { getOperationAST, parse } from "graphql"
import { queryCost } from "../../src/simulator/shopify/cost.js"
import { startShopifySimulator, type RunningShopifySimulator } from "../../src/simulator/shopify/index.js"
import { makeShopifySchema } from "../../src/simulator/shopify/schema.graphql.js"
import { simAdmin } from "../support/simAdmin.js"

const schema = makeShopifySchema()
const cost = (query: string, variables: Record<string, unknown> = {}) => {
  const document = parse(query)
  const fragments = Object.fromEntries(document.definitions.flatMap((d) => (d.kind === "FragmentDefinition" ? [[d.name.value, d]] : [])))
  return queryCost(schema, getOperationAST(document)!, fragments, variables)
}

describe("Shopify simulator: cost of interfaces and nodes(ids:)", () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `gid://shopify/Order/${5610000001 + i}`)
  const orderSelection = "id fulfillmentOrders(first: 3) { nodes { id lineItems(first: 10) { nodes { id } } } }"
  const perOrder = 1 + 2 + 3 * (1 + 2 + 10 * 1)

  it("charges a fragment on a concrete type by that type's fields, once per id", () => {
    expect(cost(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Order { ${orderSelection} } } }`, { ids: ids(1) }).requested).toBe(
      perOrder
    )
    expect(cost(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Order { ${orderSelection} } } }`, { ids: ids(7) }).requested).toBe(
      7 * perOrder
    )
    expect(cost(`query($ids: [ID!]!) { nodes(ids: $ids) { ...O } } fragment O on Order { ${orderSelection} }`, { ids: ids(2) }).requested)
      .toBe(2 * perOrder)
    // The most expensive possible selection: a fulfillment order with 5 lines costs less than the order.
    expect(
      cost(
        `query($ids: [ID!]!) { nodes(ids: $ids) {
      ... on Order { ${orderSelection} }
      ... on FulfillmentOrder { lineItems(first: 5) { nodes { id } } }
    } }`,
        { ids: ids(1) }
      ).requested
    ).toBe(perOrder)
    expect(cost(`{ node(id: "gid://shopify/Order/1") { id } }`).requested).toBe(1)
  })

  it("does not charge a fragment on another type to the enclosing one", () => {
    expect(
      cost(`{ order(id: "gid://shopify/Order/1") { id ... on FulfillmentOrder { lineItems(first: 50) { nodes { id } } } } }`).requested
    ).toBe(1)
  })

  it("charges the actual cost of what came back for the type it came back as", () => {
    const query = cost(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Order { ${orderSelection} } } }`, { ids: ids(3) })
    const order = { id: "o", fulfillmentOrders: { nodes: [{ id: "fo", lineItems: { nodes: [{ id: "a" }, { id: "b" }] } }] } }
    expect(query.actual({ nodes: [order, null, order] })).toBe(2 * (1 + 2 + (1 + 2 + 2)))
  })

  it("charges each aliased mutation field 10", () => {
    expect(
      cost(
        `mutation($a: ID!, $b: ID!) {
      metafieldsSet(metafields: []) { userErrors { message } }
      t0: tagsAdd(id: $a, tags: ["x"]) { userErrors { message } }
      t1: tagsAdd(id: $b, tags: ["x"]) { userErrors { message } }
    }`,
        { a: "gid://shopify/Order/1", b: "gid://shopify/Order/2" }
      ).requested
    ).toBe(30)
  })
})

describe("Shopify simulator: batched documents over HTTP", () => {
  let sim: RunningShopifySimulator

  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const response = await fetch(sim.graphqlUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Shopify-Access-Token": sim.accessToken },
      body: JSON.stringify({ query, variables })
    })
    return (await response.json()) as { data?: any; errors?: unknown; extensions: { cost: { requestedQueryCost: number } } }
  }
  const admin = (method: string, path: string, body?: unknown) => simAdmin(sim.url, method, path, body)

  beforeAll(async () => {
    sim = await startShopifySimulator({ bucket: { maximumAvailable: 100_000, restoreRate: 100_000 } })
  })
  afterAll(() => sim.close())
  beforeEach(() => admin("POST", "reset"))

  it("answers nodes(ids:) in order, null for an unknown id, the Order fragment for orders", async () => {
    const a = await admin("POST", "orders", {})
    const b = await admin("POST", "orders", {})
    const answer = await graphql(`query Many($ids: [ID!]!) { nodes(ids: $ids) { ... on Order { id cancelledAt } } }`, {
      ids: [b.id, "gid://shopify/Order/1", a.id]
    })
    expect(answer.errors).toBeUndefined()
    expect(answer.data.nodes).toEqual([{ id: b.id, cancelledAt: null }, null, { id: a.id, cancelledAt: null }])
    expect(answer.extensions.cost.requestedQueryCost).toBe(3)
  })

  it("runs aliased mutation fields in order and counts each in the stats", async () => {
    const order = await admin("POST", "orders", { lineItems: [{ quantity: 1 }, { quantity: 1 }, { quantity: 1 }] })
    const fo = order.fulfillmentOrders[0]
    const input = (line: number, number: string, notifyCustomer: boolean) => ({
      lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id, fulfillmentOrderLineItems: [{ id: fo.lines[line].id, quantity: 1 }] }],
      notifyCustomer,
      trackingInfo: { company: "UPS", number }
    })
    const answer = await graphql(
      `mutation PodsyncFulfillmentCreateMany($f0: FulfillmentInput!, $f1: FulfillmentInput!, $f2: FulfillmentInput!) {
      f0: fulfillmentCreate(fulfillment: $f0) { fulfillment { id } userErrors { message } }
      f1: fulfillmentCreate(fulfillment: $f1) { fulfillment { id } userErrors { message } }
      f2: fulfillmentCreate(fulfillment: $f2) { fulfillment { id } userErrors { message } }
    }`,
      { f0: input(0, "A", true), f1: input(1, "B", false), f2: input(0, "C", false) }
    )
    expect(answer.extensions.cost.requestedQueryCost).toBe(30)
    expect(answer.data.f0.fulfillment.id).toMatch(/^gid:\/\/shopify\/Fulfillment\//)
    expect(answer.data.f1.fulfillment.id).toMatch(/^gid:\/\/shopify\/Fulfillment\//)
    // The first alias took the only unit of line 0: the third is refused.
    expect(answer.data.f2).toEqual({
      fulfillment: null,
      userErrors: [{ message: "Invalid fulfillment order line item quantity requested." }]
    })
    const stats = await admin("GET", "stats")
    expect(stats.mutations.fulfillmentCreate).toBe(3)
    expect(stats.operations.PodsyncFulfillmentCreateMany).toBe(1)
    expect(stats.fulfillmentsByOrder[order.legacyResourceId]).toBe(2)
  })

  it("gives each location of an order its own fulfillment order", async () => {
    const order = await admin("POST", "orders", {
      lineItems: [{ location: "Leeds" }, { location: "Berlin" }, { location: "Leeds" }, { requiresShipping: false }]
    })
    expect(order.fulfillmentOrders.map((fo: any) => fo.lines.map((l: any) => l.lineItemId))).toEqual([
      [order.lineItems[0].id, order.lineItems[2].id],
      [order.lineItems[1].id]
    ])
    const plain = await admin("POST", "orders", { lineItems: [{}, {}] })
    expect(plain.fulfillmentOrders).toHaveLength(1)
  })
})
