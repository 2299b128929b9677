// Economy shipping, the pure part: which destinations can ship Economy at all, what the coverage
// answer means for a planned draft under each `shipping.economyUncovered` policy, and when an
// order held for an uncovered ZIP is looked at again.
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { AppConfig } from "../../src/config/AppConfig.js"
import { economyZipFor, planDraft, type StoreSettings } from "../../src/mapping/DraftPlan.js"
import {
  coverageByZip,
  decideEconomyShipping,
  draftedShipping,
  ECONOMY_HOLD_LOOK_MS,
  ECONOMY_RECHECK_MS,
  economyDestination,
  economyHoldStands,
  type ZipCoverage
} from "../../src/mapping/EconomyShipping.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import type { CreateDraftInput } from "../../src/pod/schemas/DraftRequests.js"
import { sampleOrder } from "../support/orders.js"

const HEADER =
  "store_variant_id,store_sku,pod_variant_id,pod_legacy_id,print_front,print_back,print_pocket,print_left_sleeve,print_right_sleeve,print_whole,barcode_url,ignore"
const table = parseMappingCsv([HEADER, ",TEE-BLK-M,var-black-m,,{{attr design_front}},,,,,,,"].join("\n")).table

const settings = (economyUncovered: "standard" | "hold" = "standard"): StoreSettings => ({
  storeKey: "acme-shopify",
  platform: "shopify",
  podStoreId: "store-acme",
  shipping: { default: "METHOD_STANDARD", byTitle: { Economy: "METHOD_ECONOMY", Express: "METHOD_FAST_SHIP" }, economyUncovered },
  eligibleFinancialStatuses: ["PAID"]
})

const usAddress = {
  name: "Ada Lovelace",
  firstName: "Ada",
  lastName: "Lovelace",
  line1: "12 Analytical Way",
  city: "Los Angeles",
  region: "California",
  regionCode: "US-CA",
  postalCode: "90012-3456",
  countryCode: "US",
  country: "United States"
}
const economyOrder = (shipTo: Partial<typeof usAddress> = {}, title = "Economy") =>
  sampleOrder({ shipTo: { ...usAddress, ...shipTo }, shippingMethod: { title, code: title.toUpperCase() } })

const readyDraft = (order = economyOrder()): CreateDraftInput => {
  const plan = planDraft(order, table, undefined, settings())
  if (plan._tag !== "Ready") throw new Error(`not ready: ${JSON.stringify(plan)}`)
  return plan.draft
}

const NOW = Date.parse("2026-11-20T12:00:00Z")
const uncovered: ZipCoverage = { _tag: "Uncovered", reason: "uncovered_zip", version: "2026.47" }

describe("which destinations can ship Economy", () => {
  it("checks the five digits of a US ZIP or ZIP+4", () => {
    expect(economyDestination({ country_code: "US", state_code: "CA", zip_code: "90012-3456" })).toEqual({ _tag: "Zip", zip5: "90012" })
    expect(economyDestination({ country_code: "us", zip_code: " 10001 " })).toEqual({ _tag: "Zip", zip5: "10001" })
  })

  it("refuses outside the US, military and offshore addresses before any call", () => {
    expect(economyDestination({ country_code: "DE", zip_code: "80331" })).toMatchObject({
      _tag: "Refused",
      why: expect.stringContaining("ships to DE")
    })
    expect(economyDestination({ country_code: "US", state_code: "AE", zip_code: "09021" })).toMatchObject({
      _tag: "Refused",
      why: expect.stringContaining("military")
    })
    expect(economyDestination({ country_code: "US", state_code: "HI", zip_code: "96813" })).toMatchObject({
      _tag: "Refused",
      why: expect.stringContaining("offshore")
    })
  })

  it("plans a US order whose shipping title maps to Economy as METHOD_ECONOMY", () => {
    expect(readyDraft().shipping_method).toBe("METHOD_ECONOMY")
    expect(economyZipFor(economyOrder(), settings())).toBe("90012")
    // Another title: not Economy, nothing to check.
    expect(economyZipFor(economyOrder({}, "Express"), settings())).toBeUndefined()
  })

  it("holds a non-US Economy order with what happened and what to do", () => {
    const plan = planDraft(
      economyOrder({ countryCode: "DE", regionCode: "BY", postalCode: "80331", city: "München", country: "Germany" }),
      table,
      undefined,
      settings()
    )
    expect(plan).toMatchObject({ _tag: "Held", code: "economy_unavailable" })
    expect(plan._tag === "Held" && plan.message).toMatch(
      /maps to Economy \(METHOD_ECONOMY\), but it ships to DE, and Economy ships within the US only: the POD service refuses it\. Map this shipping rate to another method/
    )
    expect(economyZipFor(economyOrder({ countryCode: "DE" }), settings())).toBeUndefined()
  })

  it("holds an Economy order whose US postal code is not a ZIP, naming the field", () => {
    const plan = planDraft(economyOrder({ postalCode: "ABCDE" }), table, undefined, settings())
    expect(plan).toMatchObject({ _tag: "Held", code: "address" })
    expect(plan._tag === "Held" && plan.message).toContain('postal code (zip_code) "ABCDE" is not a US ZIP code')
  })
})

