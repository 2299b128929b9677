import { createHmac } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { simAdmin } from "../support/simAdmin.js"
import {
  type RunningJsonFeedSimulator,
  runJsonFeedSimulatorStandalone,
  startJsonFeedSimulator,
  type WireFulfillment,
  type WireOrder,
  type WireOrdersPage
} from "../../src/simulator/jsonfeed/index.js"
import { listensStandalone } from "../support/standalone.js"

// The reference storefront, checked from the seller's side: docs/jsonfeed.md §2–§7 over real HTTP.

let sim: RunningJsonFeedSimulator

const api = async (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; token?: string } = {}) => {
  const response = await fetch(`${sim.baseUrl}${path}`, {
    method: init.method ?? "GET",
    headers: {
      Authorization: `Bearer ${init.token ?? sim.token}`,
      ...(init.body === undefined ? {} : { "Content-Type": "application/json" }),
      ...init.headers
    },
    ...(init.body === undefined ? {} : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) })
  })
  return { status: response.status, headers: response.headers, json: (await response.json()) as any }
}

const admin = (method: string, path: string, body?: unknown) => simAdmin(sim.url, method, path, body)

/** Follows next_cursor to the end; `between` acts after each page. */
const walk = async (query: string, between?: (page: number) => Promise<void>) => {
  const pages: Array<WireOrdersPage> = []
  let cursor: string | null = null
  for (let i = 0; i < 100; i++) {
    const params = new URLSearchParams(query)
    if (cursor !== null) params.set("cursor", cursor)
    const answer = await api(`/orders?${params}`)
    expect(answer.status).toBe(200)
    pages.push(answer.json)
    cursor = answer.json.next_cursor
    if (cursor === null) return pages
    await between?.(i)
  }
  throw new Error("the walk did not end")
}

const fulfil = (orderId: string, body: unknown, key?: string) =>
  api(`/orders/${orderId}/fulfillments`, { method: "POST", body, headers: key === undefined ? {} : { "Idempotency-Key": key } })

beforeAll(async () => {
  sim = await startJsonFeedSimulator({ rateLimit: false })
})
afterAll(async () => {
  await sim.close()
})
beforeEach(async () => {
  await admin("POST", "reset")
  await admin("POST", "ratelimit", { off: true })
})

describe("JSON feed simulator: authentication and errors", () => {
  it("refuses a missing or wrong bearer token with 401 and the contract's error body", async () => {
    const answer = await api("/orders", { token: "nope" })
    expect(answer.status).toBe(401)
    expect(answer.headers.get("www-authenticate")).toBe("Bearer")
    expect(answer.json).toEqual({ error: { code: "unauthorized", message: expect.any(String) } })
    expect((await api("/orders/ord_404")).json.error.code).toBe("order_not_found")
    expect((await api("/nothing")).status).toBe(404)
    expect((await api("/orders", { method: "DELETE" })).status).toBe(405)
  })

  it("refuses bad paging parameters with 400", async () => {
    expect((await api("/orders?limit=0")).json.error.code).toBe("invalid_request")
    expect((await api("/orders?limit=251")).json.error.code).toBe("invalid_request")
    expect((await api("/orders?updated_since=yesterday")).json.error.code).toBe("invalid_request")
    expect((await api("/orders?updated_since=2026-03-01")).json.error.code).toBe("invalid_request")
    expect((await api("/orders?cursor=bm90LW91cnM")).json.error.code).toBe("invalid_cursor")
  })
})

