// The store conformance step's scope check: the scopes the documents need against those podsync
// names (ShopifyScopes.ts, README "Going live"), on needs written here.
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import type { ScopeNeed } from "../../conformance/stores/GraphqlJudge.js"
import { checkScopes, namedScopesIn, readmeScopes } from "../../conformance/stores/ScopeCheck.js"
import * as ShopifyScopes from "../../src/stores/shopify/ShopifyScopes.js"

const need = (at: string, ...scopes: Array<string>): ScopeNeed => ({ at, scopes, sentence: "" })
const needs = [
  need("Order", "read_orders", "read_marketplace_orders"),
  need("LineItem", "read_orders", "read_marketplace_orders"),
  need("Product", "read_products"),
  need("FulfillmentOrder", "read_assigned_fulfillment_orders", "read_merchant_managed_fulfillment_orders"),
  need("Mutation.fulfillmentCreate", "write_assigned_fulfillment_orders", "write_merchant_managed_fulfillment_orders")
]
const named = [
  { scope: "read_orders", optional: false },
  { scope: "read_products", optional: false },
  { scope: "write_merchant_managed_fulfillment_orders", optional: false },
  { scope: "read_all_orders", optional: true }
]
const orderMentions = (scope: string) => (scope === "read_all_orders" ? "Order" : undefined)

describe("the scope check", () => {
  it("passes when every need is met by a named scope (a write scope meets its read) and every named scope is needed", () => {
    const findings = checkScopes(needs, named, [
      "read_all_orders",
      "read_orders",
      "read_products",
      "write_merchant_managed_fulfillment_orders"
    ], orderMentions)
    expect(findings.failures).toEqual([])
    expect(findings.named.find((n) => n.scope === "write_merchant_managed_fulfillment_orders")?.neededBy).toEqual([
      "FulfillmentOrder",
      "Mutation.fulfillmentCreate"
    ])
    expect(findings.named.find((n) => n.scope === "read_all_orders")?.justifiedBy).toBe("Order")
  })

  it("names a need no named scope meets, a named scope nothing needs, an optional one the schema does not speak of", () => {
    const findings = checkScopes(
      needs,
      [...named.filter((n) => n.scope !== "read_products"), { scope: "write_fulfillments", optional: false }, {
        scope: "read_customers",
        optional: true
      }],
      undefined,
      orderMentions
    )
    expect(findings.failures).toEqual([
      "needed and not named: one of read_products (for Product)",
      "named but nothing the connector sends needs it: write_fulfillments",
      "named as optional, and the schema says nothing of it where the connector reads: read_customers"
    ])
  })

  it("compares the README's scopes with the named ones", () => {
    const findings = checkScopes(needs, named, [
      "read_orders",
      "read_products",
      "write_fulfillments",
      "write_merchant_managed_fulfillment_orders"
    ], orderMentions)
    expect(findings.failures).toEqual([
      `the README's "Going live" does not name: read_all_orders`,
      `the README's "Going live" names scopes check does not: write_fulfillments`
    ])
  })

  it("reads the named scopes from whatever a module exports: an array of entries, or a record keyed by scope", () => {
    expect(
      namedScopesIn({
        LIMIT: 3,
        SCOPES: [{ scope: "read_orders", optional: false, withoutIt: "nothing reads" }, { name: "read_all_orders", required: false }]
      })
    ).toEqual([
      { scope: "read_orders", optional: false, withoutIt: "nothing reads" },
      { scope: "read_all_orders", optional: true }
    ])
    expect(namedScopesIn({ scopes: { read_orders: { optional: false, whatFails: "every pull" } } })).toEqual([
      { scope: "read_orders", optional: false, withoutIt: "every pull" }
    ])
    expect(namedScopesIn({ other: ["read_orders"] })).toEqual([])
  })

  it("reads the scopes a README names in Going live only", () => {
    const readme =
      "# x\n## Going live\nGrant `read_orders` and `write_orders`; `podsync check` says.\n## Configuration\n`read_products` here does not count.\n"
    expect(readmeScopes(readme)).toEqual(["read_orders", "write_orders"])
  })

  it("finds the README and ShopifyScopes.ts naming the same scopes (the step checks them against the schema too)", () => {
    expect(readmeScopes(fs.readFileSync("README.md", "utf8"))).toEqual(namedScopesIn(ShopifyScopes).map((n) => n.scope).sort())
  })
})