describe("the coverage answer", () => {
  it("reads a left-out `covered` as not covered (protobuf JSON omits false) and matches ZIP+4 on five digits", () => {
    const book = coverageByZip(
      [{ zip_code: "90012", covered: true, reason: "" }, { zip_code: "99501-1234", covered: false, reason: "" }],
      "v7"
    )
    expect(book.get("90012")).toEqual({ _tag: "Covered", version: "v7" })
    expect(book.get("99501")).toEqual({ _tag: "Uncovered", reason: "uncovered_zip", version: "v7" })
  })
})

describe("deciding an Economy draft's shipping", () => {
  it("leaves a covered or non-Economy draft as planned", () => {
    expect(decideEconomyShipping(readyDraft(), { _tag: "Covered", version: "v1" }, "hold", NOW)).toEqual({ _tag: "AsPlanned" })
    const express = planDraft(economyOrder({}, "Express"), table, undefined, settings())
    expect(express._tag === "Ready" && decideEconomyShipping(express.draft, undefined, "hold", NOW)).toEqual({ _tag: "AsPlanned" })
  })

  it("sends an uncovered one as Standard under the default policy, saying why", () => {
    const decision = decideEconomyShipping(readyDraft(), uncovered, "standard", NOW)
    expect(decision._tag).toBe("AsStandard")
    if (decision._tag !== "AsStandard") return
    expect(decision.draft.shipping_method).toBe("METHOD_STANDARD")
    expect(decision.draft.line_items).toEqual(readyDraft().line_items)
    expect(decision.reason).toContain(
      "sent as Standard instead of Economy: the Economy carrier does not deliver to ZIP 90012 (uncovered_zip)"
    )
    expect(decision.data).toEqual({
      from: "METHOD_ECONOMY",
      to: "METHOD_STANDARD",
      reason: "uncovered_zip",
      zip: "90012",
      coverageVersion: "2026.47"
    })
  })

  it("holds an uncovered one under `hold`, in the seller's words, with when coverage is checked again", () => {
    const decision = decideEconomyShipping(readyDraft(), uncovered, "hold", NOW)
    expect(decision._tag).toBe("Hold")
    if (decision._tag !== "Hold") return
    expect(decision.details.zip).toBe("90012")
    expect(decision.recheckAt.getTime()).toBe(NOW + ECONOMY_RECHECK_MS)
    expect(decision.details.message).toMatch(
      /^Economy shipping is not available to ZIP 90012: the POD service's Economy carrier does not deliver there/
    )
    expect(decision.details.message).toContain("change the order's shipping in the store or set economyUncovered: standard")
  })

  it("waits for the coverage under `hold`, and under `standard` leaves an unanswered check to the service", () => {
    expect(decideEconomyShipping(readyDraft(), { _tag: "Unchecked", error: "PodServerError" }, "hold", NOW)).toEqual({
      _tag: "Wait",
      why: "the Economy coverage of ZIP 90012 could not be checked (PodServerError)"
    })
    expect(decideEconomyShipping(readyDraft(), undefined, "hold", NOW)).toMatchObject({ _tag: "Wait" })
    const unchecked = decideEconomyShipping(readyDraft(), { _tag: "Unchecked", error: "PodServerError" }, "standard", NOW)
    expect(unchecked).toMatchObject({
      _tag: "AsPlanned",
      note: expect.stringContaining("sent as Economy; the POD service moves it to Standard itself")
    })
    expect(draftedShipping(unchecked, undefined).reason).toMatch(/^draft created; the Economy coverage of ZIP 90012 could not be checked/)
  })

  it("tells the draft's story: podsync's choice, and a substitution the service made itself", () => {
    const asStandard = decideEconomyShipping(readyDraft(), uncovered, "standard", NOW)
    expect(draftedShipping(asStandard, undefined).reason).toMatch(/^draft created sent as Standard instead of Economy/)
    const byService = draftedShipping({ _tag: "AsPlanned" }, { from: "METHOD_ECONOMY", to: "METHOD_STANDARD", reason: "uncovered_zip" })
    expect(byService.reason).toBe(
      "draft created; the POD service changed its shipping from Economy to Standard (uncovered_zip), and charges it as Standard"
    )
    expect(byService.substitution).toEqual({ from: "METHOD_ECONOMY", to: "METHOD_STANDARD", reason: "uncovered_zip", by: "pod" })
    expect(draftedShipping({ _tag: "AsPlanned" }, undefined)).toEqual({ reason: "draft created" })
  })
})

