import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startShopifySimulator, type RunningShopifySimulator } from "../../src/simulator/shopify/index.js"
import { simAdmin } from "../support/simAdmin.js"

// Fulfillment, tags and metafields mutations with Shopify's userErrors rules; fault injection.

let sim: RunningShopifySimulator

const post = (query: string, variables: Record<string, unknown> = {}) =>
  fetch(sim.graphqlUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Shopify-Access-Token": sim.accessToken },
    body: JSON.stringify({ query, variables })
  })

const graphql = async (query: string, variables: Record<string, unknown> = {}): Promise<any> => {
  const response = await post(query, variables)
  expect(response.status).toBe(200)
  return response.json()
}

const admin = (method: string, path: string, body?: unknown) => simAdmin(sim.url, method, path, body)

const fulfillmentCreate = `mutation($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id status name trackingInfo { company number url } fulfillmentLineItems(first: 10) { nodes { quantity lineItem { id } } } }
    userErrors { field message }
  }
}`

const orderState = `query($id: ID!) { order(id: $id) { displayFulfillmentStatus tags
  fulfillmentOrders(first: 5) { nodes { status lineItems(first: 10) { nodes { remainingQuantity } } } }
  fulfillments { trackingInfo { number } }
  metafield(namespace: "pod", key: "draft") { type value jsonValue } } }`

/** An order with two lines (2 × TEE, 1 × MUG) and its fulfillment order ids. */
const twoLineOrder = async () => {
  const order = await admin("POST", "orders", {
    financialStatus: "PAID",
    lineItems: [{ sku: "TEE-BLK-M", quantity: 2 }, { sku: "MUG-WHT-11OZ", quantity: 1 }]
  })
  const fo = order.fulfillmentOrders[0]
  return { order, foId: fo.id as string, teeLine: fo.lines[0].id as string, mugLine: fo.lines[1].id as string }
}

const fulfill = (foId: string, lines: Array<{ id: string; quantity: number }> | null, number = "9400100000000000000001") =>
  graphql(fulfillmentCreate, {
    fulfillment: {
      lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: foId, ...(lines === null ? {} : { fulfillmentOrderLineItems: lines }) }],
      trackingInfo: { company: "USPS", number },
      notifyCustomer: true
    }
  })

beforeAll(async () => {
  sim = await startShopifySimulator({ seed: 3 })
})
afterAll(() => sim.close())
beforeEach(() => admin("POST", "reset"))

