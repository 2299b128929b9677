import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startWooCommerceSimulator, type RunningWooCommerceSimulator } from "../../src/simulator/woocommerce/index.js"
import { simAdmin } from "../support/simAdmin.js"

// The WooCommerce simulator as sites and the Shipment Tracking extension really are (store-apis.md §0):
// a host that strips the Authorization header, a home URL that is not the REST address, the extension's
// provider list per order.

let sim: RunningWooCommerceSimulator

const basic = () => `Basic ${Buffer.from(`${sim.consumerKey}:${sim.consumerSecret}`).toString("base64")}`

const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { Authorization: basic() }) => {
  const response = await fetch(`${sim.url}/wp-json${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, json: (text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : undefined) as any }
}

const admin = (method: string, path: string, body?: unknown) => simAdmin(sim.url, method, path, body)

beforeAll(async () => {
  sim = await startWooCommerceSimulator({ seed: 7, now: () => Date.UTC(2026, 2, 2, 15, 0, 0) })
})
afterAll(() => sim.close())
beforeEach(async () => {
  await admin("POST", "reset")
})

describe("WooCommerce simulator: the host in front of WordPress", () => {
  it('behind a host that strips the Authorization header, answers Basic credentials 401 "Consumer key is missing"', async () => {
    const order = await admin("POST", "orders", {})
    await admin("POST", "host", { stripsAuthorization: true })
    const stripped = await api("GET", `/wc/v3/orders/${order.id}`)
    expect([stripped.status, stripped.json]).toEqual([
      401,
      { code: "woocommerce_rest_authentication_error", message: "Consumer key is missing.", data: { status: 401 } }
    ])
    const query = `consumer_key=${sim.consumerKey}&consumer_secret=${sim.consumerSecret}`
    expect((await api("GET", `/wc/v3/orders/${order.id}?${query}`, undefined, {})).status).toBe(200)
    await admin("POST", "host", { stripsAuthorization: false })
    expect((await api("GET", `/wc/v3/orders/${order.id}`)).status).toBe(200)
  })

  it("names the site's home, which may differ from its REST address, in the index and webhooks", async () => {
    expect((await api("GET", "/")).json.home).toBe(sim.url)
    await admin("POST", "host", { homeUrl: "https://www.acme-prints.example/shop/" })
    expect((await api("GET", "/")).json).toMatchObject({ url: sim.url, home: "https://www.acme-prints.example/shop" })
    await admin("POST", "host", { homeUrl: null })
  })
})

describe("WooCommerce simulator: the Shipment Tracking extension's provider list", () => {
  it("lists its providers per order, as the extension registers the route; there is no route without an order", async () => {
    const order = await admin("POST", "orders", {})
    // Registered without a permission check: no credentials needed.
    const providers = await fetch(`${sim.url}/wp-json/wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings/providers`)
    expect(providers.status).toBe(200)
    expect(((await providers.json()) as any)["United States"].UPS).toContain("%1$s")
    const wrong = await api("GET", "/wc-shipment-tracking/v3/shipment-trackings/providers")
    expect([wrong.status, wrong.json.code]).toEqual([404, "rest_no_route"])
  })

  it("shows a provider name no predefined provider has neither by name nor with a link", async () => {
    const order = await admin("POST", "orders", {})
    const created = await api("POST", `/wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings`, {
      tracking_provider: "Pony Express",
      tracking_number: "PX1"
    })
    expect(created.json).toMatchObject({ tracking_provider: "", tracking_link: "", tracking_number: "PX1" })
  })
})
