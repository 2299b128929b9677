import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { addressFixRefusal, NO_FIXES, type OrderFixes, podVariantOfInput, variantFixRefusal } from "../../src/domain/OrderFix.js"
import { HELD_BY_PERSON, planPersonAction, RELEASED_BY_PERSON } from "../../src/domain/PersonAction.js"
import { addressProblems, planDraft, type StoreSettings } from "../../src/mapping/DraftPlan.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import { sampleLine, sampleOrder } from "../support/orders.js"

const table = parseMappingCsv(fs.readFileSync("config/mappings/demo-shopify.csv", "utf8")).table
const settings: StoreSettings = {
  storeKey: "acme-shopify",
  platform: "shopify",
  podStoreId: "store-1",
  shipping: { default: "METHOD_STANDARD", byTitle: {} },
  eligibleFinancialStatuses: ["paid"]
}
const at = new Date("2026-11-29T10:00:00Z")
const order = sampleOrder({
  shipTo: { name: "Anna Schmidt", city: "München", postalCode: "80331", countryCode: "DE" },
  withheld: [{ fields: ["shipTo.line1"], reason: "the app may not read the buyer's address" }],
  lines: [
    sampleLine({ lineId: "l1", sku: "UTS01-DARKHE-M" }),
    sampleLine({ lineId: "l2", sku: "UTS01-FOREST-S", quantity: 1, currentQuantity: 1, fulfillableQuantity: 1 })
  ]
})

describe("the draft plan with what a person fixed", () => {
  it("drafts with the corrected address and a line's chosen variant, keeping the line's designs and quantity", () => {
    expect(planDraft(order, table, undefined, settings)._tag).toBe("Held")
    const fixes: OrderFixes = {
      address: { shipTo: { ...order.shipTo!, line1: "Hauptstraße 5" }, by: "console:anna", at },
      variants: [{ lineId: "l1", pod: { legacyId: "10043" }, by: "console:anna", at }]
    }
    const plan = planDraft(order, table, undefined, settings, fixes)
    expect(plan._tag).toBe("Ready")
    if (plan._tag !== "Ready") return
    expect(plan.draft.address).toMatchObject({ street_1: "Hauptstraße 5", zip_code: "80331", country_code: "DE" })
    expect(plan.draft.line_items[0]).toMatchObject({ legacy_id: 10043, quantity: 2 })
    expect(plan.draft.line_items[0]?.printing_options).toHaveLength(2)
    expect(plan.draft.line_items[1]).toMatchObject({ variant_id: "GM0002010011", quantity: 1 })
    // The store's copy is untouched.
    expect(order.shipTo?.line1).toBeUndefined()
    expect(planDraft(order, table, undefined, settings, NO_FIXES)._tag).toBe("Held")
  })

  it("checks a corrected address by the pipeline's rules, naming each field", () => {
    expect(addressProblems({ name: "Anna", line1: "Hauptstraße 5", city: "München", postalCode: "80331", countryCode: "DE" })).toEqual([])
    const problems = addressProblems({
      name: "Anna",
      line1: "",
      city: "München",
      postalCode: "8".repeat(20),
      countryCode: "DE",
      phone: "call me"
    })
    expect(problems.join("\n")).toContain("address line 1 (street_1)")
    expect(problems.join("\n")).toContain("postal code (zip_code)")
    expect(problems.join("\n")).not.toContain("fix the address in the store")
  })

  it("allows an address fix only before the draft, a variant also while drafted, and says why not", () => {
    expect(addressFixRefusal({ state: "held", podDraftId: null })).toBeUndefined()
    expect(addressFixRefusal({ state: "drafted", podDraftId: "d1" })).toContain("cannot change an address")
    expect(addressFixRefusal({ state: "failed", podDraftId: "d1" })).toContain("already has a POD draft")
    expect(addressFixRefusal({ state: "ready", podDraftId: null })).toContain("hold it first")
    expect(variantFixRefusal({ state: "drafted", podDraftId: "d1" })).toBeUndefined()
    expect(variantFixRefusal({ state: "checked_out", podDraftId: "d1" })).toContain("until it is checked out")
    expect(podVariantOfInput(" 10043 ")).toEqual({ legacyId: "10043" })
    expect(podVariantOfInput("GM0002010011")).toEqual({ variantId: "GM0002010011" })
    expect(podVariantOfInput("  ")).toBeUndefined()
  })

  it("holds by hand only before a draft, and a release lifts a person's hold", () => {
    expect(planPersonAction("hold", { state: "ready", podDraftId: null }, "anna")).toMatchObject({
      _tag: "Move",
      move: { to: "held", held: { code: HELD_BY_PERSON } }
    })
    expect(planPersonAction("hold", { state: "drafted", podDraftId: "d1" }, "anna")._tag).toBe("Refused")
    expect(planPersonAction("release", { state: "held", podDraftId: null, heldReason: HELD_BY_PERSON }, "anna")).toMatchObject({
      move: { to: "held", dueNow: true, held: { code: RELEASED_BY_PERSON } }
    })
    // Any other hold keeps its reason: the re-plan decides.
    const release = planPersonAction("release", { state: "held", podDraftId: null, heldReason: "unmatched" }, "anna")
    expect(release._tag === "Move" && release.move.held).toBeUndefined()
  })
})