describe("Shopify simulator: fulfillmentCreate", () => {
  it("fulfills part, then the rest, and closes the fulfillment order", async () => {
    const { order, foId, teeLine, mugLine } = await twoLineOrder()
    const first = await fulfill(foId, [{ id: teeLine, quantity: 1 }])
    expect(first.data.fulfillmentCreate.userErrors).toEqual([])
    expect(first.data.fulfillmentCreate.fulfillment).toMatchObject({
      status: "SUCCESS",
      name: `${order.name}.1`,
      trackingInfo: [{ company: "USPS", number: "9400100000000000000001", url: expect.stringContaining("usps.com") }],
      fulfillmentLineItems: { nodes: [{ quantity: 1, lineItem: { id: order.lineItems[0].id } }] }
    })
    let state = (await graphql(orderState, { id: order.id })).data.order
    expect(state.displayFulfillmentStatus).toBe("PARTIALLY_FULFILLED")
    expect(state.fulfillmentOrders.nodes[0]).toEqual({
      status: "IN_PROGRESS",
      lineItems: { nodes: [{ remainingQuantity: 1 }, { remainingQuantity: 1 }] }
    })

    const rest = await fulfill(foId, null, "9400100000000000000002")
    expect(rest.data.fulfillmentCreate.userErrors).toEqual([])
    expect(rest.data.fulfillmentCreate.fulfillment.fulfillmentLineItems.nodes.map((n: any) => n.quantity)).toEqual([1, 1])
    state = (await graphql(orderState, { id: order.id })).data.order
    expect(state.displayFulfillmentStatus).toBe("FULFILLED")
    expect(state.fulfillmentOrders.nodes[0].status).toBe("CLOSED")

    const again = await fulfill(foId, [{ id: mugLine, quantity: 1 }])
    expect(again.data.fulfillmentCreate).toEqual({
      fulfillment: null,
      userErrors: [{ field: ["fulfillment"], message: `Fulfillment order ${foId.split("/").pop()} has an unfulfillable status= closed.` }]
    })
    const stats = await admin("GET", "stats")
    expect(stats.fulfillmentsByOrder).toEqual({ [order.legacyResourceId]: 2 })
    expect(stats.notificationsByOrder).toEqual({ [order.legacyResourceId]: 2 })
  })

  it("refuses a quantity above what remains, and creates nothing", async () => {
    const { order, foId, teeLine } = await twoLineOrder()
    const answer = await fulfill(foId, [{ id: teeLine, quantity: 3 }])
    expect(answer.data.fulfillmentCreate.fulfillment).toBeNull()
    expect(answer.data.fulfillmentCreate.userErrors).toEqual([{
      field: ["fulfillment", "lineItemsByFulfillmentOrder", "0", "fulfillmentOrderLineItems", "0", "quantity"],
      message: "Invalid fulfillment order line item quantity requested."
    }])
    expect((await admin("GET", `orders/${order.legacyResourceId}`)).fulfillments).toEqual([])
  })

  it("refuses an ON_HOLD fulfillment order until the hold is released", async () => {
    const { order, foId, teeLine } = await twoLineOrder()
    await admin("POST", `orders/${order.legacyResourceId}/hold`)
    expect((await graphql(orderState, { id: order.id })).data.order.displayFulfillmentStatus).toBe("ON_HOLD")
    const held = await fulfill(foId, [{ id: teeLine, quantity: 1 }])
    expect(held.data.fulfillmentCreate.userErrors).toEqual([
      { field: ["fulfillment"], message: `Fulfillment order ${foId.split("/").pop()} has an unfulfillable status= on_hold.` }
    ])
    const release = await graphql(
      `mutation($id: ID!) { fulfillmentOrderReleaseHold(id: $id) { fulfillmentOrder { status } userErrors { message } } }`,
      { id: foId }
    )
    expect(release.data.fulfillmentOrderReleaseHold).toEqual({ fulfillmentOrder: { status: "OPEN" }, userErrors: [] })
    expect((await fulfill(foId, [{ id: teeLine, quantity: 1 }])).data.fulfillmentCreate.userErrors).toEqual([])
  })

  it("refuses unknown fulfillment orders and conflicting tracking input", async () => {
    const { foId } = await twoLineOrder()
    const unknown = await fulfill("gid://shopify/FulfillmentOrder/1", null)
    expect(unknown.data.fulfillmentCreate.userErrors[0].message).toBe("Fulfillment order does not exist.")
    const conflicting = await graphql(fulfillmentCreate, {
      fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: foId }], trackingInfo: { number: "1", numbers: ["1", "2"] } }
    })
    expect(conflicting.data.fulfillmentCreate.fulfillment).toBeNull()
    expect(conflicting.data.fulfillmentCreate.userErrors).toHaveLength(1)
  })

  it("updates tracking, adds tags and sets metafields", async () => {
    const { order, foId } = await twoLineOrder()
    const created = (await fulfill(foId, null)).data.fulfillmentCreate.fulfillment
    const update = await graphql(
      `mutation($id: ID!, $t: FulfillmentTrackingInput!) {
      fulfillmentTrackingInfoUpdate(fulfillmentId: $id, trackingInfoInput: $t, notifyCustomer: false) { fulfillment { trackingInfo { company number url } } userErrors { message } } }`,
      { id: created.id, t: { company: "UPS", number: "1Z999AA10123456784" } }
    )
    expect(update.data.fulfillmentTrackingInfoUpdate.fulfillment.trackingInfo[0]).toMatchObject({
      company: "UPS",
      number: "1Z999AA10123456784"
    })
    const tags = await graphql(
      `mutation($id: ID!) { tagsAdd(id: $id, tags: "pod:drafted, pod:shipped") { node { id } userErrors { message } } }`,
      { id: order.id }
    )
    expect(tags.data.tagsAdd).toEqual({ node: { id: order.id }, userErrors: [] })
    const set = await graphql(
      `mutation($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { metafields { key namespace value } userErrors { field message code } } }`,
      { m: [{ ownerId: order.id, namespace: "pod", key: "draft", type: "json", value: '{"draftId":"d_1"}' }] }
    )
    expect(set.data.metafieldsSet).toEqual({ metafields: [{ key: "draft", namespace: "pod", value: '{"draftId":"d_1"}' }], userErrors: [] })
    const invalid = await graphql(
      `mutation($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { metafields { id } userErrors { code } } }`,
      { m: [{ ownerId: order.id, namespace: "pod", key: "draft", type: "json", value: "{not json" }] }
    )
    expect(invalid.data.metafieldsSet).toEqual({ metafields: null, userErrors: [{ code: "INVALID_VALUE" }] })
    const state = (await graphql(orderState, { id: order.id })).data.order
    expect(state.tags).toEqual(["pod:drafted", "pod:shipped"])
    expect(state.fulfillments[0].trackingInfo).toEqual([{ number: "1Z999AA10123456784" }])
    expect(state.metafield).toEqual({ type: "json", value: '{"draftId":"d_1"}', jsonValue: { draftId: "d_1" } })
    expect((await admin("GET", "stats")).tagsByOrder).toEqual({ [order.legacyResourceId]: ["pod:drafted", "pod:shipped"] })
  })
})