describe("an order held for an uncovered ZIP", () => {
  const held = decideEconomyShipping(readyDraft(), uncovered, "hold", NOW)
  const details = held._tag === "Hold" ? held.details : undefined

  it("stays held, looked at again within a minute, until its coverage is due a new check", () => {
    expect(economyHoldStands(details, readyDraft(), "hold", NOW + 1000)).toEqual({
      lookAgainAt: new Date(NOW + 1000 + ECONOMY_HOLD_LOOK_MS)
    })
    expect(economyHoldStands(details, readyDraft(), "hold", NOW + ECONOMY_RECHECK_MS)).toEqual({
      release: "released to check the Economy coverage of ZIP 90012 again"
    })
  })

  it("is released when the order changes, or the policy is now standard", () => {
    expect(economyHoldStands(details, readyDraft(economyOrder({ postalCode: "10001" })), "hold", NOW)).toHaveProperty("release")
    const express = planDraft(economyOrder({}, "Express"), table, undefined, settings())
    expect(express._tag === "Ready" && economyHoldStands(details, express.draft, "hold", NOW)).toHaveProperty("release")
    expect(economyHoldStands(details, readyDraft(), "standard", NOW)).toEqual({
      release: expect.stringContaining('economyUncovered is now "standard"')
    })
    expect(economyHoldStands({ something: "else" }, readyDraft(), "hold", NOW)).toHaveProperty("release")
  })
})

describe("the configuration", () => {
  const decode = Schema.decodeUnknownEither(AppConfig)
  const config = (shipping: unknown) => ({
    pod: { baseUrl: "https://pod.example.com", clientKey: "k", clientSecret: "s" },
    stores: [{
      key: "acme",
      platform: "shopify",
      podStoreId: "1",
      mappings: "m.csv",
      shopify: { shop: "acme.myshopify.com", accessToken: "t", webhookSecret: "w" },
      shipping
    }]
  })

  it("maps a shipping title to METHOD_ECONOMY, and sends uncovered Economy orders as Standard unless told to hold", () => {
    const decoded = decode(config({ byTitle: { Economy: "METHOD_ECONOMY" } }))
    expect(Either.isRight(decoded) && decoded.right.stores[0]!.shipping).toEqual({
      default: "METHOD_STANDARD",
      byTitle: { Economy: "METHOD_ECONOMY" },
      economyUncovered: "standard"
    })
    const hold = decode(config({ economyUncovered: "hold" }))
    expect(Either.isRight(hold) && hold.right.stores[0]!.shipping.economyUncovered).toBe("hold")
    expect(Either.isLeft(decode(config({ economyUncovered: "wait" })))).toBe(true)
  })
})
