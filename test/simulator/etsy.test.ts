import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { runEtsySimulatorStandalone, startEtsySimulator, type RunningEtsySimulator } from "../../src/simulator/etsy/index.js"
import { accessToken, adminCall, api, grant, json } from "../stores/etsy/rawApi.js"
import { listensStandalone } from "../support/standalone.js"

// Etsy Open API v3 surface: credentials, getShopReceipts paging and filters, receipts, createReceiptShipment.

let sim: RunningEtsySimulator
let token: string
/** Set, the simulator's wall clock stands still there (a test that adds seconds must not see a second tick by itself). */
let frozenAt: number | undefined
const receipts = () => `/shops/${sim.shopId}/receipts`

beforeAll(async () => {
  sim = await startEtsySimulator({ seed: 3, now: () => frozenAt ?? Date.now() })
})
afterAll(() => sim.close())
beforeEach(async () => {
  frozenAt = undefined
  await adminCall(sim, "POST", "reset")
  token = await accessToken(sim)
})

describe("Etsy simulator: standalone", () => {
  it("prints where it listens, for podsync simulate", async () => {
    await listensStandalone("etsy", runEtsySimulatorStandalone)
  })
})

describe("Etsy simulator: credentials", () => {
  it("wants keystring:shared_secret in x-api-key and a live bearer with the right scope", async () => {
    const noKey = await fetch(`${sim.url}/v3/application${receipts()}`, { headers: { authorization: `Bearer ${token}` } })
    expect(noKey.status).toBe(403)
    const bare = await api(sim, token, receipts(), { headers: { "x-api-key": sim.keystring } })
    expect([bare.status, (await json(bare)).error]).toEqual([403, expect.stringContaining("Shared secret is required")])
    const wrong = await api(sim, token, receipts(), { headers: { "x-api-key": `${sim.keystring}:nope` } })
    expect(wrong.status).toBe(403)
    const noBearer = await fetch(`${sim.url}/v3/application${receipts()}`, {
      headers: { "x-api-key": `${sim.keystring}:${sim.sharedSecret}` }
    })
    expect(noBearer.status).toBe(401)
    expect((await api(sim, `${sim.userId}.made-up`, receipts())).status).toBe(401)
    expect((await api(sim, token, receipts())).status).toBe(200)
    await adminCall(sim, "POST", "tokens/expire")
    const expired = await api(sim, token, receipts())
    expect([expired.status, (await json(expired)).error_description]).toEqual([401, "The access token is not valid"])
    const stats = await adminCall(sim, "GET", "stats")
    expect([stats.forbidden, stats.unauthorized]).toEqual([3, 3])
  })

  it("grants tokens from the refresh token, form or JSON, prefixed with the user id, and refuses bad grants", async () => {
    // The refresh token at start again (beforeEach has used it for its access token).
    await adminCall(sim, "POST", "reset")
    let presented = sim.refreshToken
    for (const encoding of ["form", "json"] as const) {
      const response = await grant(sim, presented, encoding)
      const body = await json(response)
      expect(body).toEqual({
        access_token: expect.stringMatching(new RegExp(`^${sim.userId}\\.`)),
        token_type: "Bearer",
        expires_in: 3600,
        // Etsy answers every refresh with a new refresh token.
        refresh_token: expect.stringMatching(new RegExp(`^${sim.userId}\\.`))
      })
      expect(body.refresh_token).not.toBe(presented)
      presented = body.refresh_token
    }
    const invalid = await grant(sim, "873421905.unknown")
    expect([invalid.status, (await json(invalid)).error]).toEqual([400, "invalid_grant"])
    const badClient = await fetch(`${sim.url}/v3/public/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", client_id: "someone-else", refresh_token: sim.refreshToken }).toString()
    })
    expect(badClient.status).toBe(401)
  })

  it("rotates refresh tokens by default, as Etsy does: each works once", async () => {
    const rotating = await startEtsySimulator({ accessTokenTtlSeconds: 60 })
    try {
      const first = await json(await grant(rotating))
      expect(first.refresh_token).not.toBe(rotating.refreshToken)
      expect(first.expires_in).toBe(60)
      expect((await grant(rotating)).status).toBe(400)
      expect((await grant(rotating, first.refresh_token)).status).toBe(200)
    } finally {
      await rotating.close()
    }
    const kept = await startEtsySimulator({ rotateRefreshTokens: false })
    try {
      expect((await json(await grant(kept))).refresh_token).toBe(kept.refreshToken)
      expect((await grant(kept)).status).toBe(200)
    } finally {
      await kept.close()
    }
  })

  it("refuses a shop the token's user does not own, and writes without transactions_w", async () => {
    expect((await api(sim, token, "/shops/11111111/receipts")).status).toBe(403)
    const readOnly = await startEtsySimulator({ scopes: ["transactions_r"] })
    try {
      const created = await adminCall(readOnly, "POST", "receipts", {})
      const readToken = await accessToken(readOnly)
      expect((await api(readOnly, readToken, `/shops/${readOnly.shopId}/receipts/${created.receipt_id}`)).status).toBe(200)
      const write = await api(readOnly, readToken, `/shops/${readOnly.shopId}/receipts/${created.receipt_id}/tracking`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ tracking_code: "1Z", carrier_name: "ups" })
      })
      expect([write.status, (await json(write)).error]).toEqual([403, expect.stringContaining("transactions_w")])
    } finally {
      await readOnly.close()
    }
  })
})

describe("Etsy simulator: getShopReceipts", () => {
  it("validates its parameters as Etsy does", async () => {
    for (
      const [query, message] of [
        ["limit=101", "limit must be between 1 and 100"],
        ["limit=0", "limit must be between 1 and 100"],
        ["min_last_modified=12345", "min_last_modified must be greater than or equal to 946684800"],
        ["sort_on=price", "sort_on must be one of created, updated, receipt_id"],
        ["sort_order=sideways", "sort_order must be one of asc, ascending, desc, descending, up, down"],
        ["was_paid=maybe", "was_paid must be a boolean"],
        ["offset=-1", "offset must be an integer"]
      ] as const
    ) {
      const response = await api(sim, token, `${receipts()}?${query}`)
      expect([response.status, await json(response)]).toEqual([400, { error: message }])
    }
  })

  it("pages by offset in the asked order (25 by default, newest created first) with the total count", async () => {
    const { ids } = await adminCall(sim, "POST", "receipts/bulk", { count: 30 })
    const firstPage = await json(await api(sim, token, receipts()))
    expect(firstPage.count).toBe(30)
    expect(firstPage.results.map((r: any) => r.receipt_id)).toEqual([...ids].reverse().slice(0, 25))
    const asc = await json(await api(sim, token, `${receipts()}?sort_on=receipt_id&sort_order=up&limit=10&offset=25`))
    expect(asc.results.map((r: any) => r.receipt_id)).toEqual(ids.slice(25))
  })

  it("filters by last modified and status, sorting by update with ties by receipt_id", async () => {
    frozenAt = Date.now()
    const [a, b, c] = [
      await adminCall(sim, "POST", "receipts", {}),
      await adminCall(sim, "POST", "receipts", {}),
      await adminCall(sim, "POST", "receipts", { status: "open" })
    ]
    await adminCall(sim, "POST", "clock/advance", { seconds: 10 })
    const edited = await adminCall(sim, "PATCH", `receipts/${a.receipt_id}`, { message_from_buyer: "changed" })
    expect(edited.updated_timestamp).toBe(a.updated_timestamp + 10)
    const byUpdate = await json(await api(sim, token, `${receipts()}?sort_on=updated&sort_order=asc`))
    expect(byUpdate.results.map((r: any) => r.receipt_id)).toEqual([b.receipt_id, c.receipt_id, a.receipt_id])
    const recent = await json(await api(sim, token, `${receipts()}?min_last_modified=${edited.updated_timestamp}`))
    expect(recent.results.map((r: any) => r.receipt_id)).toEqual([a.receipt_id])
    const unpaid = await json(await api(sim, token, `${receipts()}?was_paid=false`))
    expect(unpaid.results.map((r: any) => r.receipt_id)).toEqual([c.receipt_id])
    await adminCall(sim, "POST", `receipts/${b.receipt_id}/cancel`, {})
    await adminCall(sim, "POST", `receipts/${a.receipt_id}/ship`, { tracking_code: "1Z", carrier_name: "ups" })
    const workQueue = await json(await api(sim, token, `${receipts()}?was_paid=true&was_shipped=false`))
    expect(workQueue.results.map((r: any) => [r.receipt_id, r.status])).toEqual([[b.receipt_id, "canceled"]])
    const notCanceled = await json(await api(sim, token, `${receipts()}?was_paid=true&was_shipped=false&was_canceled=false`))
    expect(notCanceled.count).toBe(0)
  })

  it("answers with Etsy's field names, HTML-encoded text, money as amount/divisor, and null buyer_email", async () => {
    const created = await adminCall(sim, "POST", "receipts", {
      name: "Siobhán O'Connell",
      first_line: "13 O'Connell Street",
      second_line: null,
      city: "London",
      state: null,
      zip: "SW1A 1AA",
      country_iso: "GB",
      currency: "GBP",
      transactions: [{
        title: "Men's Tee",
        sku: "TEE-BLK-M",
        quantity: 2,
        price_cents: 2400,
        shipping_cents: 450,
        personalization: "https://d.example.com/x.png?a=1&b=2"
      }]
    })
    const receipt = await json(await api(sim, token, `${receipts()}/${created.receipt_id}`))
    expect(receipt).toMatchObject({
      receipt_id: created.receipt_id,
      name: "Siobhán O&#39;Connell",
      first_line: "13 O&#39;Connell Street",
      second_line: null,
      country_iso: "GB",
      status: "paid",
      is_paid: true,
      is_shipped: false,
      buyer_email: null,
      created_timestamp: receipt.create_timestamp,
      updated_timestamp: receipt.update_timestamp,
      grandtotal: { amount: 5250, divisor: 100, currency_code: "GBP" },
      subtotal: { amount: 4800, divisor: 100, currency_code: "GBP" },
      total_shipping_cost: { amount: 450, divisor: 100, currency_code: "GBP" },
      shipments: [],
      refunds: []
    })
    const [transaction] = receipt.transactions
    expect(transaction).toMatchObject({
      title: "Men&#39;s Tee",
      sku: "TEE-BLK-M",
      quantity: 2,
      price: { amount: 2400, divisor: 100, currency_code: "GBP" }
    })
    expect(transaction.variations.at(-1)).toEqual({
      property_id: 54,
      value_id: null,
      formatted_name: "Personalization",
      formatted_value: "https://d.example.com/x.png?a=1&amp;b=2",
      question_id: 8731
    })
    const withheld = await adminCall(sim, "POST", "receipts", { address_withheld: true })
    const hidden = await json(await api(sim, token, `${receipts()}/${withheld.receipt_id}`))
    expect(typeof hidden.name).toBe("string")
    expect(hidden.name).not.toBe("")
    expect([hidden.first_line, hidden.city, hidden.zip, hidden.country_iso, hidden.formatted_address]).toEqual([
      null,
      null,
      null,
      null,
      null
    ])
    const missing = await api(sim, token, `${receipts()}/999`)
    expect([missing.status, (await json(missing)).error]).toEqual([
      404,
      `Could not find a Shop Receipt with receipt_id = 999 associated with shop_id = ${sim.shopId}.`
    ])
  })

  it("edits receipts after each answered list when churning (mutate during walk)", async () => {
    await adminCall(sim, "POST", "receipts/bulk", { count: 5 })
    await adminCall(sim, "POST", "churn", { perListQuery: 2 })
    await api(sim, token, receipts())
    const after = await adminCall(sim, "GET", "receipts")
    expect(after.receipts.filter((r: any) => r.message_from_buyer.startsWith("Changed while being paged")).length).toBe(2)
  })
})

describe("Etsy simulator: createReceiptShipment", () => {
  const ship = (id: number, body: Record<string, string>, encoding: "json" | "form" = "json") =>
    api(sim, token, `${receipts()}/${id}/tracking`, {
      method: "POST",
      headers: { "content-type": encoding === "json" ? "application/json" : "application/x-www-form-urlencoded" },
      body: encoding === "json" ? JSON.stringify(body) : new URLSearchParams(body).toString()
    })

  it("adds a shipment on every call, form or JSON, and emails the buyer every time", async () => {
    const created = await adminCall(sim, "POST", "receipts", {})
    const first = await ship(created.receipt_id, { tracking_code: "9400111", carrier_name: "USPS", send_bcc: "false" }, "form")
    const body = await json(first)
    expect(first.status).toBe(200)
    expect(body).toMatchObject({ is_shipped: true, status: "completed", shipments: [{ carrier_name: "USPS", tracking_code: "9400111" }] })
    expect(body.transactions.every((t: any) => typeof t.shipped_timestamp === "number")).toBe(true)
    await ship(created.receipt_id, { tracking_code: "9400111", carrier_name: "usps" })
    const stats = await adminCall(sim, "GET", "stats")
    expect(stats.shipmentsByReceipt).toEqual({ [created.receipt_id]: 2 })
    expect(stats.buyerEmailsByReceipt).toEqual({ [created.receipt_id]: 2 })
  })

  it("refuses what Etsy refuses: canceled (409), unpaid (409), half tracking, unknown carrier, missing US tracking", async () => {
    const canceled = await adminCall(sim, "POST", "receipts", {})
    await adminCall(sim, "POST", `receipts/${canceled.receipt_id}/cancel`, {})
    expect((await ship(canceled.receipt_id, { tracking_code: "1", carrier_name: "ups" })).status).toBe(409)
    const unpaid = await adminCall(sim, "POST", "receipts", { status: "payment processing" })
    expect((await ship(unpaid.receipt_id, { tracking_code: "1", carrier_name: "ups" })).status).toBe(409)
    const open = await adminCall(sim, "POST", "receipts", { country_iso: "US" })
    expect((await ship(open.receipt_id, { tracking_code: "1" })).status).toBe(400)
    const carrier = await ship(open.receipt_id, { tracking_code: "1", carrier_name: "Acme Couriers" })
    expect([carrier.status, (await json(carrier)).error]).toEqual([400, expect.stringContaining("carrier_name=other")])
    expect((await ship(open.receipt_id, {})).status).toBe(400)
    expect((await ship(open.receipt_id, { tracking_code: "1", carrier_name: "other" })).status).toBe(200)
    const abroad = await adminCall(sim, "POST", "receipts", { country_iso: "DE" })
    const marked = await ship(abroad.receipt_id, {})
    expect([marked.status, (await json(marked)).shipments]).toEqual([200, []])
    expect((await adminCall(sim, "GET", "stats")).buyerEmailsByReceipt).toEqual({ [open.receipt_id]: 1, [abroad.receipt_id]: 1 })
  })

  it("accepts only the body encodings switched on", async () => {
    const created = await adminCall(sim, "POST", "receipts", {})
    await adminCall(sim, "POST", "settings", { acceptForm: false })
    expect((await ship(created.receipt_id, { tracking_code: "1", carrier_name: "ups" }, "form")).status).toBe(415)
    expect((await ship(created.receipt_id, { tracking_code: "1", carrier_name: "ups" }, "json")).status).toBe(200)
  })

  it("commits then drops the connection on commitThenDrop, and acts on nothing on error5xx or reset", async () => {
    const created = await adminCall(sim, "POST", "receipts", {})
    await adminCall(sim, "POST", "faults", { operation: "createReceiptShipment", kind: "error5xx", count: 1 })
    expect((await ship(created.receipt_id, { tracking_code: "A", carrier_name: "ups" })).status).toBe(503)
    await adminCall(sim, "POST", "faults", { operation: "createReceiptShipment", kind: "reset", count: 1 })
    await expect(ship(created.receipt_id, { tracking_code: "B", carrier_name: "ups" })).rejects.toThrow()
    expect((await adminCall(sim, "GET", `receipts/${created.receipt_id}`)).shipments).toEqual([])
    await adminCall(sim, "POST", "faults", { operation: "createReceiptShipment", kind: "commitThenDrop", count: 1 })
    await expect(ship(created.receipt_id, { tracking_code: "C", carrier_name: "ups" })).rejects.toThrow()
    expect((await adminCall(sim, "GET", `receipts/${created.receipt_id}`)).shipments.map((s: any) => s.tracking_code)).toEqual(["C"])
    expect((await adminCall(sim, "GET", "stats")).faultsInjected).toEqual({ error5xx: 1, reset: 1, commitThenDrop: 1 })
  })

  it("updateShopReceipt marks shipped without a shipment or an email", async () => {
    const created = await adminCall(sim, "POST", "receipts", {})
    const response = await api(sim, token, `${receipts()}/${created.receipt_id}`, {
      method: "PUT",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "was_shipped=true"
    })
    expect(await json(response)).toMatchObject({ is_shipped: true, shipments: [] })
    expect((await adminCall(sim, "GET", "stats")).buyerEmailsByReceipt).toEqual({})
  })
})
