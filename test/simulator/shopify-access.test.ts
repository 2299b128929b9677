/**
 * The Shopify simulator answers access as Shopify does (store-apis.md §0): scopes per grant with
 * ACCESS_DENIED partial answers, Level 2 customer data by plan, the 60-day window without
 * read_all_orders, a frozen or locked shop, currentAppInstallation; and scheduled, moved and
 * not-shipped fulfilment, and the cost of plain lists charged by their `first`.
 */
import { afterEach, describe, expect, it } from "vitest"
import { podsyncScopes, type RunningShopifySimulator, startShopifySimulator } from "../../src/simulator/shopify/index.js"
import { FULFILLMENT_STATES } from "../../src/stores/shopify/ShopifyQueries.js"
import { simAdmin } from "../support/simAdmin.js"

let sims: Array<RunningShopifySimulator> = []
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()))
  sims = []
})

const start = async (options: Parameters<typeof startShopifySimulator>[0] = {}) => {
  const sim = await startShopifySimulator({ bucket: { maximumAvailable: 1_000_000, restoreRate: 1_000_000 }, ...options })
  sims.push(sim)
  return sim
}

interface Answer {
  readonly status: number
  readonly json: {
    readonly data?: any
    readonly errors?: any
    readonly extensions?: { readonly cost: { readonly requestedQueryCost: number } }
  }
}

const graphql = async (sim: RunningShopifySimulator, query: string, variables: Record<string, unknown> = {}): Promise<Answer> => {
  const response = await fetch(sim.graphqlUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Shopify-Access-Token": sim.accessToken },
    body: JSON.stringify({ query, variables })
  })
  return { status: response.status, json: (await response.json()) as Answer["json"] }
}

const ORDER = `query($id: ID!) { order(id: $id) {
  name email
  shippingAddress { name firstName lastName address1 address2 city zip country countryCodeV2 phone }
  lineItems(first: 5) { nodes { id sku variant { id } product { id } } }
} }`

const placeOrder = (sim: RunningShopifySimulator, spec: Record<string, unknown> = {}) =>
  simAdmin(sim.url, "POST", "orders", {
    financialStatus: "PAID",
    email: "ingrid.lindqvist@example.se",
    lineItems: [{ sku: "TEE-1", title: "Tee", quantity: 2 }, { sku: "MUG-1", title: "Mug", quantity: 1 }],
    ...spec
  })

describe("Shopify simulator: access scopes", () => {
  it("withholds what the token's scopes do not reach: null in data, ACCESS_DENIED with its path, the rest good", async () => {
    const sim = await start({ scopes: podsyncScopes.filter((s) => s !== "read_products") })
    const order = await placeOrder(sim)
    const answer = await graphql(sim, ORDER, { id: order.id })
    expect(answer.status).toBe(200)
    const lines = answer.json.data.order.lineItems.nodes
    expect(lines.map((l: any) => [l.sku, l.variant, l.product])).toEqual([["TEE-1", null, null], ["MUG-1", null, null]])
    expect(answer.json.data.order.email).toBe("ingrid.lindqvist@example.se")
    expect(answer.json.errors).toHaveLength(4)
    expect(answer.json.errors[0]).toMatchObject({
      message: "Access denied for variant field. Required access: `read_products` access scope.",
      path: ["order", "lineItems", "nodes", 0, "variant"],
      extensions: { code: "ACCESS_DENIED" }
    })
  })

  it("refuses a mutation the scopes do not allow, changing nothing", async () => {
    const sim = await start({ scopes: podsyncScopes.filter((s) => s !== "write_orders") })
    const order = await placeOrder(sim)
    const answer = await graphql(sim, `mutation($id: ID!) { tagsAdd(id: $id, tags: ["podsync:drafted"]) { userErrors { message } } }`, {
      id: order.id
    })
    expect(answer.json.data).toEqual({ tagsAdd: null })
    expect(answer.json.errors[0]).toMatchObject({ path: ["tagsAdd"], extensions: { code: "ACCESS_DENIED" } })
    expect(answer.json.errors[0].message).toContain("`write_orders`")
    expect((await simAdmin(sim.url, "GET", `orders/${order.legacyResourceId}`)).tags).toEqual([])
  })

  it("lists the granted scopes in currentAppInstallation, as POST /__sim/shop sets them", async () => {
    const sim = await start()
    const scopes = async () =>
      (await graphql(sim, "{ currentAppInstallation { accessScopes { handle } } }")).json.data.currentAppInstallation.accessScopes.map((
        s: any
      ) => s.handle)
    expect(await scopes()).toEqual([...podsyncScopes].sort())
    await simAdmin(sim.url, "POST", "shop", { scopes: ["read_orders"] })
    expect(await scopes()).toEqual(["read_orders"])
  })
})