describe("JSON feed simulator: GET /orders", () => {
  it("pages by (updated_at, id) under an upper bound frozen by the first page", async () => {
    const { ids } = await admin("POST", "orders/bulk", { count: 25 })
    // A walk covers orders updated strictly before it started: let the millisecond pass.
    await admin("POST", "clock/advance", { seconds: 1 })
    const edited: Array<string> = []
    const pages = await walk("limit=10", async (page) => {
      if (page === 0) {
        // Neither an order already returned nor one not reached yet may show up again in this walk.
        edited.push(ids[2], ids[20])
        for (const id of edited) await admin("PATCH", `orders/${id}`, { note: "edited mid-walk" })
        await admin("POST", "orders", {})
      }
    })
    expect(pages.map((p) => p.orders.length)).toEqual([10, 10, 4])
    expect(new Set(pages.map((p) => p.upper_bound)).size).toBe(1)
    const returned = pages.flatMap((p) => p.orders)
    expect(returned.map((o) => o.id)).toEqual(ids.filter((id: string) => id !== ids[20]))
    const times = returned.map((o) => Date.parse(o.updated_at))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(times.every((t) => t < Date.parse(pages[0]!.upper_bound))).toBe(true)

    // The next walk, from the old upper bound, returns exactly what changed meanwhile.
    await admin("POST", "clock/advance", { seconds: 1 })
    const next = await walk(`updated_since=${encodeURIComponent(pages[0]!.upper_bound)}`)
    expect(next.flatMap((p) => p.orders).length).toBe(3)
  })

  it("treats updated_since as inclusive and accepts any offset", async () => {
    const orders: Array<WireOrder> = []
    for (let i = 0; i < 3; i++) orders.push(await admin("POST", "orders", {}))
    const second = orders[1]!
    await admin("POST", "clock/advance", { seconds: 1 })
    const since = new Date(Date.parse(second.updated_at)).toISOString().replace("Z", "+00:00")
    const pages = await walk(`updated_since=${encodeURIComponent(since)}`)
    expect(pages.flatMap((p) => p.orders).map((o) => o.id)).toEqual(
      orders.filter((o) => Date.parse(o.updated_at) >= Date.parse(second.updated_at)).map((o) => o.id)
    )
  })

  it("gives every version of an order its own updated_at, and serves the order by id", async () => {
    const order = await admin("POST", "orders", {})
    const versions = [order.updated_at]
    for (let i = 0; i < 5; i++) versions.push((await admin("PATCH", `orders/${order.id}`, { note: `v${i}` })).updated_at)
    expect(new Set(versions).size).toBe(6)
    const read = await api(`/orders/${order.id}`)
    expect(read.json).toEqual({ ...order, updated_at: versions[5], note: "v4", fulfillments: undefined, seq: undefined })
  })
})

describe("JSON feed simulator: fulfillments", () => {
  const body = (lineId: string, quantity = 1, number = "1Z0001") => ({
    lines: [{ line_id: lineId, quantity }],
    tracking: { company: "UPS", number, url: null },
    notify_customer: true
  })

  it("creates once per Idempotency-Key, emails once, and answers a repeat with the first fulfillment", async () => {
    const order = await admin("POST", "orders", { lines: [{ quantity: 2 }] })
    const line = order.lines[0].id
    expect((await fulfil(order.id, body(line))).json.error.code).toBe("idempotency_key_required")
    const created = await fulfil(order.id, body(line), "key-1")
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({
      order_id: order.id,
      status: "success",
      idempotency_key: "key-1",
      lines: [{ line_id: line, quantity: 1 }]
    })
    // Same key, any body: the first fulfillment again, nothing else happens.
    const repeated = await fulfil(order.id, body(line, 1, "OTHER"), "key-1")
    expect(repeated.status).toBe(200)
    expect(repeated.json).toEqual(created.json)
    const stats = await admin("GET", "stats")
    expect(stats.fulfillmentsByOrder).toEqual({ [order.id]: 1 })
    expect(stats.buyerEmailsByOrder).toEqual({ [order.id]: 1 })
    expect(stats.idempotentReplays).toBe(1)

    const list = await api(`/orders/${order.id}/fulfillments`)
    expect(list.json).toEqual({ fulfillments: [created.json] })
    const after = await api(`/orders/${order.id}`)
    expect(Date.parse(after.json.updated_at)).toBeGreaterThan(Date.parse(order.updated_at))
    expect(after.json).toMatchObject({ fulfillment_status: "partial", lines: [{ fulfilled_quantity: 1 }] })
  })

  it("answers 409 to a request whose key is still being processed", async () => {
    const order = await admin("POST", "orders", {})
    await admin("POST", "faults", { operation: "createFulfillment", kind: "latency", latencyMs: 300, count: 1 })
    const slow = fulfil(order.id, body(order.lines[0].id), "key-slow")
    // Once the fault has been drawn, the slow request holds its key.
    while ((await admin("GET", "faults")).faults.length > 0) await new Promise((resolve) => setTimeout(resolve, 5))
    const concurrent = await fulfil(order.id, body(order.lines[0].id), "key-slow")
    expect(concurrent.status).toBe(409)
    expect(concurrent.json.error.code).toBe("idempotency_key_in_use")
    expect((await slow).status).toBe(201)
    expect((await fulfil(order.id, body(order.lines[0].id), "key-slow")).status).toBe(200)
  })

  it("refuses what the order cannot take with 422 codes, and malformed bodies with 400", async () => {
    const order = await admin("POST", "orders", { lines: [{ quantity: 1 }] })
    const line = order.lines[0].id
    expect((await fulfil(order.id, body(line, 2), "a")).json.error.code).toBe("quantity_exceeds_fulfillable")
    expect((await fulfil(order.id, body("li_nope"), "b")).json.error.code).toBe("unknown_line")
    expect((await fulfil(order.id, { lines: [] }, "c")).status).toBe(400)
    expect((await fulfil(order.id, { lines: [{ line_id: line, quantity: 1 }], tracking: {} }, "d")).status).toBe(400)
    expect((await fulfil(order.id, "{not json", "e")).status).toBe(400)
    await admin("POST", `orders/${order.id}/hold`, { reason: "address check" })
    expect((await fulfil(order.id, body(line), "f")).json.error.code).toBe("order_on_hold")
    await admin("POST", `orders/${order.id}/release`)
    await admin("POST", `orders/${order.id}/cancel`)
    const cancelled = await fulfil(order.id, body(line), "g")
    expect([cancelled.status, cancelled.json.error.code]).toEqual([422, "order_cancelled"])
    expect((await fulfil("ord_404", body(line), "h")).status).toBe(404)
    expect((await admin("GET", "stats")).fulfillmentsByOrder).toEqual({})
  })

  it("commitThenDrop carries the request out and drops the answer", async () => {
    const order = await admin("POST", "orders", {})
    await admin("POST", "faults", { operation: "createFulfillment", kind: "commitThenDrop", count: 1 })
    await expect(fulfil(order.id, body(order.lines[0].id), "dropped")).rejects.toThrow()
    const list = await api(`/orders/${order.id}/fulfillments`)
    expect(list.json.fulfillments.map((f: WireFulfillment) => f.idempotency_key)).toEqual(["dropped"])
  })
})

