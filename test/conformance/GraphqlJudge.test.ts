// The store conformance step's GraphQL judge on a tiny schema written here, with Shopify's
// access metadata added to its introspection as Shopify publishes it (the real schema stays
// outside the repository): validation, deprecation, paging, cost both ways, scopes, protected data.
import { buildClientSchema, buildSchema, introspectionFromSchema } from "graphql"
import { describe, expect, it } from "vitest"
import { requestedCost } from "../../conformance/stores/GraphqlCost.js"
import { judgeDocument, judgementFailures } from "../../conformance/stores/GraphqlJudge.js"
import { accessIndexOf, parseRequiredAccess } from "../../conformance/stores/ShopifyAccess.js"
import { parse } from "graphql"

const sdl = /* GraphQL */ `
  interface Node { id: ID! }
  enum Status { OPEN, PENDING @deprecated(reason: "legacy"), CLOSED }
  type Money { amount: String!, currencyCode: String! }
  type Tracking { number: String, company: String }
  type Fulfillment implements Node { id: ID!, status: Status!, trackingInfo(first: Int): [Tracking!]! }
  type LineItem implements Node { id: ID!, sku: String, quantity: Int!, product: Product }
  type Product implements Node { id: ID!, title: String! }
  type LineItemConnection { nodes: [LineItem!]!, pageInfo: PageInfo! }
  type PageInfo { hasNextPage: Boolean!, endCursor: String }
  type Order implements Node {
    id: ID!
    name: String!
    email: String
    legacyName: String @deprecated(reason: "Use name.")
    total: Money!
    fulfillments(first: Int): [Fulfillment!]!
    lineItems(first: Int, last: Int, after: String, reverse: Boolean = false @deprecated(reason: "Sort instead.")): LineItemConnection!
  }
  type OrderConnection { nodes: [Order!]!, pageInfo: PageInfo! }
  input TagInput { value: String!, colour: String @deprecated(reason: "Tags have no colour.") }
  type TagsAddPayload { node: Node }
  type Shop { name: String! }
  type Query {
    orders(first: Int, after: String): OrderConnection!
    order(id: ID!): Order
    nodes(ids: [ID!]!): [Node]!
    shop: Shop!
  }
  type Mutation {
    tagsAdd(id: ID!, tags: [TagInput!]!, status: Status): TagsAddPayload
    orderUpdate(id: ID!): Order
    shopUpdate(name: String!): Shop
  }
`

/** The tiny schema's introspection with Shopify's metadata added where Shopify puts it. */
const introspection = (() => {
  const result = JSON.parse(JSON.stringify(introspectionFromSchema(buildSchema(sdl)))) as {
    __schema: { types: Array<{ name: string; fields: Array<Record<string, unknown>> | null } & Record<string, unknown>> }
  }
  const type = (name: string) => result.__schema.types.find((t) => t.name === name)!
  const field = (typeName: string, name: string) => type(typeName).fields!.find((f) => f["name"] === name)!
  type("Order")["requiredAccess"] = "`read_orders` access scope, `read_marketplace_orders` access scope or `read_quick_sale` access scope."
  type("Order")["description"] = "Only the last 60 days of orders by default: add the `read_all_orders` scope for older ones."
  type("Product")["requiredAccess"] = "`read_products` access scope."
  field("Mutation", "orderUpdate")["requiredAccess"] = "`write_orders` access scope. Also: The user must have a permission to edit orders."
  field("Mutation", "shopUpdate")["requiredAccess"] =
    "`read_markets` for queries and both `read_markets` as well as `write_markets` for mutations."
  Object.assign(field("Order", "email"), { isProtected: true, protectedSubject: "customer", protectedContent: "email" })
  return { data: result }
})()

const ctx = { schema: buildClientSchema(introspection.data as never), access: accessIndexOf(introspection) }

