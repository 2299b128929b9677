/**
 * The pure decisions around what Shopify withholds and how it answers: which answers are partial,
 * what a 402/423 means, which scopes are missing, what a withheld field is called and why, what a
 * withheld order's plan is, when a scheduled package is looked at again.
 */
import { describe, expect, it } from "vitest"
import type { WithheldData } from "../../../src/domain/NormalizedOrder.js"
import { planDraft, type StoreSettings } from "../../../src/mapping/DraftPlan.js"
import { parseMappingCsv } from "../../../src/mapping/MappingCsv.js"
import { scheduledUntil } from "../../../src/pipeline/FulfillStage.js"
import { podsyncScopes } from "../../../src/simulator/shopify/index.js"
import { partialAnswer, scopesNamedIn, unavailableShop } from "../../../src/stores/shopify/ShopifyAnswers.js"
import { planFulfillment } from "../../../src/stores/shopify/ShopifyFulfillmentPlan.js"
import { fulfillmentStatusOf } from "../../../src/stores/shopify/ShopifyNormalize.js"
import { grants, missingScopes, SHOPIFY_SCOPE_HANDLES, SHOPIFY_SCOPES } from "../../../src/stores/shopify/ShopifyScopes.js"
import { LEVEL_2_REASON, withheldData, withheldFields } from "../../../src/stores/shopify/ShopifyWithheld.js"
import type { FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import { sampleLine, sampleOrder } from "../../support/orders.js"

const denied = (path: ReadonlyArray<string | number>, scope?: string) => ({
  message: scope === undefined
    ? `This app is not approved to use the ${String(path[path.length - 1])} field.`
    : `Access denied for ${String(path[path.length - 1])} field. Required access: \`${scope}\` access scope.`,
  path,
  extensions: { code: "ACCESS_DENIED" }
})

describe("Shopify partial answers", () => {
  const data = {
    order: { email: null, shippingAddress: { zip: null, city: "Leeds" }, lineItems: { nodes: [{ id: "L1", variant: null }] } }
  }

  it("keep the data when every error is ACCESS_DENIED on a field whose parent is there", () => {
    expect(partialAnswer(data, [denied(["order", "email"]), denied(["order", "lineItems", "nodes", 0, "variant"], "read_products")]))
      .toEqual([
        { path: ["order", "email"], message: "This app is not approved to use the email field." },
        {
          path: ["order", "lineItems", "nodes", 0, "variant"],
          message: "Access denied for variant field. Required access: `read_products` access scope."
        }
      ])
  })

  it("are not partial when another kind of error is among them, or a denial took its parent with it", () => {
    expect(partialAnswer(data, [denied(["order", "email"]), { message: "Throttled", extensions: { code: "THROTTLED" } }])).toBeUndefined()
    expect(partialAnswer(data, [{ message: "boom", path: ["order", "email"] }])).toBeUndefined()
    expect(partialAnswer({ order: null }, [denied(["order", "fulfillmentOrders"], "read_merchant_managed_fulfillment_orders")]))
      .toBeUndefined()
    expect(partialAnswer(undefined, [denied(["order", "email"])])).toBeUndefined()
  })

  it("name the scopes a denial asks for", () => {
    expect(
      scopesNamedIn(
        "Required access: `read_orders` access scope, `read_marketplace_orders` access scope or `read_quick_sale` access scope."
      )
    )
      .toEqual(["read_orders", "read_marketplace_orders", "read_quick_sale"])
  })
})

describe("Shopify unavailable shops", () => {
  it("402 is a frozen shop and 423 a locked one, with Shopify's own words; anything else is not", () => {
    expect(unavailableShop(402, '{"errors":"Unavailable Shop"}')).toMatch(
      /^the shop is frozen \("Unavailable Shop"\): .*pays the outstanding bill/
    )
    expect(unavailableShop(423, '{"errors":"Locked"}')).toMatch(/^the shop is locked \("Locked"\): .*Shopify support/)
    expect(unavailableShop(402, "Payment Required")).toContain('("Payment Required")')
    expect(unavailableShop(200, '{"errors":"x"}')).toBeUndefined()
    expect(unavailableShop(503, "")).toBeUndefined()
  })
})

describe("Shopify scopes", () => {
  it("a write scope gives its read scope; required ones are missed before optional ones", () => {
    const readOrders = SHOPIFY_SCOPES.find((s) => s.handle === "read_orders")!
    expect(grants(new Set(["write_orders"]), readOrders)).toBe(true)
    expect(missingScopes(new Set(SHOPIFY_SCOPE_HANDLES))).toEqual([])
    expect(missingScopes(new Set(["read_orders", "write_merchant_managed_fulfillment_orders"])).map((s) => s.handle)).toEqual([
      "write_orders",
      "read_products",
      "read_all_orders"
    ])
    // A fulfilment-service location's scopes stand for the merchant-managed ones.
    expect(
      missingScopes(new Set(["write_orders", "read_products", "write_third_party_fulfillment_orders", "read_all_orders"]))
    ).toEqual([])
  })

  it("are what the simulator's token is granted by default", () => {
    expect([...podsyncScopes].sort()).toEqual([...SHOPIFY_SCOPE_HANDLES].sort())
  })

  it("each says what fails without it, and only read_all_orders is optional", () => {
    expect(SHOPIFY_SCOPES.filter((s) => s.optional).map((s) => s.handle)).toEqual(["read_all_orders"])
    for (const scope of SHOPIFY_SCOPES) expect(scope.withoutIt.length).toBeGreaterThan(30)
  })
})

describe("Shopify withheld fields", () => {
  const order = { lineItems: { nodes: [{ id: "gid://shopify/LineItem/11" }, { id: "gid://shopify/LineItem/12" }] } }

  it("are named in the normalized order's terms and grouped by why", () => {
    const fields = withheldFields(order, [
      { path: ["email"], message: "This app is not approved to use the email field." },
      { path: ["shippingAddress", "address1"], message: "This app is not approved to use the address1 field." },
      { path: ["shippingAddress", "zip"], message: "This app is not approved to use the zip field." },
      {
        path: ["lineItems", "nodes", 1, "variant"],
        message: "Access denied for variant field. Required access: `read_products` access scope."
      },
      { path: ["somethingElse"], message: "Access denied for somethingElse field." }
    ])
    expect(fields.map((f) => f.field)).toEqual([
      "email",
      "shipTo.line1",
      "shipTo.postalCode",
      "lines.gid://shopify/LineItem/12.variantId",
      "somethingElse"
    ])
    const grouped = withheldData(fields)
    expect(grouped.map((g) => g.fields)).toEqual([
      ["email", "shipTo.line1", "shipTo.postalCode"],
      ["lines.gid://shopify/LineItem/12.variantId"],
      ["somethingElse"]
    ])
    expect(grouped[0]?.reason).toBe(LEVEL_2_REASON)
    expect(grouped[1]?.reason).toContain("lacks the read_products access scope")
    expect(grouped[2]?.reason).toBe("Access denied for somethingElse field.")
  })
})

describe("planning an order the store withheld data of", () => {
  const settings: StoreSettings = {
    storeKey: "acme-shopify",
    platform: "shopify",
    podStoreId: "store-acme",
    shipping: { default: "METHOD_STANDARD", byTitle: {} },
    eligibleFinancialStatuses: ["paid"]
  }
  const header =
    "store_variant_id,store_sku,pod_variant_id,pod_legacy_id,print_front,print_back,print_pocket,print_left_sleeve,print_right_sleeve,print_whole,barcode_url,ignore"
  const byVariant = parseMappingCsv([header, "44001122,,GM0002010011,,{{attr design_front}},,,,,,,"].join("\n")).table
  const bySku = parseMappingCsv([header, ",TEE-BLK-M,GM0002010011,,{{attr design_front}},,,,,,,"].join("\n")).table
  const level2: WithheldData = {
    fields: ["email", "shipTo.name", "shipTo.line1", "shipTo.postalCode", "shipTo.phone"],
    reason: LEVEL_2_REASON
  }

  it("holds an order without the buyer's details as withheld_by_store, saying why and what to do, not as an address to fix", () => {
    const { shipTo } = sampleOrder()
    const order = sampleOrder({
      email: undefined,
      shipTo: { name: "", city: shipTo!.city!, countryCode: "DE", country: "Germany", region: "Bayern", regionCode: "BY" },
      withheld: [level2]
    })
    const plan = planDraft(order, byVariant, undefined, settings)
    expect(plan).toMatchObject({ _tag: "Held", code: "withheld_by_store" })
    expect(plan._tag === "Held" && plan.message).toBe(
      `the store withheld the buyer's email, name, address, postal code, phone from podsync, so the order cannot be drafted: ${LEVEL_2_REASON}`
    )
    expect(plan._tag === "Held" && plan.problems).toHaveLength(1)
  })

  it("holds a line whose variant was withheld when no row matches it, and drafts it when its SKU matches", () => {
    const line = sampleLine({ variantId: undefined, productId: undefined })
    const withheld: WithheldData = {
      fields: [`lines.${line.lineId}.variantId`, `lines.${line.lineId}.productId`],
      reason: "Shopify withholds it from podsync: the app lacks the read_products access scope."
    }
    const order = sampleOrder({ lines: [line], withheld: [withheld] })
    const held = planDraft(order, byVariant, undefined, settings)
    expect(held).toMatchObject({ _tag: "Held", code: "withheld_by_store", problems: [{ lineId: line.lineId }] })
    expect(held._tag === "Held" && held.message).toContain("the store withheld its variant, so no mapping row by variant id can match it")
    expect(planDraft(order, bySku, undefined, settings)._tag).toBe("Ready")
  })
})

describe("Shopify scheduled fulfilment", () => {
  const push: FulfillmentPush = {
    storeOrderId: "1",
    lines: [{ lineId: "L1", quantity: 1 }],
    tracking: { company: "DHL Express", number: "JD014600001234" }
  }
  const foState = (status: string) => ({
    cancelled: false,
    sameTracking: [],
    standing: [],
    fulfillmentOrders: [{
      id: "FO-1",
      status,
      fulfillAt: "2030-03-14T09:00:00Z",
      holds: [],
      lines: [{ id: "FOL-1", lineItemId: "L1", remainingQuantity: 1 }]
    }]
  })

  it("a package in a SCHEDULED fulfillment order waits until its date", () => {
    expect(planFulfillment(foState("SCHEDULED"), push)).toEqual({
      _tag: "Decided",
      outcome: { _tag: "Scheduled", scheduled: [{ heldId: "FO-1", fulfillAt: "2030-03-14T09:00:00Z" }] }
    })
    expect(planFulfillment(foState("OPEN"), push)._tag).toBe("Create")
  })

  it("is looked at again a minute after the date, within a minute and six hours; in an hour without one", () => {
    const now = Date.parse("2030-03-14T08:00:00Z")
    expect(scheduledUntil([{ fulfillAt: "2030-03-14T09:00:00Z" }, { fulfillAt: "2030-03-15T09:00:00Z" }], now)).toEqual({
      at: "2030-03-14T09:00:00Z",
      inMs: 61 * 60_000
    })
    expect(scheduledUntil([{ fulfillAt: "2030-04-01T00:00:00Z" }], now).inMs).toBe(6 * 3_600_000)
    expect(scheduledUntil([{ fulfillAt: "2030-03-14T07:00:00Z" }], now).inMs).toBe(60_000)
    expect(scheduledUntil([{}], now)).toEqual({ at: undefined, inMs: 3_600_000 })
  })

  it("an order nothing of which ships reads as not_required, not unknown", () => {
    expect(fulfillmentStatusOf("FULFILLMENT_NOT_REQUIRED")).toBe("not_required")
    expect(fulfillmentStatusOf("SCHEDULED")).toBe("scheduled")
  })
})
