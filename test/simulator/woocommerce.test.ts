import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  runWooCommerceSimulatorStandalone,
  startWooCommerceSimulator,
  type RunningWooCommerceSimulator
} from "../../src/simulator/woocommerce/index.js"
import { simTeeLine } from "../stores/woocommerce/fixtures.js"
import { simAdmin } from "../support/simAdmin.js"
import { listensStandalone } from "../support/standalone.js"

// REST v3 fidelity of the WooCommerce simulator: auth, listing and its date bounds, updates, notes,
// refunds, the Shipment Tracking extension on and off, host faults.

let sim: RunningWooCommerceSimulator
/** The simulator's clock: fixed, moved by the tests. */
let simTime = Date.UTC(2026, 2, 2, 15, 0, 0)

const basic = () => `Basic ${Buffer.from(`${sim.consumerKey}:${sim.consumerSecret}`).toString("base64")}`

const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { Authorization: basic() }) => {
  const response = await fetch(`${sim.url}/wp-json${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: (text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : undefined) as any
  }
}

const admin = (method: string, path: string, body?: unknown) => simAdmin(sim.url, method, path, body)

const advance = (seconds: number) => {
  simTime += seconds * 1000
}

beforeAll(async () => {
  sim = await startWooCommerceSimulator({ seed: 7, now: () => simTime, gmtOffsetHours: -5 })
})
afterAll(() => sim.close())
beforeEach(async () => {
  simTime = Date.UTC(2026, 2, 2, 15, 0, 0)
  await admin("POST", "reset")
})

describe("WooCommerce simulator: standalone", () => {
  it("prints the line `podsync simulate` shows", async () => {
    await listensStandalone("woocommerce", runWooCommerceSimulatorStandalone)
  })
})

describe("WooCommerce simulator: auth", () => {
  it("accepts the key as HTTP Basic or in the query string, and refuses the rest with WooCommerce's codes", async () => {
    const order = await admin("POST", "orders", {})
    expect((await api("GET", `/wc/v3/orders/${order.id}`)).status).toBe(200)
    const query = `consumer_key=${sim.consumerKey}&consumer_secret=${sim.consumerSecret}`
    expect((await api("GET", `/wc/v3/orders/${order.id}?${query}`, undefined, {})).status).toBe(200)
    const anonymous = await api("GET", "/wc/v3/orders", undefined, {})
    expect(anonymous.status).toBe(401)
    expect(anonymous.json).toEqual({
      code: "woocommerce_rest_cannot_view",
      message: "Sorry, you cannot list resources.",
      data: { status: 401 }
    })
    const wrongKey = await api("GET", "/wc/v3/orders", undefined, {
      Authorization: `Basic ${Buffer.from("ck_wrong:cs_wrong").toString("base64")}`
    })
    expect(wrongKey.json).toMatchObject({ code: "woocommerce_rest_authentication_error", message: "Consumer key is invalid." })
    const wrongSecret = await api("GET", "/wc/v3/orders", undefined, {
      Authorization: `Basic ${Buffer.from(`${sim.consumerKey}:cs_wrong`).toString("base64")}`
    })
    expect(wrongSecret.json).toMatchObject({ code: "woocommerce_rest_authentication_error", message: "Consumer secret is invalid." })
  })

  it("answers an unknown route 404 rest_no_route, also through ?rest_route=", async () => {
    expect((await api("GET", "/wc/v3/nothing")).json).toMatchObject({ code: "rest_no_route", data: { status: 404 } })
    const order = await admin("POST", "orders", {})
    const plain = await fetch(`${sim.url}/?rest_route=/wc/v3/orders/${order.id}`, { headers: { Authorization: basic() } })
    expect(plain.status).toBe(200)
    expect(((await plain.json()) as { id: number }).id).toBe(order.id)
  })
})

describe("WooCommerce simulator: orders", () => {
  it("writes orders with REST v3 field names: GMT and local dates without a designator, money as strings", async () => {
    const created = await admin("POST", "orders", {
      currency: "EUR",
      lineItems: [{
        ...simTeeLine,
        meta: [{ key: "pa_size", value: "m" }, { key: "design_front", value: "https://cdn.example.com/f.png" }]
      }],
      shippingLine: { methodTitle: "Express", methodId: "flat_rate", total: "14.90" }
    })
    const { json: order } = await api("GET", `/wc/v3/orders/${created.id}`)
    expect(order).toMatchObject({
      id: created.id,
      number: String(created.id),
      status: "processing",
      currency: "EUR",
      date_created_gmt: "2026-03-02T15:00:00",
      date_created: "2026-03-02T10:00:00",
      date_paid_gmt: "2026-03-02T15:00:00",
      date_completed_gmt: null,
      total: "62.90",
      shipping_total: "14.90",
      shipping_lines: [{ method_title: "Express", method_id: "flat_rate", total: "14.90" }],
      refunds: []
    })
    expect(order.line_items[0]).toMatchObject({
      name: "Classic Tee - Black, M",
      parent_name: "Classic Tee",
      product_id: 311,
      variation_id: 318,
      quantity: 2,
      subtotal: "48.00",
      total: "48.00",
      price: 24,
      sku: "TEE-BLA-M",
      meta_data: [
        { key: "pa_size", value: "m", display_key: "Size", display_value: "M" },
        { key: "design_front", value: "https://cdn.example.com/f.png", display_key: "design_front" },
        // WooCommerce's own internal meta, shown with the rest (store-apis.md §0): stock was reduced at payment.
        { key: "_reduced_stock", value: "2" }
      ]
    })
    expect(Object.keys(order.billing).sort()).toEqual([
      "address_1",
      "address_2",
      "city",
      "company",
      "country",
      "email",
      "first_name",
      "last_name",
      "phone",
      "postcode",
      "state"
    ])
    expect(order.shipping.email).toBeUndefined()
  })

  it("pages with X-WP-Total, X-WP-TotalPages and Link, refuses per_page over 100, and answers [] past the end", async () => {
    await admin("POST", "orders/bulk", { count: 25, spacingSeconds: 1 })
    const first = await api("GET", "/wc/v3/orders?per_page=10&orderby=modified&order=asc")
    expect(first.json).toHaveLength(10)
    expect(first.headers.get("x-wp-total")).toBe("25")
    expect(first.headers.get("x-wp-totalpages")).toBe("3")
    expect(first.headers.get("link")).toContain('page=2>; rel="next"')
    const modified = first.json.map((o: any) => o.date_modified_gmt)
    expect([...modified].sort()).toEqual(modified)
    const past = await api("GET", "/wc/v3/orders?per_page=10&page=9")
    expect(past.json).toEqual([])
    expect(past.headers.get("x-wp-total")).toBe("25")
    const tooMany = await api("GET", "/wc/v3/orders?per_page=101")
    expect(tooMany.status).toBe(400)
    expect(tooMany.json).toMatchObject({
      code: "rest_invalid_param",
      message: "Invalid parameter(s): per_page",
      data: { status: 400, params: { per_page: "per_page must be between 1 (inclusive) and 100 (inclusive)" } }
    })
    expect((await api("GET", "/wc/v3/orders?modified_after=yesterday")).json.data.params).toEqual({ modified_after: "Invalid date." })
  })

  it("breaks ties of the modified date by ID and honours offset", async () => {
    const { ids } = await admin("POST", "orders/bulk", { count: 6 })
    const all = await api("GET", "/wc/v3/orders?orderby=modified&order=asc&per_page=100")
    expect(all.json.map((o: any) => o.id)).toEqual(ids)
    const offset = await api("GET", "/wc/v3/orders?orderby=modified&order=asc&per_page=2&offset=3")
    expect(offset.json.map((o: any) => o.id)).toEqual(ids.slice(3, 5))
  })

  it("takes modified_after as exclusive, and shifts a bound with a Z by the site offset when dates_are_gmt is set", async () => {
    const a = await admin("POST", "orders", {}) // 15:00:00 GMT
    advance(3600)
    const b = await admin("POST", "orders", {}) // 16:00:00 GMT
    const ids = async (query: string) => (await api("GET", `/wc/v3/orders?orderby=id&order=asc&${query}`)).json.map((o: any) => o.id)
    expect(await ids("dates_are_gmt=true&modified_after=2026-03-02T15:00:00")).toEqual([b.id])
    expect(await ids("dates_are_gmt=true&modified_after=2026-03-02T14:59:59")).toEqual([a.id, b.id])
    expect(await ids("dates_are_gmt=true&modified_before=2026-03-02T16:00:00")).toEqual([a.id])
    // Without dates_are_gmt the bound is site-local time (GMT−5).
    expect(await ids("modified_after=2026-03-02T10:30:00")).toEqual([b.id])
    // The gotcha: …Z is converted to local time (09:30) and then compared with the GMT column.
    expect(await ids("dates_are_gmt=true&modified_after=2026-03-02T15:30:00Z")).toEqual([a.id, b.id])
  })

  it("loses a row to page numbers when a read order is edited past a frozen upper bound", async () => {
    const { ids } = await admin("POST", "orders/bulk", { count: 12, spacingSeconds: 1 })
    const window = "dates_are_gmt=true&orderby=modified&order=asc&per_page=5&modified_before=2026-03-02T15:00:30"
    const page1 = await api("GET", `/wc/v3/orders?${window}&page=1`)
    advance(60)
    await admin("PATCH", `orders/${ids[0]}`, { customer_note: "changed" })
    const page2 = await api("GET", `/wc/v3/orders?${window}&page=2`)
    const seen = [...page1.json, ...page2.json].map((o: any) => o.id)
    // ids[5] slid onto page 1 when ids[0] left the window: a page-number walk never sees it.
    expect(seen).toEqual([...ids.slice(0, 5), ...ids.slice(6, 11)])
    expect(page2.headers.get("x-wp-total")).toBe("11")
  })

  it("updates meta in place, completes once (one Completed email) and keeps notes apart from date_modified", async () => {
    const order = await admin("POST", "orders", {})
    advance(5)
    const put = await api("PUT", `/wc/v3/orders/${order.id}`, { meta_data: [{ key: "_podsync_draft", value: "dft_1" }] })
    expect(put.json.date_modified_gmt).toBe("2026-03-02T15:00:05")
    await api("PUT", `/wc/v3/orders/${order.id}`, { meta_data: [{ key: "_podsync_draft", value: "dft_2" }] })
    advance(5)
    const note = await api("POST", `/wc/v3/orders/${order.id}/notes`, { note: "private note" })
    expect(note.status).toBe(201)
    expect(note.json).toMatchObject({ author: "system", note: "private note", customer_note: false })
    const completed = await api("PUT", `/wc/v3/orders/${order.id}`, { status: "completed" })
    await api("PUT", `/wc/v3/orders/${order.id}`, { status: "completed" })
    expect(completed.json).toMatchObject({ status: "completed", date_completed_gmt: "2026-03-02T15:00:10" })
    expect(completed.json.meta_data.filter((m: any) => m.key === "_podsync_draft")).toEqual([expect.objectContaining({ value: "dft_2" })])
    const stored = await admin("GET", `orders/${order.id}`)
    expect(stored.emails.map((e: any) => e.type)).toEqual(["customer_processing_order", "customer_completed_order"])
    expect(stored.notes.map((n: any) => n.note)).toContain("Order status changed from Processing to Completed.")
    expect((await api("PUT", `/wc/v3/orders/${order.id}`, { status: "shipped" })).status).toBe(400)
    expect((await api("GET", "/wc/v3/orders/999999")).json).toMatchObject({
      code: "woocommerce_rest_shop_order_invalid_id",
      data: { status: 404 }
    })
  })

  it("lists refunds with negative quantities and _refunded_item_id, and a full refund moves the order to refunded", async () => {
    const order = await admin("POST", "orders", { lineItems: [{ quantity: 3, price: "10.00" }], shippingLine: null })
    const lineId = order.line_items[0].id
    await admin("POST", `orders/${order.id}/refund`, { line_items: [{ id: lineId, quantity: 1 }], reason: "damaged" })
    const refunds = await api("GET", `/wc/v3/orders/${order.id}/refunds`)
    expect(refunds.json[0]).toMatchObject({
      amount: "10.00",
      reason: "damaged",
      line_items: [{ quantity: -1, meta_data: [{ key: "_refunded_item_id", value: String(lineId) }] }]
    })
    expect((await api("GET", `/wc/v3/orders/${order.id}`)).json).toMatchObject({
      status: "processing",
      refunds: [{ reason: "damaged", total: "-10.00" }]
    })
    await admin("POST", `orders/${order.id}/refund`, { line_items: [{ id: lineId, quantity: 2 }] })
    expect((await api("GET", `/wc/v3/orders/${order.id}`)).json.status).toBe("refunded")
  })
})

describe("WooCommerce simulator: Shipment Tracking extension", () => {
  it("adds tracking items the Completed email then lists; predefined providers get their link, custom ones keep theirs", async () => {
    const order = await admin("POST", "orders", {})
    const created = await api("POST", `/wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings`, {
      tracking_provider: "UPS",
      tracking_number: "1Z999AA10123456784",
      date_shipped: "2026-03-02"
    })
    expect(created.status).toBe(201)
    expect(created.headers.get("location")).toBe(
      `${sim.url}/wp-json/wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings/${created.json.tracking_id}`
    )
    expect(created.json).toMatchObject({
      tracking_provider: "UPS",
      tracking_number: "1Z999AA10123456784",
      date_shipped: "2026-03-02",
      tracking_link: "https://www.ups.com/track?loc=en_US&tracknum=1Z999AA10123456784"
    })
    // A custom provider's link is used as given (`get_formatted_tracking_item`): no template is filled in.
    const custom = await api("POST", `/wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings`, {
      custom_tracking_provider: "YunExpress",
      custom_tracking_link: "https://www.yuntrack.com/track?id=YT123",
      tracking_number: "YT123"
    })
    expect(custom.json).toMatchObject({ tracking_provider: "YunExpress", tracking_link: "https://www.yuntrack.com/track?id=YT123" })
    expect((await api("GET", `/wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings`)).json.map((t: any) => t.tracking_number))
      .toEqual(["1Z999AA10123456784", "YT123"])
    expect((await api("POST", `/wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings`, { tracking_provider: "UPS" })).json)
      .toMatchObject({ code: "rest_missing_callback_param" })
    await api("PUT", `/wc/v3/orders/${order.id}`, { status: "completed" })
    const stored = await admin("GET", `orders/${order.id}`)
    expect(stored.emails[1]).toMatchObject({
      type: "customer_completed_order",
      trackingNumbers: ["1Z999AA10123456784", "YT123"],
      tracking: [
        { provider: "UPS", number: "1Z999AA10123456784", link: "https://www.ups.com/track?loc=en_US&tracknum=1Z999AA10123456784" },
        { provider: "YunExpress", number: "YT123", link: "https://www.yuntrack.com/track?id=YT123" }
      ]
    })
    // The extension stores the provider's slug.
    expect(stored.meta_data.find((m: any) => m.key === "_wc_shipment_tracking_items").value.map((t: any) => t.tracking_provider))
      .toEqual(["ups", ""])
  })

  it("has no routes while the extension is switched off", async () => {
    const order = await admin("POST", "orders", {})
    await admin("POST", "extensions", { shipmentTracking: false })
    const answer = await api("GET", `/wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings`)
    expect(answer.status).toBe(404)
    expect(answer.json.code).toBe("rest_no_route")
    await admin("POST", "extensions", { shipmentTracking: true })
    expect((await api("GET", `/wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings`)).status).toBe(200)
  })
})

describe("WooCommerce simulator: host faults", () => {
  it("answers 429 and 503 as HTML pages with Retry-After, and commits before dropping on commitThenDrop", async () => {
    const order = await admin("POST", "orders", {})
    await admin("POST", "faults", { operation: "orders.get", kind: "429", retryAfterSeconds: 7, count: 1 })
    const limited = await api("GET", `/wc/v3/orders/${order.id}`)
    expect([limited.status, limited.headers.get("retry-after"), limited.headers.get("content-type")]).toEqual([
      429,
      "7",
      "text/html; charset=UTF-8"
    ])
    await admin("POST", "faults", { operation: "orders.get", kind: "error5xx", status: 503, retryAfterSeconds: 3, count: 1 })
    expect((await api("GET", `/wc/v3/orders/${order.id}`)).status).toBe(503)
    await admin("POST", "faults", { operation: "orders.update", kind: "commitThenDrop", count: 1 })
    await expect(api("PUT", `/wc/v3/orders/${order.id}`, { status: "completed" })).rejects.toThrow()
    expect((await api("GET", `/wc/v3/orders/${order.id}`)).json.status).toBe("completed")
    const stats = await admin("GET", "stats")
    expect(stats.faultsInjected).toEqual({ "429": 1, error5xx: 1, commitThenDrop: 1 })
    expect(stats.completedEmailsByOrder).toEqual({ [order.id]: 1 })
  })

  it("limits request rate per host window when asked", async () => {
    await admin("POST", "rate-limit", { requests: 2, windowSeconds: 1, retryAfterSeconds: 1 })
    const statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await api("GET", "/wc/v3/orders")).status)
    advance(1)
    statuses.push((await api("GET", "/wc/v3/orders")).status)
    expect(statuses).toEqual([200, 200, 429, 200])
    expect((await admin("GET", "stats")).rateLimited).toBe(1)
  })
})
