import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type RunningEtsySimulator, startEtsySimulator } from "../../src/simulator/etsy/index.js"
import { adminCall, api, apiKey, grant, json } from "../stores/etsy/rawApi.js"

// Etsy's public calls (getShop, getShippingCarriers), the carriers createReceiptShipment takes and
// the link the buyer's email gets, a 403 on one receipt's shipment, and several shops of one app with
// their own token limits (store-apis.md §0).

const OTHER = { shopId: 51820476, userId: 902144311, shopCountry: "GB" }

let sim: RunningEtsySimulator
let tokens: Record<number, string>

const tokenOf = async (refreshToken: string) => ((await json(await grant(sim, refreshToken))) as { access_token: string }).access_token
const publicCall = (path: string) => fetch(`${sim.url}/v3/application${path}`, { headers: { "x-api-key": apiKey(sim) } })

beforeAll(async () => {
  sim = await startEtsySimulator({ seed: 5, otherShops: [OTHER], quota: { perSecond: 100, perDay: 20 } })
})
afterAll(() => sim.close())
beforeEach(async () => {
  await adminCall(sim, "POST", "reset")
  tokens = Object.fromEntries(await Promise.all(sim.shops.map(async (s) => [s.shopId, await tokenOf(s.refreshToken)] as const)))
})

describe("Etsy simulator: public calls", () => {
  it("lists the carriers Etsy knows per origin country, with the app's key only", async () => {
    const us = await publicCall("/shipping-carriers?origin_country_iso=US")
    expect(us.status).toBe(200)
    const body = await json(us)
    expect(body.results.map((c: { name: string }) => c.name)).toEqual(["USPS", "UPS", "FedEx", "DHL Express", "DHL eCommerce"])
    expect(body.count).toBe(5)
    expect(body.results[0]).toEqual({
      shipping_carrier_id: 1,
      name: "USPS",
      domestic_classes: expect.arrayContaining([{ mail_class_key: "priority_mail", name: "Priority Mail" }]),
      international_classes: expect.any(Array)
    })
    expect((await json(await publicCall("/shipping-carriers?origin_country_iso=GB"))).results[0].name).toBe("Royal Mail")
    expect((await publicCall("/shipping-carriers")).status).toBe(400)
    // The key is still required.
    expect((await fetch(`${sim.url}/v3/application/shipping-carriers?origin_country_iso=US`)).status).toBe(403)
  })

  it("answers getShop with where each shop ships from", async () => {
    expect(await json(await publicCall(`/shops/${sim.shopId}`))).toMatchObject({
      shop_id: sim.shopId,
      user_id: sim.userId,
      shipping_from_country_iso: "US"
    })
    expect(await json(await publicCall(`/shops/${OTHER.shopId}`))).toMatchObject({ shop_id: OTHER.shopId, shipping_from_country_iso: "GB" })
    expect((await publicCall("/shops/123")).status).toBe(404)
  })
})

describe("Etsy simulator: shipments", () => {
  const ship = (receiptId: number, body: Record<string, unknown>) =>
    api(sim, tokens[sim.shopId]!, `/shops/${sim.shopId}/receipts/${receiptId}/tracking`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })

  it("takes a listed carrier in any case (and the old slugs), links it in the buyer's email; refuses others but 'other'", async () => {
    const receipt = await adminCall(sim, "POST", "receipts", {})
    expect((await ship(receipt.receipt_id, { tracking_code: "1Z999AA10123456784", carrier_name: "ups" })).status).toBe(200)
    expect((await ship(receipt.receipt_id, { tracking_code: "GM2951173225174494", carrier_name: "dhl-ecommerce" })).status).toBe(200)
    expect((await ship(receipt.receipt_id, { tracking_code: "X1", carrier_name: "Pony Express" })).status).toBe(400)
    expect((await ship(receipt.receipt_id, { tracking_code: "PX1", carrier_name: "other", note_to_buyer: "Pony Express PX1" })).status)
      .toBe(200)
    const stored = await adminCall(sim, "GET", `receipts/${receipt.receipt_id}`)
    expect(stored.buyer_emails).toEqual([
      expect.objectContaining({ carrier_name: "ups", tracking_link: "https://www.ups.com/track?tracknum=1Z999AA10123456784" }),
      expect.objectContaining({ carrier_name: "dhl-ecommerce", tracking_link: expect.stringContaining("GM2951173225174494") }),
      expect.objectContaining({ carrier_name: "other", tracking_link: null, note_to_buyer: "Pony Express PX1" })
    ])
  })

  it("refuses one receipt's shipments 403 when told, and nothing else", async () => {
    const refused = await adminCall(sim, "POST", "receipts", {})
    const other = await adminCall(sim, "POST", "receipts", {})
    await adminCall(sim, "POST", `receipts/${refused.receipt_id}/refuse-shipments`, { error: "Not allowed for this receipt" })
    const answer = await ship(refused.receipt_id, { tracking_code: "9400100000000000000001", carrier_name: "USPS" })
    expect([answer.status, await json(answer)]).toEqual([403, { error: "Not allowed for this receipt" }])
    expect((await ship(other.receipt_id, { tracking_code: "9400100000000000000002", carrier_name: "USPS" })).status).toBe(200)
    expect((await api(sim, tokens[sim.shopId]!, `/shops/${sim.shopId}/receipts/${refused.receipt_id}`)).status).toBe(200)
    await adminCall(sim, "POST", `receipts/${refused.receipt_id}/refuse-shipments`, { error: null })
    expect((await ship(refused.receipt_id, { tracking_code: "9400100000000000000001", carrier_name: "USPS" })).status).toBe(200)
  })
})

describe("Etsy simulator: several shops of one app", () => {
  it("gives each seller their shop only, and counts each seller's token apart (and the app's public calls apart)", async () => {
    const mine = await adminCall(sim, "POST", "receipts", {})
    const theirs = await adminCall(sim, "POST", `shops/${OTHER.shopId}/receipts`, {})
    expect(theirs.receipt_id).not.toBe(mine.receipt_id)
    expect(tokens[OTHER.shopId]).toMatch(new RegExp(`^${OTHER.userId}\\.`))
    const read = (shopId: number, token: string, receiptId: number) => api(sim, token, `/shops/${shopId}/receipts/${receiptId}`)
    expect((await read(OTHER.shopId, tokens[OTHER.shopId]!, theirs.receipt_id)).status).toBe(200)
    // Another seller's token does not open this shop (and counts against that seller's token).
    expect((await read(OTHER.shopId, tokens[sim.shopId]!, theirs.receipt_id)).status).toBe(403)

    // The first seller spends their day (20 requests): the second still has theirs, and so have the app's public calls.
    let refused = 0
    for (let i = 0; i < 25; i++) if ((await read(sim.shopId, tokens[sim.shopId]!, mine.receipt_id)).status === 429) refused++
    expect(refused).toBe(25 - (20 - 1))
    const second = await read(OTHER.shopId, tokens[OTHER.shopId]!, theirs.receipt_id)
    expect([second.status, second.headers.get("x-remaining-today")]).toEqual([200, "18"])
    expect((await publicCall("/shipping-carriers?origin_country_iso=US")).status).toBe(200)
    const [first, other] = [await adminCall(sim, "GET", "stats"), await adminCall(sim, "GET", `shops/${OTHER.shopId}/stats`)]
    expect([first.throttled, other.throttled]).toEqual([6, 0])
    expect([first.quota.usedToday, other.quota.usedToday, first.appQuota.usedToday]).toEqual([20, 2, 1])
  })
})
