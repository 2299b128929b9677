import { createHmac, timingSafeEqual } from "node:crypto"
import type { IncomingHttpHeaders, Server } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { sampleAddress, sampleDraftData } from "../../src/simulator/pod/index.js"
import { PUBLISHED_TOPICS } from "../pod/podSim.js"
import { usePodSimulator, waitFor } from "./podHarness.js"

/** The simulator's API credentials: the key travels as X-Connect-Client-Key, the secret keys the HMAC. */
const CLIENT_KEY = "sim-client-key"
const CLIENT_SECRET = "sim-client-secret"

const pod = usePodSimulator({ rateLimit: false, webhookDeliveryDelayMs: 10, webhookRetry: { attempts: 3, baseDelayMs: 30 } })

interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly raw: string
  readonly body: any
}

let receiver: Server
let receiverUrl = ""
let received: Array<Received> = []
let answers: Array<number> = []

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8")
      received.push({ path: req.url ?? "", headers: req.headers, raw, body: JSON.parse(raw) })
      res.writeHead(answers.shift() ?? 200).end("ok")
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
})
afterAll(async () => {
  receiver.closeAllConnections()
  await new Promise((resolve) => receiver.close(resolve))
})
beforeEach(() => {
  received = []
  answers = []
})

/** base64url WITH `=` padding, as the published Go sample encodes (written out here, independently of the simulator). */
const goBase64Url = (bytes: Buffer) => bytes.toString("base64").replaceAll("+", "-").replaceAll("/", "_")

/**
 * The published scheme, computed independently: HMAC-SHA256 keyed with the API client secret over
 * path + nonce + timestamp + base64url(body), the body's base64url padded, the result in padded base64url.
 */
