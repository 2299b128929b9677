// POST /webhooks/<store key> over real HTTP: a real Shopify connector against the Shopify simulator,
// the inbox on PGlite, and a PipelineTriggers port that records what it is told.
import { createHmac } from "node:crypto"
import { request as httpRequest } from "node:http"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { PodWebhookSettings } from "../../src/http/WebhookReceiver.js"
import { PipelineTriggers } from "../../src/pipeline/PipelineTriggers.js"
import { WebhookInboxRepo } from "../../src/repos/WebhookInboxRepo.js"
import type { RunningShopifySimulator } from "../../src/simulator/shopify/index.js"
import { StoreConnectors } from "../../src/stores/StoreConnector.js"
import { serveWebhookReceiver } from "../support/webhookServer.js"
import { pgliteDatabase } from "../support/database.js"
import { admin, connectTo, eventually, startSimulator } from "../stores/shopify/harness.js"

const STORE = "acme-shopify"
/** The store order id whose follow-up fails, to show a failure never reaches the sender. */
const FAILING_ORDER = "4040404"

type Call = { readonly storeKey: string; readonly storeOrderId: string | undefined }

class Env extends Context.Tag("test/StoreWebhookEnv")<Env, {
  readonly url: string
  readonly sim: RunningShopifySimulator
  readonly calls: Array<Call>
}>() {}

const InboxLive = WebhookInboxRepo.Default.pipe(Layer.provide(pgliteDatabase().layer))

const EnvLive = Layer.scoped(
  Env,
  Effect.gen(function*() {
    const sim = yield* startSimulator()
    const connector = yield* connectTo(sim)
    const calls: Array<Call> = []
    const triggers = Layer.succeed(PipelineTriggers, {
      storeChanged: (storeKey, storeOrderId) =>
        storeOrderId === FAILING_ORDER
          ? Effect.dieMessage("the pipeline is down")
          : Effect.sync(() => void calls.push({ storeKey, storeOrderId })),
      podOrderChanged: () => Effect.dieMessage("not expected in the store tests"),
      replanHeld: () => Effect.void
    })
    const url = yield* serveWebhookReceiver(Layer.mergeAll(
      triggers,
      Layer.succeed(StoreConnectors, new Map([[STORE, connector]])),
      Layer.succeed(PodWebhookSettings, Option.none())
    ))
    return { url, sim, calls }
  })
).pipe(Layer.provideMerge(InboxLive))

/** A POST with exactly these headers (no content-length when `chunked`), answered status and JSON body. */
const post = (url: string, headers: Record<string, string>, body: Buffer | string, chunked = false) =>
  Effect.promise(() =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const raw = typeof body === "string" ? Buffer.from(body) : body
      const req = httpRequest(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(chunked ? {} : { "content-length": String(raw.length) }), ...headers }
      }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          resolve({ status: res.statusCode ?? 0, body: text === "" ? {} : JSON.parse(text) })
        })
      })
      // The server may answer (413) and close before the whole body is written.
      req.on("error", (error) => ((error as NodeJS.ErrnoException).code === "EPIPE" ? undefined : reject(error)))
      if (chunked) {
        for (let at = 0; at < raw.length; at += 64 * 1024) req.write(raw.subarray(at, at + 64 * 1024))
        req.end()
      } else {
        req.end(raw)
      }
    })
  )

const shopifyHeaders = (body: string | Buffer, secret: string, overrides: Record<string, string> = {}) => ({
  "x-shopify-topic": "orders/updated",
  "x-shopify-hmac-sha256": createHmac("sha256", secret).update(body).digest("base64"),
  "x-shopify-shop-domain": "acme.myshopify.com",
  "x-shopify-webhook-id": `wh-${Math.random().toString(36).slice(2)}`,
  "x-shopify-event-id": `ev-${Math.random().toString(36).slice(2)}`,
  ...overrides
})

const orderBody = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id: Number(id), name: "#1042", updated_at: "2026-11-21T10:00:00Z", ...extra })

type Deliveries = { deliveries: Array<{ orderId: number; status: number | null; eventId: string }> }

