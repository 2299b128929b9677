import { createHmac } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { startEtsySimulator } from "../../src/simulator/etsy/index.js"
import { accessToken, adminCall, api, json } from "../stores/etsy/rawApi.js"

// Quotas (per second, per rolling day, 429 switches) and Standard Webhooks deliveries.

const running: Array<{ close: () => Promise<void> | void }> = []
afterEach(async () => {
  for (const r of running.splice(0)) await r.close()
})

const start = async (options: Parameters<typeof startEtsySimulator>[0]) => {
  const sim = await startEtsySimulator(options)
  running.push(sim)
  return sim
}

const limitHeaders = (response: Response) =>
  Object.fromEntries(
    ["x-limit-per-second", "x-remaining-this-second", "x-limit-per-day", "x-remaining-today", "retry-after"].map((
      h
    ) => [h, response.headers.get(h)])
  )

describe("Etsy simulator: quotas", () => {
  it("counts per sliding second and per rolling day, with the limit headers on every accepted answer", async () => {
    let now = Date.UTC(2026, 2, 1, 9, 0, 0)
    // Not about refresh tokens: the one at start is asked twice.
    const sim = await start({ quota: { perSecond: 3, perDay: 5 }, now: () => now, rotateRefreshTokens: false })
    const token = await accessToken(sim)
    const path = `/shops/${sim.shopId}/receipts`
    const first = await api(sim, token, path)
    expect(limitHeaders(first)).toEqual({
      "x-limit-per-second": "3",
      "x-remaining-this-second": "2",
      "x-limit-per-day": "5",
      "x-remaining-today": "4",
      "retry-after": null
    })
    now += 400
    await api(sim, token, path)
    await api(sim, token, path)
    const over = await api(sim, token, path)
    // Default: no limit headers and no retry-after on a 429 (the older doc).
    expect([over.status, (await json(over)).error, limitHeaders(over)["x-remaining-today"], limitHeaders(over)["retry-after"]])
      .toEqual([429, "Too many requests: more than 3 per second", null, null])
    now += 600 // the first request leaves the window
    expect((await api(sim, token, path)).status).toBe(200)
    now += 1000
    const fifth = await api(sim, token, path)
    expect([fifth.status, limitHeaders(fifth)["x-remaining-today"]]).toEqual([200, "0"])
    const last = await api(sim, token, path)
    expect([last.status, limitHeaders(last)["x-remaining-today"]]).toEqual([429, null])
    expect(((await json(last)) as { error: string }).error).toBe("Daily quota of 5 requests exceeded")
    // The day rolls: 24 hours after the first minute, its requests no longer count.
    now += 24 * 3600 * 1000
    expect((await api(sim, token, path)).status).toBe(401) // the hour-long token is long gone
    expect((await api(sim, await accessToken(sim), path)).status).toBe(200)
    const stats = await adminCall(sim, "GET", "stats")
    expect([stats.throttled, stats.quota.maxInOneSecond]).toEqual([2, 3])
  })

  it("sends the limit headers and a retry-after with a 429 when switched on", async () => {
    const sim = await start({
      quota: { perSecond: 1, perDay: 1000 },
      limitHeadersOn429: true,
      retryAfterOn429: true,
      now: () => Date.UTC(2026, 2, 1)
    })
    const token = await accessToken(sim)
    await api(sim, token, `/shops/${sim.shopId}/receipts`)
    const over = await api(sim, token, `/shops/${sim.shopId}/receipts`)
    expect([over.status, limitHeaders(over)]).toEqual([429, {
      "x-limit-per-second": "1",
      "x-remaining-this-second": "0",
      "x-limit-per-day": "1000",
      "x-remaining-today": "999",
      "retry-after": "1"
    }])
    await adminCall(sim, "POST", "quota", { usedToday: 1000 })
    const spent = await api(sim, token, `/shops/${sim.shopId}/receipts`)
    expect(spent.status).toBe(429)
    expect(Number(spent.headers.get("retry-after"))).toBeGreaterThan(86_000)
  })
})

interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

const receiver = async (status = 200) => {
  const received: Array<Received> = []
  let answer = status
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
      res.writeHead(answer).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  running.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, answerWith: (s: number) => (answer = s) }
}

/** Standard Webhooks verification, written from the spec, independent of the connector. */
const signatureOk = (secret: string, r: Received): boolean => {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64")
  const expected = createHmac("sha256", key).update(`${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`).digest(
    "base64"
  )
  return String(r.headers["webhook-signature"]).split(" ").includes(`v1,${expected}`)
}

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 3_000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  if (!check()) throw new Error(`timed out waiting for ${what}`)
}