const signatureIsValid = (r: Received, key: string): boolean => {
  const nonce = String(r.headers["x-connect-nonce"])
  const timestamp = String(r.headers["x-connect-timestamp"])
  const signature = String(r.headers["x-connect-signature"])
  if (!/^[A-Za-z0-9_-]{43}=$/.test(signature)) return false
  const expected = createHmac("sha256", key).update(
    `${new URL(r.path, "http://x").pathname}${nonce}${timestamp}${goBase64Url(Buffer.from(r.raw))}`
  ).digest()
  const given = Buffer.from(signature.replaceAll("-", "+").replaceAll("_", "/"), "base64")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** Compact JSON with keys in alphabetical order at every depth: what a Go map marshals to. */
const goMapJson = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(goMapJson).join(",")}]`
    : typeof value === "object" && value !== null
    ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${goMapJson((value as Record<string, unknown>)[k])}`).join(",")}}`
    : JSON.stringify(value)

const subscribe = async (topic: string, path: string, extra: Record<string, unknown> = {}) => {
  const reply = await pod.api("POST", "/api/v3/webhooks", {
    status: "STATUS_ACTIVE",
    topic,
    version: "VERSION_V3",
    delivery_url: receiverUrl + path,
    ...extra
  })
  expect(reply.status).toBe(200)
  return reply.body
}

const shippedOrder = async (referenceId: string, storeId?: string): Promise<string> => {
  const draft = await pod.createDraft({ referenceId, ...(storeId === undefined ? {} : { storeId }) })
  const orderId = (await pod.admin("POST", `/__sim/drafts/${draft.order_id}/checkout`)).body.order_id
  await pod.admin("POST", `/__sim/orders/${orderId}/ship`)
  return orderId
}

describe("webhook subscriptions", () => {
  it("creates, lists with filters, refuses duplicates and bad URLs, and deletes", async () => {
    const created = await subscribe("TOPIC_ORDER_COMPLETED", "/hooks/a", { name: "done", store_id: "store-1" })
    expect(created).toMatchObject({
      status: "success",
      data: {
        topic: "TOPIC_ORDER_COMPLETED",
        status: "STATUS_ACTIVE",
        version: "VERSION_V3",
        store_id: "store-1",
        webhook_id: expect.any(String)
      }
    })
    await subscribe("VENDOR_WEBHOOK_TOPIC_ORDER_CANCELED", "/hooks/a")
    const duplicate = await pod.api("POST", "/api/v3/webhooks", {
      status: "STATUS_ACTIVE",
      topic: "TOPIC_ORDER_COMPLETED",
      version: "VERSION_V3",
      delivery_url: `${receiverUrl}/hooks/a`,
      store_id: "store-1"
    })
    expect(duplicate.body).toMatchObject({ status: "error", message: expect.stringContaining("duplicate webhook") })
    const badUrl = await pod.api("POST", "/api/v3/webhooks", {
      status: "STATUS_ACTIVE",
      topic: "TOPIC_ORDER_COMPLETED",
      version: "VERSION_V3",
      delivery_url: "ftp://example.com/x"
    })
    expect(badUrl.status).toBe(400)
    expect(badUrl.body.message).toContain("invalid delivery URL")
    const cancelled = (await pod.api("GET", "/api/v3/webhooks?filter.topics=TOPIC_ORDER_CANCELLED")).body.data
    expect(cancelled.map((w: { topic: string }) => w.topic)).toEqual(["TOPIC_ORDER_CANCELLED"])
    expect((await pod.api("GET", "/api/v3/webhooks?filter.store_ids=store-1")).body.data).toHaveLength(1)
    const id = created.data.webhook_id
    expect((await pod.api("DELETE", `/api/v3/webhooks/${id}`)).body.data.webhook_id).toBe(id)
    expect((await pod.api("DELETE", `/api/v3/webhooks/${id}`)).status).toBe(404)
  })
})

describe("webhook deliveries", () => {
  it("are signed as published: the client secret, padded base64url, the X-Connect headers, a Go client and a sorted compact body", async () => {
    await subscribe("TOPIC_TRACKING_ORDER_UPDATED", "/webhooks/pod")
    const orderId = await shippedOrder("hook:1")
    const [delivery] = await waitFor(async () => (received.length > 0 ? received : undefined))
    expect(delivery!.path).toBe("/webhooks/pod")
    expect(delivery!.headers["x-connect-client-key"]).toBe(CLIENT_KEY)
    expect(delivery!.headers["user-agent"]).toBe("go-resty/2.16.2")
    expect(String(delivery!.headers["x-connect-nonce"])).toMatch(/^[A-Za-z0-9+/]{14}==$/)
    expect(String(delivery!.headers["x-connect-timestamp"])).toMatch(/^\d{10}$/)
    expect(Math.abs(Number(delivery!.headers["x-connect-timestamp"]) - Date.now() / 1000)).toBeLessThan(60)
    expect(signatureIsValid(delivery!, CLIENT_SECRET)).toBe(true)
    expect(signatureIsValid(delivery!, "another-key")).toBe(false)
    expect(delivery!.raw).toBe(goMapJson(delivery!.body))
    expect(delivery!.body).toEqual({
      order: {
        gearment_id: orderId,
        gearment_name: expect.stringMatching(/^#\d+$/),
        reference: "hook:1",
        status: "shipped",
        vendor_id: "hook:1"
      },
      tracking: { company: expect.any(String), number: expect.any(String), url: expect.stringMatching(/^https:/) },
      type: "tracking_order_updated"
    })
    const log = (await pod.admin("GET", "/__sim/webhooks/deliveries")).body
    expect(log[0]).toMatchObject({
      topic: "TOPIC_TRACKING_ORDER_UPDATED",
      type: "tracking_order_updated",
      version: "VERSION_V3",
      order_id: orderId,
      status: 200
    })
  })

  it("use the flat v1 payload for VERSION_V1 subscriptions and honour store_id", async () => {
    await pod.api("POST", "/api/v3/webhooks", {
      status: "STATUS_ACTIVE",
      topic: "TOPIC_ORDER_CANCELLED",
      version: "VERSION_V1",
      delivery_url: `${receiverUrl}/v1`,
      store_id: "store-2"
    })
    await pod.createDraft({ referenceId: "v1:a", storeId: "store-1" })
    await pod.createDraft({ referenceId: "v1:b", storeId: "store-2" })
    const { order_ids: ids } = (await pod.admin("POST", "/__sim/checkout-all")).body
    for (const id of ids) await pod.admin("POST", `/__sim/orders/${id}/cancel`)
    const [delivery] = await waitFor(async () => (received.length > 0 ? received : undefined))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(received).toHaveLength(1)
    expect(delivery!.body).toEqual({
      api_key: CLIENT_KEY,
      type: "order_cancelled",
      data: {
        order_id: "v1:b",
        gearment_ord_id: expect.any(String),
        gearment_ord_name: expect.stringMatching(/^#\d+$/),
        ord_status: "cancelled"
      }
    })
    expect(signatureIsValid(delivery!, CLIENT_SECRET)).toBe(true)
  })

  it("are retried until the receiver answers 200", async () => {
    answers = [500, 503]
    await subscribe("TOPIC_ORDER_COMPLETED", "/retry")
    await shippedOrder("retry:1")
    await waitFor(async () => (received.length >= 3 ? received : undefined))
    const log = (await pod.admin("GET", "/__sim/webhooks/deliveries")).body
    expect(log.map((d: { status: number; attempt: number }) => [d.attempt, d.status])).toEqual([[1, 500], [2, 503], [3, 200]])
    expect(new Set(received.map((r) => r.headers["x-connect-nonce"])).size).toBe(3)
    expect(received.every((r) => signatureIsValid(r, CLIENT_SECRET))).toBe(true)
  })

  it("come duplicated and out of order on demand", async () => {
    await pod.admin("POST", "/__sim/webhooks/auto", { enabled: false })
    await subscribe("TOPIC_ORDER_COMPLETED", "/batch")
    const ids = [await shippedOrder("batch:1"), await shippedOrder("batch:2"), await shippedOrder("batch:3")]
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(received).toHaveLength(0)
    const flushed = await pod.admin("POST", "/__sim/webhooks/deliver", { duplicates: 1, reorder: true })
    expect(flushed.body.sent).toBe(6)
    expect(received.map((r) => r.body.order.gearment_id)).toEqual([...ids].reverse().concat([...ids].reverse()))
    expect(new Set(received.map((r) => r.headers["x-connect-nonce"])).size).toBe(6)
    expect(received.every((r) => signatureIsValid(r, CLIENT_SECRET))).toBe(true)
    const log = (await pod.admin("GET", "/__sim/webhooks/deliveries")).body
    expect(log.filter((d: { duplicate: boolean }) => d.duplicate)).toHaveLength(3)
    expect((await pod.admin("GET", "/__sim/webhooks/queue")).body).toEqual({ queued: 0, autoDeliver: false })
  })

  it("send every published event in both versions, each with its published payload", async () => {
    // One subscription per topic and version; V1 subscribed by the enums' numbers (topic 2..8, version 2).
    const topics = PUBLISHED_TOPICS
    for (const [index, topic] of topics.entries()) {
      await subscribe(topic, "/v3")
      const numbered = await pod.api("POST", "/api/v3/webhooks", {
        status: 2,
        topic: index + 2,
        version: 2,
        delivery_url: `${receiverUrl}/v1`
      })
      expect(numbered.body.data).toMatchObject({ topic, version: "VERSION_V1", status: "STATUS_ACTIVE" })
    }
    // A draft whose address cannot be verified: unverified at once, and it cannot be checked out until verified.
    const [variantId] = await pod.inStockVariantIds(1)
    const created = await pod.api("POST", "/api/v3/orders/draft", {
      data: { ...sampleDraftData({ variantId: variantId!, referenceId: "every:1" }), address: { ...sampleAddress, zip_code: "00000" } }
    })
    const draftId: string = created.body.data.order_id
    expect((await pod.api("GET", `/api/v3/orders/draft/${draftId}`)).body.data.shipping_verification_status).toBe(
      "VENDOR_SHIPPING_VERIFICATION_STATUS_ADDRESS_UNVERIFIED"
    )
    expect((await pod.admin("POST", `/__sim/drafts/${draftId}/checkout`)).status).toBe(409)
    expect((await pod.admin("POST", `/__sim/drafts/${draftId}/address-verification`, { verified: true })).body).toMatchObject({
      address_verified: true
    })
    const orderId: string = (await pod.admin("POST", `/__sim/drafts/${draftId}/checkout`, { paid: true })).body.order_id
    // The variant runs out while the order waits for production; the order and its draft show it.
    const stock = await pod.admin("POST", `/__sim/variants/${variantId}/stock`, { label: "OUT_OF_STOCK" })
    expect(stock.body.affected).toEqual([{ draft_id: draftId, order_id: orderId }])
    expect((await pod.api("GET", `/api/v3/orders/draft/${draftId}`)).body.data.line_items[0].variant.stock_label).toBe(
      "VENDOR_STOCK_LABEL_OUT_OF_STOCK"
    )
    await pod.admin("POST", `/__sim/variants/${variantId}/stock`, { label: "IN_STOCK" })
    await pod.admin("POST", `/__sim/orders/${orderId}/hold`)
    await pod.admin("POST", `/__sim/orders/${orderId}/advance`)
    await pod.admin("POST", `/__sim/orders/${orderId}/ship`, { trackings: [{ tracking_no: "1Z999AA10123456784", carrier: "UPS" }] })
    const other = await pod.createDraft({ referenceId: "every:2" })
    const otherOrder: string = (await pod.admin("POST", `/__sim/drafts/${other.order_id}/checkout`)).body.order_id
    await pod.admin("POST", `/__sim/orders/${otherOrder}/cancel`)

    // 8 events (verified twice for the first order, once for the second), each to both subscriptions.
    await waitFor(async () => (received.length >= 18 ? received : undefined))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(received).toHaveLength(18)
    expect(received.every((r) => signatureIsValid(r, CLIENT_SECRET) && r.raw === goMapJson(r.body))).toBe(true)
    const v3 = received.filter((r) => r.path === "/v3").map((r) => r.body)
    const v1 = received.filter((r) => r.path === "/v1").map((r) => r.body)
    const byType = (bodies: ReadonlyArray<any>, type: string) => bodies.filter((b) => b.type === type)
    const ids = { gearment_name: expect.stringMatching(/^#\d+$/), vendor_id: "every:1" }

    expect(byType(v3, "shipping_address_unverified")).toEqual([
      { type: "shipping_address_unverified", order: { gearment_id: draftId, ...ids, verify_address: "unverified", ord_status: "pending" } }
    ])
    expect(byType(v3, "shipping_address_verified").map((b) => b.order)).toEqual([
      { gearment_id: draftId, ...ids, verify_address: "verified", ord_status: "pending" },
      { gearment_id: orderId, ...ids, verify_address: "verified", ord_status: "awaiting_fulfillment" },
      expect.objectContaining({ gearment_id: otherOrder, vendor_id: "every:2", verify_address: "verified" })
    ])
    const order = { gearment_id: orderId, ...ids, reference: "every:1" }
    expect(byType(v3, "product_out_of_stock")).toEqual([{
      type: "product_out_of_stock",
      order: { ...order, status: "awaiting_fulfillment" },
      variant: { variant_id: variantId, sku: expect.any(String), name: expect.any(String), stock_label: "out_of_stock" }
    }])
    expect(byType(v3, "order_on_hold")).toEqual([{ type: "order_on_hold", order: { ...order, status: "on_hold" } }])
    const tracking = { company: "UPS", number: "1Z999AA10123456784", url: expect.any(String) }
    expect(byType(v3, "tracking_order_updated")).toEqual([{
      type: "tracking_order_updated",
      order: { ...order, status: "shipped" },
      tracking
    }])
    expect(byType(v3, "order_completed")).toEqual([{ type: "order_completed", order: { ...order, status: "shipped" }, tracking }])
    expect(byType(v3, "order_cancelled")).toEqual([
      {
        type: "order_cancelled",
        order: {
          gearment_id: otherOrder,
          gearment_name: expect.any(String),
          reference: "every:2",
          status: "cancelled",
          vendor_id: "every:2"
        }
      }
    ])

    // V1: `api_key` and `data`, the tracking event under its documentation path's name.
    expect(new Set(v1.map((b) => b.type))).toEqual(
      new Set([
        "shipping_address_unverified",
        "shipping_address_verified",
        "product_out_of_stock",
        "order_on_hold",
        "tracking_updated",
        "order_completed",
        "order_cancelled"
      ])
    )
    expect(
      v1.every((b) =>
        b.api_key === CLIENT_KEY && typeof b.data.gearment_ord_id === "string" && typeof b.data.gearment_ord_name === "string"
      )
    ).toBe(true)
    expect(byType(v1, "shipping_address_unverified")[0].data).toEqual({
      gearment_ord_id: draftId,
      gearment_ord_name: expect.any(String),
      ord_status: "pending",
      order_id: "every:1",
      verify_address: "unverified"
    })
    expect(byType(v1, "tracking_updated")[0].data).toEqual({
      gearment_ord_id: orderId,
      gearment_ord_name: expect.any(String),
      ord_status: "shipped",
      order_id: "every:1",
      tracking_company: "UPS",
      tracking_number: "1Z999AA10123456784",
      tracking_url: expect.any(String)
    })
    expect(byType(v1, "product_out_of_stock")[0].data).toMatchObject({
      gearment_ord_id: orderId,
      order_id: "every:1",
      variant_id: variantId
    })
    const log = (await pod.admin("GET", "/__sim/webhooks/deliveries")).body as Array<{ type: string; version: string }>
    expect(log.filter((d) => d.version === "VERSION_V1").map((d) => d.type)).toContain("tracking_updated")
  })

  it("answer an empty subscription list without `data`, as protobuf JSON does", async () => {
    const empty = await pod.api("GET", "/api/v3/webhooks")
    expect(empty.status).toBe(200)
    expect(empty.body).not.toHaveProperty("data")
    expect(empty.body).toMatchObject({ status: "success", paging: expect.any(Object) })
  })
})