/** Starts each test from an empty inbox, no calls and no subscriptions. */
const fresh = Effect.gen(function*() {
  const env = yield* Env
  yield* admin(env.sim, "POST", "reset")
  env.calls.length = 0
  yield* (yield* WebhookInboxRepo).pruneReceivedBefore(new Date(Date.now() + 86_400_000))
  return env
})

const inboxOf = Effect.flatMap(WebhookInboxRepo, (inbox) => inbox.entries(STORE))

layer(EnvLive, { excludeTestServices: true })("POST /webhooks/<store key>", (it) => {
  it.effect("refuses a forged or unsigned delivery with 401, storing nothing and telling no one", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const body = orderBody("5610000042")
      const forged = yield* post(`${env.url}/webhooks/${STORE}`, shopifyHeaders(body, "guessed-secret"), body)
      expect(forged).toEqual({ status: 401, body: { error: "bad_signature", detail: expect.any(String) } })
      const { "x-shopify-hmac-sha256": _, ...unsigned } = shopifyHeaders(body, env.sim.webhookSecret)
      expect((yield* post(`${env.url}/webhooks/${STORE}`, unsigned, body)).status).toBe(401)
      // Signed with the right secret over another body: the signature is checked over the raw bytes.
      const tampered = yield* post(`${env.url}/webhooks/${STORE}`, shopifyHeaders(body, env.sim.webhookSecret), orderBody("5610000043"))
      expect(tampered.status).toBe(401)
      expect(yield* inboxOf).toEqual([])
      yield* Effect.sleep("100 millis")
      expect(env.calls).toEqual([])
    }))

  it.effect("answers 404 for a store key it does not know, and for POD deliveries when they are not configured", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const body = orderBody("5610000042")
      const unknown = yield* post(`${env.url}/webhooks/other-shop`, shopifyHeaders(body, env.sim.webhookSecret), body)
      expect(unknown.status).toBe(404)
      expect(unknown.body["error"]).toBe("unknown_store")
      expect((yield* post(`${env.url}/webhooks/pod`, {}, "{}")).body["error"]).toBe("not_configured")
      // A path under /webhooks/ that names no receiver; a store key in the query does not make one.
      for (const path of ["/webhooks/", `/webhooks/${STORE}/extra`, `/webhooks/?store=${STORE}`, "/webhooks/%E0%A4%A"]) {
        const answer = yield* post(`${env.url}${path}`, shopifyHeaders(body, env.sim.webhookSecret), body)
        expect([path, answer.status, answer.body["error"]]).toEqual([path, 404, "not_found"])
      }
      expect(yield* inboxOf).toEqual([])
      expect(env.calls).toEqual([])
    }))

  it.effect("accepts a genuine delivery from the simulator, stores it and asks for that order to be pulled", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      yield* admin(env.sim, "POST", "webhooks/subscribe", { topic: "orders/create", address: `${env.url}/webhooks/${STORE}` })
      const order = yield* admin<{ legacyResourceId: string }>(env.sim, "POST", "orders", {})
      yield* eventually(Effect.sync(() => env.calls.length), (n) => n === 1, "the pipeline to be told")
      expect(env.calls).toEqual([{ storeKey: STORE, storeOrderId: order.legacyResourceId }])
      const { deliveries } = yield* admin<Deliveries>(env.sim, "GET", "webhooks")
      expect(deliveries.map((d) => d.status)).toEqual([200])
      const inbox = yield* WebhookInboxRepo
      const entries = yield* eventually(Effect.orDie(inbox.entries(STORE)), (rows) =>
        rows[0]?.processedAt !== null, "the delivery to be marked processed")
      expect(entries).toHaveLength(1)
      expect(entries[0]).toMatchObject({ source: STORE, topic: "orders/create", payload: { id: Number(order.legacyResourceId) } })
      expect(entries[0]!.deliveryId).toContain(deliveries[0]!.eventId)
    }))

  it.effect("stores and acts on a duplicated delivery once, answering 200 to every copy", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      yield* admin(env.sim, "POST", "webhooks/subscribe", { topic: "orders/create", address: `${env.url}/webhooks/${STORE}` })
      yield* admin(env.sim, "POST", "webhooks/settings", { autoDeliver: false })
      const order = yield* admin<{ legacyResourceId: string }>(env.sim, "POST", "orders", {})
      const { sent } = yield* admin<{ sent: number }>(env.sim, "POST", "webhooks/deliver", { duplicates: 2 })
      expect(sent).toBe(3)
      const { deliveries } = yield* admin<Deliveries>(env.sim, "GET", "webhooks")
      expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200])
      yield* eventually(Effect.sync(() => env.calls.length), (n) => n >= 1, "the pipeline to be told")
      yield* Effect.sleep("200 millis")
      expect(env.calls).toEqual([{ storeKey: STORE, storeOrderId: order.legacyResourceId }])
      expect(yield* inboxOf).toHaveLength(1)
    }))

  it.effect("accepts reordered deliveries of several events, each once", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      for (const topic of ["orders/create", "orders/updated"]) {
        yield* admin(env.sim, "POST", "webhooks/subscribe", { topic, address: `${env.url}/webhooks/${STORE}` })
      }
      yield* admin(env.sim, "POST", "webhooks/settings", { autoDeliver: false })
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) ids.push((yield* admin<{ legacyResourceId: string }>(env.sim, "POST", "orders", {})).legacyResourceId)
      yield* admin(env.sim, "PATCH", `orders/${ids[0]}`, { note: "gift wrap please" })
      // Newest first, and every delivery twice.
      const { sent } = yield* admin<{ sent: number }>(env.sim, "POST", "webhooks/deliver", { duplicates: 1, reorder: true })
      expect(sent).toBe(8)
      const { deliveries } = yield* admin<Deliveries>(env.sim, "GET", "webhooks")
      expect(deliveries.every((d) => d.status === 200)).toBe(true)
      expect(deliveries[0]!.orderId).toBe(Number(ids[0]))
      yield* eventually(Effect.sync(() => env.calls.length), (n) => n >= 4, "four events to reach the pipeline")
      yield* Effect.sleep("200 millis")
      expect(env.calls.map((c) => c.storeOrderId).sort()).toEqual([ids[0], ...ids].sort())
      const entries = yield* inboxOf
      expect(entries.map((e) => e.topic).sort()).toEqual(["orders/create", "orders/create", "orders/create", "orders/updated"])
    }))

  it.effect("limits bodies to 1 MiB: exactly 1 MiB is read, one byte more is refused with 413", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const exact = (size: number) => {
        const head = orderBody("5610000099", { pad: "" })
        return head.replace('"pad":""', `"pad":"${"x".repeat(size - head.length)}"`)
      }
      const oneMiB = exact(1024 * 1024)
      expect(Buffer.byteLength(oneMiB)).toBe(1024 * 1024)
      const accepted = yield* post(`${env.url}/webhooks/${STORE}`, shopifyHeaders(oneMiB, env.sim.webhookSecret), oneMiB)
      expect(accepted.status).toBe(200)
      const over = exact(1024 * 1024 + 1)
      const refused = yield* post(`${env.url}/webhooks/${STORE}`, shopifyHeaders(over, env.sim.webhookSecret), over)
      expect(refused).toEqual({ status: 413, body: { error: "payload_too_large", detail: expect.any(String) } })
      // Without a Content-Length (chunked), the limit holds while reading.
      const twoMiB = exact(2 * 1024 * 1024)
      const chunked = yield* post(`${env.url}/webhooks/${STORE}`, shopifyHeaders(twoMiB, env.sim.webhookSecret), twoMiB, true)
      expect(chunked.status).toBe(413)
      expect((yield* inboxOf).map((e) => (e.payload as { id: number }).id)).toEqual([5610000099])
    }))

  it.effect("answers 200 even when the follow-up fails, and leaves the delivery unprocessed for a later run", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const body = orderBody(FAILING_ORDER)
      const answer = yield* post(`${env.url}/webhooks/${STORE}`, shopifyHeaders(body, env.sim.webhookSecret), body)
      expect(answer).toEqual({ status: 200, body: { status: "accepted" } })
      yield* Effect.sleep("200 millis")
      const entries = yield* inboxOf
      expect(entries).toHaveLength(1)
      expect(entries[0]!.processedAt).toBeNull()
      expect(env.calls).toEqual([])
    }))
})