describe("Shopify simulator: protected customer data", () => {
  it("on a basic plan denies the buyer's name, email, address lines, zip and phone; city and country come", async () => {
    const sim = await start({ plan: "basic" })
    const order = await placeOrder(sim)
    const answer = await graphql(sim, ORDER, { id: order.id })
    const { email, shippingAddress } = answer.json.data.order
    expect(email).toBeNull()
    expect(shippingAddress).toMatchObject({
      name: null,
      firstName: null,
      lastName: null,
      address1: null,
      address2: null,
      zip: null,
      phone: null
    })
    expect(shippingAddress.city).toBe(order.shippingAddress.city)
    expect(shippingAddress.countryCodeV2).toBe(order.shippingAddress.countryCodeV2)
    expect(answer.json.errors.map((e: any) => e.path.join("."))).toEqual(expect.arrayContaining([
      "order.email",
      "order.shippingAddress.name",
      "order.shippingAddress.address1",
      "order.shippingAddress.zip",
      "order.shippingAddress.phone"
    ]))
    expect(answer.json.errors.every((e: any) => e.extensions.code === "ACCESS_DENIED")).toBe(true)
    // The Shopify plan gives them.
    await simAdmin(sim.url, "POST", "shop", { plan: "shopify" })
    const upgraded = await graphql(sim, ORDER, { id: order.id })
    expect(upgraded.json.errors).toBeUndefined()
    expect(upgraded.json.data.order.shippingAddress.address1).toBe(order.shippingAddress.address1)
  })
})

describe("Shopify simulator: the 60-day window", () => {
  it("without read_all_orders an order older than 60 days does not exist; with it, it does", async () => {
    const sim = await start({ scopes: podsyncScopes.filter((s) => s !== "read_all_orders") })
    const old = await placeOrder(sim)
    await simAdmin(sim.url, "POST", "clock/advance", { seconds: 61 * 86_400 })
    const recent = await placeOrder(sim)
    const look = `query($id: ID!, $ids: [ID!]!) {
      order(id: $id) { name }
      nodes(ids: $ids) { ... on Order { name } }
      orders(first: 10) { nodes { name } }
      ordersCount { count }
    }`
    const hidden = await graphql(sim, look, { id: old.id, ids: [old.id, recent.id] })
    expect(hidden.json.errors).toBeUndefined()
    expect(hidden.json.data).toEqual({
      order: null,
      nodes: [null, { name: recent.name }],
      orders: { nodes: [{ name: recent.name }] },
      ordersCount: { count: 1 }
    })
    await simAdmin(sim.url, "POST", "shop", { scopes: podsyncScopes })
    const shown = await graphql(sim, look, { id: old.id, ids: [old.id, recent.id] })
    expect(shown.json.data.order).toEqual({ name: old.name })
    expect(shown.json.data.ordersCount).toEqual({ count: 2 })
  })
})

describe("Shopify simulator: a frozen or locked shop", () => {
  it("answers 402 and 423 with the error as a string, and answers again once active", async () => {
    const sim = await start()
    await simAdmin(sim.url, "POST", "shop", { standing: "frozen" })
    expect(await graphql(sim, "{ shop { name } }")).toEqual({ status: 402, json: { errors: "Unavailable Shop" } })
    await simAdmin(sim.url, "POST", "shop", { standing: "locked" })
    expect(await graphql(sim, "{ shop { name } }")).toEqual({ status: 423, json: { errors: "Locked" } })
    await simAdmin(sim.url, "POST", "shop", { standing: "active" })
    expect((await graphql(sim, "{ shop { name } }")).status).toBe(200)
  })
})

const FULFILLMENT_ORDERS = `query($id: ID!, $displayable: Boolean) { order(id: $id) {
  displayFulfillmentStatus
  fulfillmentOrders(first: 10, displayable: $displayable) { nodes { id status fulfillAt supportedActions { action } } }
} }`

