import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { simAdmin } from "../support/simAdmin.js"
import { runShopifySimulatorStandalone, startShopifySimulator, type RunningShopifySimulator } from "../../src/simulator/shopify/index.js"
import { listensStandalone } from "../support/standalone.js"

// Orders query, paging, search syntax, auth and query cost, over real HTTP.

let sim: RunningShopifySimulator

interface GraphqlAnswer {
  status: number
  json: {
    data?: any
    errors?: Array<{ message: string; extensions?: Record<string, unknown> }>
    extensions?: {
      cost: {
        requestedQueryCost: number
        actualQueryCost: number | null
        throttleStatus: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number }
      }
    }
  }
}

const graphql = async (query: string, variables: Record<string, unknown> = {}, token = sim.accessToken): Promise<GraphqlAnswer> => {
  const response = await fetch(sim.graphqlUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Shopify-Access-Token": token },
    body: JSON.stringify({ query, variables })
  })
  return { status: response.status, json: (await response.json()) as GraphqlAnswer["json"] }
}

const admin = (method: string, path: string, body?: unknown) => simAdmin(sim.url, method, path, body)

const ordersPage = `query Orders($first: Int!, $after: String, $query: String, $sortKey: OrderSortKeys) {
  orders(first: $first, after: $after, query: $query, sortKey: $sortKey) {
    pageInfo { hasNextPage endCursor }
    edges { cursor node { id legacyResourceId name updatedAt } }
  }
}`

const walk = async (query: string | null, first: number, between?: (page: number) => Promise<void>): Promise<string[]> => {
  const seen: string[] = []
  let after: string | null = null
  for (let page = 0; page < 50; page++) {
    const answer = await graphql(ordersPage, { first, after, query, sortKey: "UPDATED_AT" })
    expect(answer.json.errors).toBeUndefined()
    const orders = answer.json.data.orders
    seen.push(...orders.edges.map((e: any) => e.node.name))
    if (!orders.pageInfo.hasNextPage) return seen
    after = orders.pageInfo.endCursor
    await between?.(page)
  }
  throw new Error("walk did not end")
}

beforeAll(async () => {
  // A frozen wall clock: timestamps move only with /__sim/clock/advance, and the bucket refills only then.
  const frozen = Date.parse("2026-03-02T12:00:00Z")
  sim = await startShopifySimulator({ seed: 7, bucket: { maximumAvailable: 1000, restoreRate: 1 }, now: () => frozen })
})
afterAll(() => sim.close())
beforeEach(() => admin("POST", "reset"))

describe("Shopify simulator: auth", () => {
  it("refuses a missing or wrong X-Shopify-Access-Token with Shopify's 401 body", async () => {
    const wrong = await graphql("{ shop { name } }", {}, "shpat_wrong")
    expect(wrong.status).toBe(401)
    expect(wrong.json).toEqual({ errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" })
    const missing = await fetch(sim.graphqlUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"query":"{ shop { name } }"}'
    })
    expect(missing.status).toBe(401)
    const right = await graphql("{ shop { myshopifyDomain } }")
    expect(right.status).toBe(200)
    expect(right.json.data.shop.myshopifyDomain).toBe("acme.myshopify.com")
  })
})

describe("Shopify simulator: standalone runner", () => {
  it("prints where it listens, for podsync simulate", async () => {
    await listensStandalone("shopify", runShopifySimulatorStandalone, async (standalone) => {
      const response = await fetch(`${standalone.url}/admin/api/2026-10/graphql.json`, { method: "POST", body: "{}" })
      expect(response.status).toBe(401)
    })
  })
})