describe("Shopify simulator: faults", () => {
  it("commitThenDrop creates the fulfillment and drops the connection without an answer", async () => {
    const { order, foId } = await twoLineOrder()
    await admin("POST", "faults", { operation: "fulfillmentCreate", kind: "commitThenDrop", count: 1 })
    await expect(fulfill(foId, null)).rejects.toThrow()
    const stored = await admin("GET", `orders/${order.legacyResourceId}`)
    expect(stored.fulfillments).toHaveLength(1)
    expect((await admin("GET", "stats")).fulfillmentsByOrder).toEqual({ [order.legacyResourceId]: 1 })
    // the rule is used up: the retry is answered, and refused because nothing remains
    const retry = await fulfill(foId, null)
    expect(retry.data.fulfillmentCreate.userErrors[0].message).toContain("unfulfillable status= closed")
  })

  it("error5xx and reset act before execution; throttle answers THROTTLED; rules match their operation only", async () => {
    const { order, foId } = await twoLineOrder()
    await admin("POST", "faults", { operation: "fulfillmentCreate", kind: "error5xx", count: 1 })
    const failed = await post(fulfillmentCreate, { fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: foId }] } })
    expect(failed.status).toBe(503)
    await admin("POST", "faults", { operation: "fulfillmentCreate", kind: "reset", count: 1 })
    await expect(post(fulfillmentCreate, { fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: foId }] } })).rejects
      .toThrow()
    expect((await admin("GET", `orders/${order.legacyResourceId}`)).fulfillments).toEqual([])

    await admin("POST", "faults", { operation: "orders", kind: "throttle", count: 1 })
    expect((await graphql("{ shop { name } }")).errors).toBeUndefined()
    const throttled = await graphql("{ orders(first: 5) { nodes { id } } }")
    expect(throttled.errors[0].extensions.code).toBe("THROTTLED")
    expect((await graphql("{ orders(first: 5) { nodes { id } } }")).data.orders.nodes).toHaveLength(1)
  })

  it("latency delays the answer", async () => {
    await admin("POST", "faults", { operation: "*", kind: "latency", latencyMs: [300, 300], count: 1 })
    const started = performance.now()
    await graphql("{ shop { name } }")
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
  })
})
