import { getOperationAST, parse } from "graphql"
import { describe, expect, it } from "vitest"
import { CostBucket, queryCost } from "../../src/simulator/shopify/cost.js"
import { makeShopifySchema } from "../../src/simulator/shopify/schema.graphql.js"

// The leaky bucket and the cost calculation, driven by an injected clock (no sleeps).

describe("Shopify simulator: cost bucket", () => {
  it("takes the requested cost only when all of it is available and restores at restoreRate", () => {
    let now = 1_000_000
    const bucket = new CostBucket(1000, 50, () => now)
    expect(bucket.tryTake(752)).toBe(true)
    expect(bucket.status()).toEqual({ maximumAvailable: 1000, currentlyAvailable: 248, restoreRate: 50 })
    expect(bucket.tryTake(300)).toBe(false)
    expect(bucket.status().currentlyAvailable).toBe(248)
    now += 1000 // 50 points later
    expect(bucket.status().currentlyAvailable).toBe(298)
    expect(bucket.tryTake(300)).toBe(false)
    now += 40 // 2 more points
    expect(bucket.tryTake(300)).toBe(true)
    expect(bucket.status().currentlyAvailable).toBe(0)
  })

  it("refunds the unused part of a request and never fills above maximumAvailable", () => {
    let now = 0
    const bucket = new CostBucket(2000, 100, () => now)
    expect(bucket.tryTake(1500)).toBe(true)
    bucket.refund(1500 - 120)
    expect(bucket.status().currentlyAvailable).toBe(1880)
    now += 60_000
    expect(bucket.status().currentlyAvailable).toBe(2000)
    bucket.refund(500)
    expect(bucket.status().currentlyAvailable).toBe(2000)
  })

  it("waiting (requested - available) / restoreRate seconds is exactly enough after a THROTTLED answer", () => {
    let now = 0
    const bucket = new CostBucket(1000, 50, () => now)
    bucket.tryTake(1000)
    const requested = 750
    const status = bucket.status()
    expect(bucket.tryTake(requested)).toBe(false)
    const waitMs = ((requested - status.currentlyAvailable) / status.restoreRate) * 1000
    now += waitMs - 1
    expect(bucket.tryTake(requested)).toBe(false)
    now += 1
    expect(bucket.tryTake(requested)).toBe(true)
  })
})

describe("Shopify simulator: query cost calculation", () => {
  const schema = makeShopifySchema()
  const cost = (query: string, variables: Record<string, unknown> = {}) => {
    const document = parse(query)
    const operation = getOperationAST(document)!
    const fragments = Object.fromEntries(document.definitions.flatMap((d) => (d.kind === "FragmentDefinition" ? [[d.name.value, d]] : [])))
    return queryCost(schema, operation, fragments, variables)
  }

  it("charges scalars 0, objects 1, connections 2 + first × node, through variables and fragments", () => {
    expect(cost("{ shop { name } }").requested).toBe(1)
    expect(cost("query($n: Int!) { orders(first: $n) { nodes { id } } }", { n: 50 }).requested).toBe(52)
    expect(
      cost(`{ orders(first: 10) { edges { cursor node { ...O } } nodes { ...O } pageInfo { hasNextPage } } }
      fragment O on Order { id fulfillmentOrders(first: 5) { nodes { lineItems(first: 20) { nodes { id lineItem { sku } } } } } }`)
        .requested
    )
      .toBe(2 + 10 * (1 + 2 + 5 * (1 + 2 + 20 * (1 + 1))))
  })

  it("charges a mutation 10 and computes the actual cost from what came back", () => {
    expect(cost('mutation { tagsAdd(id: "gid://shopify/Order/1", tags: ["a"]) { node { id } userErrors { message } } }').requested).toBe(10)
    const query = cost("{ orders(first: 50) { nodes { id lineItems(first: 10) { nodes { sku } } } } }")
    expect(query.requested).toBe(2 + 50 * (1 + 2 + 10))
    const data = {
      orders: { nodes: [{ id: "a", lineItems: { nodes: [{ sku: "x" }, { sku: "y" }] } }, { id: "b", lineItems: { nodes: [] } }] }
    }
    expect(query.actual(data)).toBe(2 + (1 + 2 + 2) + (1 + 2))
  })
})