describe("Shopify simulator: orders", () => {
  it("creates realistic orders through the admin endpoint and serves them with Shopify's field names", async () => {
    const created = await admin("POST", "orders", {
      financialStatus: "PAID",
      lineItems: [{ sku: "TEE-BLK-M", quantity: 2, price: "24.00" }]
    })
    expect(created.id).toMatch(/^gid:\/\/shopify\/Order\/\d+$/)
    expect(created.name).toBe("#1001")
    const answer = await graphql(
      `query($id: ID!) { order(id: $id) {
      id legacyResourceId name displayFinancialStatus displayFulfillmentStatus currencyCode
      shippingAddress { firstName lastName address1 city provinceCode countryCodeV2 zip }
      lineItems(first: 5) { nodes { id sku quantity currentQuantity unfulfilledQuantity customAttributes { key value }
        originalUnitPriceSet { shopMoney { amount currencyCode } } } }
      fulfillmentOrders(first: 5) { nodes { id status lineItems(first: 5) { nodes { remainingQuantity totalQuantity lineItem { id } } } } }
      currentTotalPriceSet { shopMoney { amount } }
    } }`,
      { id: created.id }
    )
    const order = answer.json.data.order
    expect(order.legacyResourceId).toBe(created.legacyResourceId)
    expect(order.displayFinancialStatus).toBe("PAID")
    expect(order.displayFulfillmentStatus).toBe("UNFULFILLED")
    expect(order.shippingAddress.countryCodeV2).toMatch(/^[A-Z]{2}$/)
    expect(order.lineItems.nodes).toEqual([expect.objectContaining({
      sku: "TEE-BLK-M",
      quantity: 2,
      currentQuantity: 2,
      unfulfilledQuantity: 2,
      customAttributes: expect.arrayContaining([{ key: "design_front", value: expect.stringMatching(/^https:\/\//) }]),
      originalUnitPriceSet: { shopMoney: { amount: "24.00", currencyCode: order.currencyCode } }
    })])
    const fo = order.fulfillmentOrders.nodes[0]
    expect(fo.status).toBe("OPEN")
    expect(fo.lineItems.nodes[0]).toEqual({ remainingQuantity: 2, totalQuantity: 2, lineItem: { id: order.lineItems.nodes[0].id } })
  })

  it("reflects a refund in currentQuantity and the current total", async () => {
    const created = await admin("POST", "orders", {
      lineItems: [{ sku: "MUG-WHT-11OZ", quantity: 3, price: "16.00" }],
      shippingLine: { title: "Standard", price: "5.00" }
    })
    await admin("PATCH", `orders/${created.legacyResourceId}`, { lineItems: [{ id: created.lineItems[0].id, currentQuantity: 1 }] })
    const answer = await graphql(
      `query($id: ID!) { order(id: $id) { updatedAt currentTotalPriceSet { shopMoney { amount } }
      lineItems(first: 1) { nodes { quantity currentQuantity } }
      fulfillmentOrders(first: 1) { nodes { lineItems(first: 1) { nodes { remainingQuantity } } } } } }`,
      { id: created.id }
    )
    const order = answer.json.data.order
    expect(order.lineItems.nodes[0]).toEqual({ quantity: 3, currentQuantity: 1 })
    expect(order.currentTotalPriceSet.shopMoney.amount).toBe("21.00")
    expect(order.fulfillmentOrders.nodes[0].lineItems.nodes[0].remainingQuantity).toBe(1)
    expect(Date.parse(order.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt))
  })

  it("pages with opaque cursors, 250 at most per page", async () => {
    await admin("POST", "orders/bulk", { count: 7 })
    expect(await walk(null, 3)).toEqual(["#1001", "#1002", "#1003", "#1004", "#1005", "#1006", "#1007"])
    const tooMany = await graphql("{ orders(first: 251) { nodes { id } } }")
    expect(tooMany.json.errors?.[0]?.message).toContain("250")
  })

  it("keeps cursors valid while orders are edited: an edited order moves to the end of an UPDATED_AT walk", async () => {
    await admin("POST", "orders/bulk", { count: 6 })
    const seen = await walk(null, 2, async (page) => {
      if (page === 0) {
        await admin("PATCH", "orders/5610000001", { note: "already seen, edited mid-walk" })
        await admin("PATCH", "orders/5610000005", { note: "not yet seen, edited mid-walk" })
      }
    })
    expect(seen).toEqual(["#1001", "#1002", "#1003", "#1004", "#1006", "#1001", "#1005"])
  })

  it("in mutate-during-walk mode, a cursor walk still sees every order, edited ones again at the end", async () => {
    await admin("POST", "orders/bulk", { count: 12 })
    await admin("POST", "churn", { perOrdersQuery: 2 })
    const seen = await walk(null, 4)
    const all = Array.from({ length: 12 }, (_, i) => `#${1001 + i}`)
    expect(new Set(seen)).toEqual(new Set(all))
    expect(seen.length).toBeGreaterThan(12)
    expect(seen.slice(0, 4)).toEqual(all.slice(0, 4))
  })

  it("filters with Shopify search syntax on updated_at and created_at ranges", async () => {
    const a = await admin("POST", "orders", {})
    await admin("POST", "clock/advance", { seconds: 3600 })
    const b = await admin("POST", "orders", {})
    await admin("POST", "clock/advance", { seconds: 3600 })
    const c = await admin("POST", "orders", {})
    const names = async (query: string) => (await walk(query, 10))
    expect(await names(`updated_at:>='${b.updatedAt}'`)).toEqual([b.name, c.name])
    expect(await names(`updated_at:>'${b.updatedAt}'`)).toEqual([c.name])
    expect(await names(`updated_at:<'${b.updatedAt}'`)).toEqual([a.name])
    expect(await names(`updated_at:>'${a.updatedAt}' AND updated_at:<'${c.updatedAt}'`)).toEqual([b.name])
    expect(await names(`created_at:<="${b.createdAt}" -name:${a.name.slice(1)}`)).toEqual([b.name])
    expect(await names(`created_at:<'${a.createdAt}' OR created_at:>'${b.createdAt}'`)).toEqual([c.name])
  })

  it("filters on financial_status, fulfillment_status and status", async () => {
    const paid = await admin("POST", "orders", { financialStatus: "PAID" })
    const pending = await admin("POST", "orders", { financialStatus: "PENDING" })
    const cancelled = await admin("POST", "orders", { financialStatus: "PAID" })
    await admin("POST", `orders/${cancelled.legacyResourceId}/cancel`, { reason: "customer" })
    expect(await walk("financial_status:pending", 10)).toEqual([pending.name])
    expect(await walk("financial_status:paid AND status:open", 10)).toEqual([paid.name])
    expect(await walk("status:cancelled", 10)).toEqual([cancelled.name])
    expect(await walk("fulfillment_status:unshipped status:open", 10)).toEqual([paid.name, pending.name])
  })
})

describe("Shopify simulator: query cost", () => {
  it("charges connections 2 + first × node cost and refunds the unused part", async () => {
    await admin("POST", "orders/bulk", { count: 3 })
    const answer = await graphql("{ orders(first: 10) { nodes { id shippingAddress { city } lineItems(first: 5) { nodes { sku } } } } }")
    const cost = answer.json.extensions!.cost
    expect(cost.requestedQueryCost).toBe(2 + 10 * (1 + 1 + (2 + 5)))
    expect(cost.actualQueryCost).toBeLessThan(cost.requestedQueryCost)
    expect(cost.throttleStatus).toEqual({ maximumAvailable: 1000, currentlyAvailable: 1000 - cost.actualQueryCost!, restoreRate: 1 })
  })

  it("answers THROTTLED with HTTP 200 and the bucket's numbers when it cannot pay the requested cost", async () => {
    await admin("POST", "bucket/drain")
    const answer = await graphql("{ orders(first: 10) { nodes { id } } }")
    expect(answer.status).toBe(200)
    expect(answer.json.data).toBeUndefined()
    expect(answer.json.errors).toEqual([{
      message: "Throttled",
      extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" }
    }])
    expect(answer.json.extensions!.cost).toEqual({
      requestedQueryCost: 12,
      actualQueryCost: null,
      throttleStatus: { maximumAvailable: 1000, currentlyAvailable: 0, restoreRate: 1 }
    })
    const stats = await admin("GET", "stats")
    expect(stats).toMatchObject({ throttled: 1, requestsWhileShort: 1 })
  })

  it("refuses a single query above 1000 points with MAX_COST_EXCEEDED", async () => {
    const answer = await graphql("{ orders(first: 100) { nodes { lineItems(first: 100) { nodes { id } } } } }")
    expect(answer.json.errors?.[0]?.extensions).toMatchObject({ code: "MAX_COST_EXCEEDED", cost: 2 + 100 * (1 + 2 + 100), maxCost: 1000 })
  })
})