describe("JSON feed simulator: webhooks", () => {
  it("signs the raw body with sha256=<hex HMAC> and repeats the delivery id and timestamp in it", async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = []
    const server = createServer((req, res) => {
      let body = ""
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
      req.on("end", () => {
        received.push({ headers: req.headers, body })
        res.writeHead(200).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/acme-feed`
      await admin("POST", "webhooks/subscribe", { address })
      await admin("POST", "webhooks/settings", { autoDeliver: false })
      const order = await admin("POST", "orders", {})
      await admin("POST", "webhooks/ping")
      expect((await admin("POST", "webhooks/deliver", {})).sent).toBe(2)
      const [created, ping] = received
      for (const { headers, body } of received) {
        const expected = `sha256=${createHmac("sha256", sim.webhookSecret).update(body).digest("hex")}`
        expect(headers["x-podsync-signature"]).toBe(expected)
        const parsed = JSON.parse(body)
        expect(headers["x-podsync-delivery"]).toBe(parsed.delivery_id)
        expect(headers["x-podsync-timestamp"]).toBe(String(parsed.timestamp))
        expect(Math.abs(parsed.timestamp - Date.now() / 1000)).toBeLessThan(5)
      }
      expect(JSON.parse(created!.body)).toMatchObject({ type: "order.created", order_id: order.id, updated_at: order.updated_at })
      expect(Object.keys(JSON.parse(ping!.body)).sort()).toEqual(["delivery_id", "timestamp", "type"])
    } finally {
      server.close()
    }
  })
})

describe("JSON feed simulator: rate limit", () => {
  it("answers 429 with Retry-After past the limit, and accepts again once the window moved", async () => {
    let now = Date.UTC(2026, 2, 1, 12, 0, 0)
    const limited = await startJsonFeedSimulator({ rateLimit: { requests: 3, windowSeconds: 10 }, now: () => now })
    try {
      const get = () => fetch(`${limited.baseUrl}/orders`, { headers: { Authorization: `Bearer ${limited.token}` } })
      for (let i = 0; i < 3; i++) {
        expect((await get()).status).toBe(200)
        now += 1000
      }
      const refused = await get()
      expect(refused.status).toBe(429)
      expect(refused.headers.get("retry-after")).toBe("7")
      expect(((await refused.json()) as any).error.code).toBe("rate_limited")
      now += 7000
      expect((await get()).status).toBe(200)
    } finally {
      await limited.close()
    }
  })

  it("prints its listening line when run standalone", async () => {
    await listensStandalone("jsonfeed", runJsonFeedSimulatorStandalone, (running) => {
      expect(running.baseUrl).toBe(`${running.url}/podsync/v1`)
    })
  })
})
