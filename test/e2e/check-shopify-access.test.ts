/**
 * `podsync check` says exactly what a Shopify app lacks (issue 31), against the simulators over real
 * HTTP: each missing scope with what fails without it, buyer details Shopify withholds (Level 2
 * protected customer data, with the plan or review that gives it), and read_all_orders as a warning.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { podsyncScopes } from "../../src/simulator/shopify/index.js"
import { podsync } from "../support/cli.js"
import { createOrders, type Stack, startStack, writeDaemonConfig } from "../support/pipeline.js"
import { simAdmin } from "../support/simAdmin.js"

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
  await createOrders(stack, 1)
})
afterAll(() => stack.close())
beforeEach(() => simAdmin(stack.shopify.url, "POST", "shop", { plan: "shopify", scopes: podsyncScopes }))

const STORE = "Store demo-shopify (shopify)"
const check = (name: string) => podsync(["check", "--config", writeDaemonConfig(stack, 0, { name })])

describe("podsync check on a Shopify app", () => {
  it("says the app has every access podsync needs, and exits 0", async () => {
    const result = await check("all-access")
    expect(result.stdout).toContain(`${STORE}: credentials accepted`)
    expect(result.stdout).toContain(`${STORE}: the app has every access podsync needs`)
    expect(result.code).toBe(0)
  }, 60_000)

  it("names each missing scope with what fails without it, and exits 1", async () => {
    await simAdmin(stack.shopify.url, "POST", "shop", {
      scopes: podsyncScopes.filter((s) => s !== "write_orders" && s !== "read_products")
    })
    const result = await check("missing-scopes")
    expect(result.stdout).toContain(`${STORE}: credentials accepted`)
    expect(result.stdout).toMatch(
      /^Store demo-shopify \(shopify\): the app lacks the write_orders access scope: the podsync:drafted tag and the draft metafield are refused.*Fix: grant it to the app/m
    )
    expect(result.stdout).toMatch(
      /^Store demo-shopify \(shopify\): the app lacks the read_products access scope: every order's line variants and products are withheld/m
    )
    expect(result.stderr).toContain("problems: 2 with the POD service or the stores")
    expect(result.code).toBe(1)
  }, 60_000)

  it("says when Shopify withholds the buyer's details and what gives them, and exits 1", async () => {
    await simAdmin(stack.shopify.url, "POST", "shop", { plan: "basic" })
    const result = await check("basic-plan")
    expect(result.stdout).toContain(
      `${STORE}: Shopify withholds the buyer's name, address, email and phone from podsync: the app has no access to Level 2 protected customer data.`
    )
    expect(result.stdout).toContain("only on a store on the Shopify plan or higher")
    expect(result.stdout).toContain("a public app needs Shopify's review")
    expect(result.code).toBe(1)
  }, 60_000)

  it("warns when read_all_orders is missing, and exits 0", async () => {
    await simAdmin(stack.shopify.url, "POST", "shop", { scopes: podsyncScopes.filter((s) => s !== "read_all_orders") })
    const result = await check("no-read-all-orders")
    expect(result.stdout).toMatch(
      /^Store demo-shopify \(shopify\): warning: the app lacks the read_all_orders access scope: orders older than 60 days read as missing/m
    )
    expect(result.code).toBe(0)
  }, 60_000)
})
