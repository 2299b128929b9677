import { createHmac, timingSafeEqual } from "node:crypto"
import type { IncomingHttpHeaders, Server } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { usePodSimulator, waitFor } from "./podHarness.js"

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

/** The documented scheme, computed independently: hex HMAC-SHA256 over path + nonce + timestamp + base64url(body). */
const signatureIsValid = (r: Received, key: string): boolean => {
  const nonce = String(r.headers["x-connect-nonce"])
  const timestamp = String(r.headers["x-connect-timestamp"])
  const expected = createHmac("sha256", key).update(`${new URL(r.path, "http://x").pathname}${nonce}${timestamp}${Buffer.from(r.raw).toString("base64url")}`).digest()
  const given = Buffer.from(String(r.headers["x-connect-signature"]), "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const subscribe = async (topic: string, path: string, extra: Record<string, unknown> = {}) => {
  const reply = await pod.api("POST", "/api/v3/webhooks", { status: "STATUS_ACTIVE", topic, version: "VERSION_V3", delivery_url: receiverUrl + path, ...extra })
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
    expect(created).toMatchObject({ status: "success", data: { topic: "TOPIC_ORDER_COMPLETED", status: "STATUS_ACTIVE", version: "VERSION_V3", store_id: "store-1", webhook_id: expect.any(String) } })
    await subscribe("VENDOR_WEBHOOK_TOPIC_ORDER_CANCELED", "/hooks/a")
    const duplicate = await pod.api("POST", "/api/v3/webhooks", { status: "STATUS_ACTIVE", topic: "TOPIC_ORDER_COMPLETED", version: "VERSION_V3", delivery_url: `${receiverUrl}/hooks/a`, store_id: "store-1" })
    expect(duplicate.body).toMatchObject({ status: "error", message: expect.stringContaining("duplicate webhook") })
    const badUrl = await pod.api("POST", "/api/v3/webhooks", { status: "STATUS_ACTIVE", topic: "TOPIC_ORDER_COMPLETED", version: "VERSION_V3", delivery_url: "ftp://example.com/x" })
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
  it("are signed as documented, with the X-Connect headers", async () => {
    await subscribe("TOPIC_TRACKING_ORDER_UPDATED", "/webhooks/pod")
    const orderId = await shippedOrder("hook:1")
    const [delivery] = await waitFor(async () => (received.length > 0 ? received : undefined))
    expect(delivery!.path).toBe("/webhooks/pod")
    expect(delivery!.headers["x-connect-client-key"]).toBe("sim-webhook-client-key")
    expect(String(delivery!.headers["x-connect-timestamp"])).toMatch(/^\d{10}$/)
    expect(Math.abs(Number(delivery!.headers["x-connect-timestamp"]) - Date.now() / 1000)).toBeLessThan(60)
    expect(signatureIsValid(delivery!, "sim-webhook-key")).toBe(true)
    expect(signatureIsValid(delivery!, "another-key")).toBe(false)
    expect(delivery!.body).toMatchObject({ type: "tracking_order_updated", order: { gearment_id: orderId, vendor_id: "hook:1", ord_status: "shipped" } })
    expect(delivery!.body.order.trackings).toHaveLength(1)
  })

  it("use the flat v1 payload for VERSION_V1 subscriptions and honour store_id", async () => {
    await pod.api("POST", "/api/v3/webhooks", { status: "STATUS_ACTIVE", topic: "TOPIC_ORDER_CANCELLED", version: "VERSION_V1", delivery_url: `${receiverUrl}/v1`, store_id: "store-2" })
    await pod.createDraft({ referenceId: "v1:a", storeId: "store-1" })
    await pod.createDraft({ referenceId: "v1:b", storeId: "store-2" })
    const { order_ids: ids } = (await pod.admin("POST", "/__sim/checkout-all")).body
    for (const id of ids) await pod.admin("POST", `/__sim/orders/${id}/cancel`)
    const [delivery] = await waitFor(async () => (received.length > 0 ? received : undefined))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(received).toHaveLength(1)
    expect(delivery!.body).toMatchObject({ type: "order_cancelled", data: { order_id: "v1:b", gearment_ord_id: expect.any(String), ord_status: "cancelled" } })
  })

  it("are retried until the receiver answers 200", async () => {
    answers = [500, 503]
    await subscribe("TOPIC_ORDER_COMPLETED", "/retry")
    await shippedOrder("retry:1")
    await waitFor(async () => (received.length >= 3 ? received : undefined))
    const log = (await pod.admin("GET", "/__sim/webhooks/deliveries")).body
    expect(log.map((d: { status: number; attempt: number }) => [d.attempt, d.status])).toEqual([[1, 500], [2, 503], [3, 200]])
    expect(new Set(received.map((r) => r.headers["x-connect-nonce"])).size).toBe(3)
    expect(received.every((r) => signatureIsValid(r, "sim-webhook-key"))).toBe(true)
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
    expect(received.every((r) => signatureIsValid(r, "sim-webhook-key"))).toBe(true)
    const log = (await pod.admin("GET", "/__sim/webhooks/deliveries")).body
    expect(log.filter((d: { duplicate: boolean }) => d.duplicate)).toHaveLength(3)
    expect((await pod.admin("GET", "/__sim/webhooks/queue")).body).toEqual({ queued: 0, autoDeliver: false })
  })
})