describe("Shopify simulator: fulfillment orders", () => {
  it("keeps a pre-order's fulfillment orders SCHEDULED until their date, refuses to fulfil them, then opens them", async () => {
    const sim = await start()
    const fulfillAt = new Date(Date.now() + 3 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z")
    const order = await placeOrder(sim, { fulfillAt })
    const read = async () => (await graphql(sim, FULFILLMENT_ORDERS, { id: order.id })).json.data.order
    const before = await read()
    expect(before.displayFulfillmentStatus).toBe("SCHEDULED")
    expect(before.fulfillmentOrders.nodes).toEqual([
      { id: order.fulfillmentOrders[0].id, status: "SCHEDULED", fulfillAt, supportedActions: [{ action: "MARK_AS_OPEN" }] }
    ])
    const create = await graphql(
      sim,
      `mutation($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { message } } }`,
      { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: order.fulfillmentOrders[0].id }] } }
    )
    expect(create.json.data.fulfillmentCreate.userErrors[0].message).toContain("unfulfillable status= scheduled")
    await simAdmin(sim.url, "POST", "clock/advance", { seconds: 3 * 86_400 + 60 })
    expect((await read()).fulfillmentOrders.nodes[0].status).toBe("OPEN")
  })

  it("opens a SCHEDULED fulfillment order early with fulfillmentOrderOpen", async () => {
    const sim = await start()
    const order = await placeOrder(sim, { fulfillAt: new Date(Date.now() + 86_400_000).toISOString() })
    const opened = await graphql(
      sim,
      `mutation($id: ID!) { fulfillmentOrderOpen(id: $id) { fulfillmentOrder { status } userErrors { message } } }`,
      { id: order.fulfillmentOrders[0].id }
    )
    expect(opened.json.data.fulfillmentOrderOpen).toEqual({ fulfillmentOrder: { status: "OPEN" }, userErrors: [] })
  })

  it("lists the fulfillment orders a move closed unless asked displayable: true", async () => {
    const sim = await start()
    const order = await placeOrder(sim)
    await simAdmin(sim.url, "POST", `orders/${order.legacyResourceId}/move`, { times: 3 })
    const all = (await graphql(sim, FULFILLMENT_ORDERS, { id: order.id })).json.data.order.fulfillmentOrders.nodes
    expect(all.map((fo: any) => fo.status)).toEqual(["CLOSED", "CLOSED", "CLOSED", "OPEN"])
    const shown = (await graphql(sim, FULFILLMENT_ORDERS, { id: order.id, displayable: true })).json.data.order.fulfillmentOrders.nodes
    expect(shown).toEqual([all[3]])
  })

  it("says FULFILLMENT_NOT_REQUIRED for an order nothing of which ships", async () => {
    const sim = await start()
    const order = await placeOrder(sim, { lineItems: [{ sku: "GIFT-CARD", title: "Gift card", quantity: 1, requiresShipping: false }] })
    const answer = await graphql(sim, FULFILLMENT_ORDERS, { id: order.id })
    expect(answer.json.data.order).toEqual({ displayFulfillmentStatus: "FULFILLMENT_NOT_REQUIRED", fulfillmentOrders: { nodes: [] } })
  })
})

describe("Shopify simulator: cost of plain lists", () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `gid://shopify/Order/${5610000001 + i}`)

  it("charges a plain list with first as one object by default, by its first with plainListsByFirst", async () => {
    const published = await start()
    const byFirst = await start({ plainListsByFirst: true })
    const requested = async (sim: RunningShopifySimulator, n: number) =>
      (await graphql(sim, FULFILLMENT_STATES, { ids: ids(n) })).json.extensions?.cost.requestedQueryCost
    expect(await requested(published, 1)).toBe(33)
    expect(await requested(published, 25)).toBe(825)
    // 1 + fulfillments 10 × (1 + trackingInfo 5) + fulfillment orders 30.
    expect(await requested(byFirst, 1)).toBe(91)
    const refused = await graphql(byFirst, FULFILLMENT_STATES, { ids: ids(25) })
    expect(refused.json.data).toBeUndefined()
    expect(refused.json.errors[0].extensions).toMatchObject({ code: "MAX_COST_EXCEEDED", cost: 2275, maxCost: 1000 })
  })
})