describe("Etsy simulator: webhooks", () => {
  it("delivers the published envelope, Standard-Webhooks-signed, for paid, canceled and shipped receipts", async () => {
    const at = Date.UTC(2026, 2, 1, 10, 30)
    const sim = await start({ now: () => at })
    const inbox = await receiver()
    await adminCall(sim, "POST", "webhooks/subscribe", { url: inbox.url, events: ["ORDER_PAID", "order.shipped"] })
    await adminCall(sim, "POST", "webhooks/settings", { autoDeliver: false })
    const paid = await adminCall(sim, "POST", "receipts", {})
    await adminCall(sim, "POST", `receipts/${paid.receipt_id}/cancel`, {})
    await adminCall(sim, "POST", `receipts/${paid.receipt_id}/ship`, {})
    expect((await adminCall(sim, "POST", "webhooks/deliver", {})).sent).toBe(2)
    const envelope = (event_type: string) => ({
      event_type,
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: at / 1000,
      data: {
        shop_id: sim.shopId,
        receipt_id: paid.receipt_id,
        resource_url: `${sim.url}/v3/application/shops/${sim.shopId}/receipts/${paid.receipt_id}`
      }
    })
    expect(inbox.received.map((r) => JSON.parse(r.body))).toEqual([envelope("ORDER_PAID"), envelope("ORDER_SHIPPED")])
    expect(inbox.received.every((r) => signatureOk(sim.webhookSecret, r))).toBe(true)
  })

  it("delivers the flat form when told to (thin payload), for paid, canceled and shipped receipts", async () => {
    const sim = await start({ now: () => Date.UTC(2026, 2, 1, 10, 30) })
    const inbox = await receiver()
    await adminCall(sim, "POST", "webhooks/subscribe", { url: inbox.url })
    await adminCall(sim, "POST", "webhooks/settings", { autoDeliver: false, payload: "thin" })
    const paid = await adminCall(sim, "POST", "receipts", {})
    const unpaid = await adminCall(sim, "POST", "receipts", { status: "open" })
    await adminCall(sim, "POST", `receipts/${unpaid.receipt_id}/pay`, {})
    await adminCall(sim, "POST", `receipts/${paid.receipt_id}/cancel`, {})
    await adminCall(sim, "POST", `receipts/${unpaid.receipt_id}/ship`, {})
    expect((await adminCall(sim, "POST", "webhooks/deliver", {})).sent).toBe(4)
    /** A thin delivery: the event and the receipt it names. */
    const thin = (event_type: string, receiptId: number) => ({
      event_type,
      resource_url: `${sim.url}/v3/application/shops/${sim.shopId}/receipts/${receiptId}`,
      shop_id: sim.shopId
    })
    expect(inbox.received.map((r) => JSON.parse(r.body))).toEqual([
      thin("order.paid", paid.receipt_id),
      thin("order.paid", unpaid.receipt_id),
      thin("order.canceled", paid.receipt_id),
      thin("order.shipped", unpaid.receipt_id)
    ])
    expect(inbox.received.every((r) => signatureOk(sim.webhookSecret, r))).toBe(true)
    expect(inbox.received.every((r) => r.headers["webhook-timestamp"] === String(Date.UTC(2026, 2, 1, 10, 30) / 1000))).toBe(true)
    expect(new Set(inbox.received.map((r) => r.headers["webhook-id"])).size).toBe(4)
  })

  it("sends duplicates and retries with the same webhook-id, newest first on demand, and two signatures during a rotation", async () => {
    const sim = await start({})
    const inbox = await receiver(500)
    await adminCall(sim, "POST", "webhooks/subscribe", { url: inbox.url, events: ["order.paid"] })
    await adminCall(sim, "POST", "webhooks/settings", {
      autoDeliver: false,
      retries: 1,
      retryDelayMs: 20,
      previousSecret: "whsec_b2xkLWtleQ=="
    })
    const a = await adminCall(sim, "POST", "receipts", {})
    const b = await adminCall(sim, "POST", "receipts", {})
    await adminCall(sim, "POST", "webhooks/deliver", { duplicates: 1, reorder: true })
    // 2 events × 2 copies, each refused and retried once.
    await until(() => inbox.received.length === 8, "8 attempts")
    const byReceipt = (id: number) => inbox.received.filter((r) => r.body.includes(String(id)))
    expect(inbox.received[0]!.body).toContain(String(b.receipt_id))
    for (const id of [a.receipt_id, b.receipt_id]) {
      expect(byReceipt(id)).toHaveLength(4)
      expect(new Set(byReceipt(id).map((r) => r.headers["webhook-id"])).size).toBe(1)
    }
    expect(inbox.received.every((r) => String(r.headers["webhook-signature"]).split(" ").length === 2 && signatureOk(sim.webhookSecret, r)))
      .toBe(true)
    expect(inbox.received.every((r) => signatureOk("whsec_b2xkLWtleQ==", r))).toBe(true)
  })
})