describe("the GraphQL judge", () => {
  it("finds what the schema refuses, and judges nothing further of that document", () => {
    const j = judgeDocument(ctx, `query { order(id: "1") { id nmae } }`)
    expect(j.errors).toEqual([`Cannot query field "nmae" on type "Order". Did you mean "name"?`])
    expect(judgementFailures(j, 1000)).toEqual([`invalid: Cannot query field "nmae" on type "Order". Did you mean "name"?`])
  })

  it("finds every deprecated field, argument, enum value and input field, in the document and in its variables", () => {
    const query = judgeDocument(ctx, `query { order(id: "1") { legacyName lineItems(first: 5, reverse: true) { nodes { id } } } }`, {})
    expect(query.deprecated.map((d) => [d.kind, d.coordinate, d.in])).toEqual([
      ["field", "Order.legacyName", "document"],
      ["argument", "Order.lineItems(reverse:)", "document"]
    ])
    const mutation = judgeDocument(
      ctx,
      `mutation T($id: ID!, $tags: [TagInput!]!) { tagsAdd(id: $id, tags: $tags, status: PENDING) { node { id } } }`,
      { id: "gid://shopify/Order/1", tags: [{ value: "podsync", colour: "red" }] }
    )
    expect(mutation.deprecated.map((d) => [d.kind, d.coordinate, d.in])).toEqual([
      ["input field", "TagInput.colour ($tags[0].colour)", "variables"],
      ["enum value", "Status.PENDING", "document"]
    ])
    expect(judgementFailures(mutation, 1000)).toContain("deprecated enum value Status.PENDING: legacy")
  })

  it("says when variables do not fit their declared types", () => {
    const j = judgeDocument(ctx, `query O($id: ID!) { order(id: $id) { id } }`, { id: { not: "an id" } })
    expect(j.variableErrors).toHaveLength(1)
    expect(j.variableErrors[0]).toContain(`Variable "$id" got invalid value`)
  })

  it("costs a document by the published rules, plain lists with first both ways, and fails one over the limit", () => {
    // A page of 100 orders × (1 + total 1 + fulfillments [1 + trackingInfo 1] + 50 line items × (1 + product 1)).
    const costly =
      `query { orders(first: 100) { nodes { id total { amount } fulfillments(first: 10) { id trackingInfo(first: 5) { number } } lineItems(first: 50) { nodes { id product { title } } } } } }`
    const j = judgeDocument(ctx, costly, {})
    expect(j.cost.published).toBe(2 + 100 * (1 + 1 + 2 + (2 + 50 * 2)))
    // Charged by first: fulfillments 10 × (1 + 5 × 1).
    expect(j.cost.listsByFirst).toBe(2 + 100 * (1 + 1 + 10 * (1 + 5) + (2 + 50 * 2)))
    expect(judgementFailures(j, 1000)).toContain(`requested cost ${j.cost.published} is over 1000 (published rules)`)
    const small = judgeDocument(ctx, `query { orders(first: 2) { nodes { id } } }`, {})
    expect([small.cost.published, judgementFailures(small, 1000)]).toEqual([2 + 2 * 1, []])
  })

  it("charges nodes(ids:) per id and an interface its dearest possible selection", () => {
    const doc = `query N($ids: [ID!]!) { nodes(ids: $ids) { ... on Order { id total { amount } } ... on Product { id } } }`
    const ids = ["gid://shopify/Order/1", "gid://shopify/Order/2", "gid://shopify/Order/3"]
    expect(requestedCost(ctx.schema, parse(doc), { ids }, "published").requested).toBe(3 * (1 + 1))
    // Not sent: the ids are not known, and the run says so instead of guessing.
    expect(judgeDocument(ctx, doc).cost.unknown).toEqual(["Query.nodes: no ids given"])
  })

  it("refuses a connection without first or last, or asked for more than 250", () => {
    const j = judgeDocument(ctx, `query { orders { nodes { id } } order(id: "1") { lineItems(first: 300) { nodes { id } } } }`, {})
    expect(j.paging).toEqual([
      "Query.orders: a connection without first or last (Shopify refuses it)",
      "Order.lineItems: 300 nodes asked, more than 250"
    ])
  })

  it("reads the scopes from requiredAccess on types and mutations, the owner's for a mutation on another resource, and the protected fields", () => {
    const read = judgeDocument(ctx, `query { order(id: "1") { id email lineItems(first: 1) { nodes { product { title } } } } }`, {})
    expect(read.needs.map((n) => [n.at, n.scopes])).toEqual([
      ["Order", ["read_orders", "read_marketplace_orders", "read_quick_sale"]],
      ["Product", ["read_products"]]
    ])
    expect(read.protectedReads).toEqual([{ coordinate: "Order.email", subject: "customer", content: "email" }])
    // tagsAdd states no access of its own: it needs what mutating its owner (an Order, by its gid) needs.
    const tag = judgeDocument(ctx, `mutation T($id: ID!) { tagsAdd(id: $id, tags: [{ value: "x" }]) { node { id } } }`, {
      id: "gid://shopify/Order/7"
    })
    expect(tag.needs.map((n) => [n.at, n.scopes])).toEqual([["Mutation.tagsAdd on Order (as Mutation.orderUpdate)", ["write_orders"]]])
    const unreadable = judgeDocument(ctx, `mutation { shopUpdate(name: "x") { name } }`, {})
    expect(unreadable.unreadableAccess).toHaveLength(1)
    expect(judgementFailures(unreadable, 1000)[0]).toMatch(/^access not readable: Mutation.shopUpdate/)
  })

  it("parses requiredAccess sentences: lists, conjunctions, the owner rule, and what it cannot read", () => {
    expect(parseRequiredAccess("`a_x` access scope, `b_x` access scope or `c_x` access scope. Also: The user must have x permission."))
      .toEqual([
        { _tag: "AnyOf", scopes: ["a_x", "b_x", "c_x"] }
      ])
    expect(parseRequiredAccess("`a_x` access scope and (`b_x` access scope or `c_x` access scope).")).toEqual([
      { _tag: "AnyOf", scopes: ["a_x"] },
      { _tag: "AnyOf", scopes: ["b_x", "c_x"] }
    ])
    expect(parseRequiredAccess("the same access level needed to mutate the owner resource. For instance…")).toEqual([{
      _tag: "OwnerResource"
    }])
    expect(parseRequiredAccess("Any of `a_x` or `b_x` access scopes or `c_x` user permission.")[0]?._tag).toBe("Unreadable")
  })
})
