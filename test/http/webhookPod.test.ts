// POST /webhooks/pod over real HTTP: hand-signed deliveries (node:crypto), real ones from the POD simulator,
// the inbox on PGlite and a PipelineTriggers port that records what it is told.
import { createHmac, randomBytes } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted, type Scope, TestClock, TestContext } from "effect"
import { PodWebhookSettings, type PodWebhookVerification, podWebhookVerification } from "../../src/http/WebhookReceiver.js"
import { PipelineTriggers } from "../../src/pipeline/PipelineTriggers.js"
import { PodClient } from "../../src/pod/PodClient.js"
import type { PodWebhookHint } from "../../src/pod/PodWebhookEvents.js"
import { WebhookInboxRepo } from "../../src/repos/WebhookInboxRepo.js"
import { startPodSimulator } from "../../src/simulator/pod/index.js"
import { StoreConnectors } from "../../src/stores/StoreConnector.js"
import { serveWebhookReceiver } from "../support/webhookServer.js"
import { pgliteDatabase } from "../support/database.js"
import { admin, draftInput, podClientLayer, PUBLISHED_TOPICS } from "../pod/podSim.js"

/** The API credentials: the service signs with the secret and sends the key (there is no webhook credential). */
const CLIENT_KEY = "sim-client-key"
const CLIENT_SECRET = "sim-client-secret"

/** `pod` as configured: the receiver's settings come from it, as the daemon's do. */
const podConfig = (webhooks: { readonly signingKey?: string; readonly clientKey?: string; readonly signedPath?: string } = {}) => ({
  clientKey: Redacted.make(CLIENT_KEY),
  clientSecret: Redacted.make(CLIENT_SECRET),
  webhooks: {
    publicUrl: "https://podsync.example.com/webhooks/pod",
    topics: [],
    version: "VERSION_V3" as const,
    ...(webhooks.signingKey === undefined ? {} : { signingKey: Redacted.make(webhooks.signingKey) }),
    ...(webhooks.clientKey === undefined ? {} : { clientKey: Redacted.make(webhooks.clientKey) }),
    ...(webhooks.signedPath === undefined ? {} : { signedPath: webhooks.signedPath })
  }
})
const settingsOf = (webhooks?: Parameters<typeof podConfig>[0]): PodWebhookVerification =>
  Option.getOrThrow(podWebhookVerification(podConfig(webhooks)))

type Hint = PodWebhookHint

/** Our routes on 127.0.0.1:0 with these settings; the recorded `podOrderChanged` hints. */
const serve = (
  settings: PodWebhookVerification
): Effect.Effect<{ url: string; hints: Array<Hint> }, never, Scope.Scope | WebhookInboxRepo> =>
  Effect.gen(function*() {
    const hints: Array<Hint> = []
    const triggers = Layer.succeed(PipelineTriggers, {
      storeChanged: () => Effect.dieMessage("not expected in the POD tests"),
      podOrderChanged: (hint) => Effect.sync(() => void hints.push(hint)),
      replanHeld: () => Effect.void
    })
    const inbox = yield* WebhookInboxRepo
    const url = yield* serveWebhookReceiver(Layer.mergeAll(
      triggers,
      Layer.succeed(WebhookInboxRepo, inbox),
      Layer.succeed(StoreConnectors, new Map()),
      Layer.succeed(PodWebhookSettings, Option.some(settings))
    ))
    return { url, hints }
  })

/** A POD simulator that delivers webhooks 10 ms after their event, for the test's scope, and a client of it. */
const deliveringSimulator = Effect.gen(function*() {
  const sim = yield* Effect.acquireRelease(
    Effect.promise(() => startPodSimulator({ rateLimit: false, webhookDeliveryDelayMs: 10 })),
    (running) => Effect.promise(() => running.close())
  )
  const client = yield* Layer.build(podClientLayer(sim.url)).pipe(Effect.map((context) => Context.get(context, PodClient)))
  return { sim, client }
})

/** The wall clock, for the live tests' default timestamp; the TestClock test passes its timestamps explicitly. */
const wallNow = Effect.sync(() => Date.now())

interface Signed {
  readonly body?: string | Buffer
  readonly timestamp?: string
  readonly nonce?: string
  readonly path?: string
  readonly key?: string
  /** The signature's encoding: as published (base64url with padding, the default), hex, or base64url without padding. */
  readonly encoding?: "published" | "hex" | "base64url"
  /** The body's base64url in the signed text: padded as the Go sample (default), or not as the NodeJS sample. */
  readonly bodyPadding?: "padded" | "unpadded"
  readonly headers?: Record<string, string>
}

/** base64url WITH `=` padding, as the Go sample writes it. */
const goBase64Url = (bytes: Buffer) => bytes.toString("base64").replaceAll("+", "-").replaceAll("/", "_")

/** Posts a delivery signed as the service signs it (written out here, independently of the code under test); answers status and JSON body. */
const deliver = (url: string, options: Signed = {}) =>
  Effect.gen(function*() {
    const body = options.body ??
      JSON.stringify({ type: "order_completed", order: { gearment_id: "ord_1", reference: "acme-shopify:1001", vendor_id: "1001" } })
    const timestamp = options.timestamp ?? String(Math.floor((yield* wallNow) / 1000))
    const nonce = options.nonce ?? randomBytes(10).toString("base64")
    const encodedBody = options.bodyPadding === "unpadded" ? Buffer.from(body).toString("base64url") : goBase64Url(Buffer.from(body))
    const digest = createHmac("sha256", options.key ?? CLIENT_SECRET).update(
      (options.path ?? "/webhooks/pod") + nonce + timestamp + encodedBody
    ).digest()
    const signature = options.encoding === "hex"
      ? digest.toString("hex")
      : options.encoding === "base64url"
      ? digest.toString("base64url")
      : goBase64Url(digest)
    return yield* Effect.promise(async () => {
      const response = await fetch(`${url}/webhooks/pod`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-connect-timestamp": timestamp,
          "x-connect-nonce": nonce,
          "x-connect-signature": signature,
          "x-connect-client-key": CLIENT_KEY,
          ...options.headers
        },
        // A Uint8Array, not the Buffer itself: the DOM's fetch types (which preact's bring in) take no Buffer.
        body: typeof body === "string" ? body : new Uint8Array(body)
      })
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    })
  })

const InboxLive = WebhookInboxRepo.Default.pipe(Layer.provide(pgliteDatabase().layer))

class Env extends Context.Tag("test/PodWebhookEnv")<Env, { readonly url: string; readonly hints: Array<Hint> }>() {}

// The default settings: the client secret keys the HMAC, X-Connect-Client-Key must be the client key.
const EnvLive = Layer.scoped(Env, serve(settingsOf())).pipe(Layer.provideMerge(InboxLive))

const podEntries = Effect.flatMap(WebhookInboxRepo, (inbox) => inbox.entries("pod")).pipe(Effect.orDie)

const settle = Effect.sleep("150 millis")

layer(EnvLive, { excludeTestServices: true })("POST /webhooks/pod", (it) => {
  const fresh = Effect.gen(function*() {
    const env = yield* Env
    env.hints.length = 0
    yield* (yield* WebhookInboxRepo).pruneReceivedBefore(new Date(Date.now() + 86_400_000))
    return env
  })

  it("verifies with the API client secret by default and checks the client key; a configured signing key overrides both", () => {
    expect(settingsOf()).toEqual({ signingKey: Redacted.make(CLIENT_SECRET), clientKey: Redacted.make(CLIENT_KEY) })
    const defaults = settingsOf()
    expect([Redacted.value(defaults.signingKey), defaults.clientKey && Redacted.value(defaults.clientKey)]).toEqual([
      CLIENT_SECRET,
      CLIENT_KEY
    ])
    // An older configuration with its own key and no client key: no client key check, as before.
    const legacy = settingsOf({ signingKey: "legacy-webhook-key" })
    expect([Redacted.value(legacy.signingKey), legacy.clientKey]).toEqual(["legacy-webhook-key", undefined])
    const both = settingsOf({ signingKey: "legacy-webhook-key", clientKey: "legacy-client", signedPath: "/hooks/pod" })
    expect([Redacted.value(both.signingKey), both.clientKey && Redacted.value(both.clientKey), both.signedPath]).toEqual([
      "legacy-webhook-key",
      "legacy-client",
      "/hooks/pod"
    ])
    expect(podWebhookVerification({ clientKey: Redacted.make(CLIENT_KEY), clientSecret: Redacted.make(CLIENT_SECRET) })).toEqual(
      Option.none()
    )
  })

  it.effect("accepts the published signature, hex and unpadded base64url, and follows the order up", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      expect(yield* deliver(env.url)).toEqual({ status: 200, body: { status: "accepted" } })
      expect((yield* deliver(env.url, { encoding: "hex" })).status).toBe(200)
      expect((yield* deliver(env.url, { encoding: "base64url" })).status).toBe(200)
      yield* settle
      const hint = { topic: "order_completed", event: "order_completed", podOrderId: "ord_1", referenceId: "acme-shopify:1001" }
      expect(env.hints).toEqual([hint, hint, hint])
      expect((yield* podEntries).map((e) => e.topic)).toEqual(["order_completed", "order_completed", "order_completed"])
    }))

  it.effect("accepts the body's base64url padded (Go sample) and unpadded (NodeJS sample), whatever the body's length", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const base = JSON.stringify({ type: "order_on_hold", order: { gearment_id: "ord_2", reference: "acme-shopify:2" } })
      for (const body of [base, `${base} `, `${base}  `]) {
        for (const bodyPadding of ["padded", "unpadded"] as const) {
          expect((yield* deliver(env.url, { body, bodyPadding })).status, `${body.length % 3} ${bodyPadding}`).toBe(200)
        }
      }
      yield* settle
      expect(env.hints).toHaveLength(6)
    }))

  it.effect("verifies with a configured signing key instead, and then checks no client key", () =>
    Effect.gen(function*() {
      yield* fresh
      const { url, hints } = yield* serve(settingsOf({ signingKey: "legacy-webhook-key" }))
      expect((yield* deliver(url, { key: "legacy-webhook-key", headers: { "x-connect-client-key": "anything" } })).status).toBe(200)
      expect((yield* deliver(url)).body["error"]).toBe("bad_signature")
      yield* settle
      expect(hints).toHaveLength(1)
    }).pipe(Effect.scoped))

  it.effect("accepts timestamps in seconds and in milliseconds", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const now = Date.now()
      expect((yield* deliver(env.url, { timestamp: String(Math.floor(now / 1000)) })).status).toBe(200)
      expect((yield* deliver(env.url, { timestamp: String(now) })).status).toBe(200)
      expect(yield* podEntries).toHaveLength(2)
    }))

  it.effect("refuses a forged delivery (wrong or missing signature, wrong key, stale timestamp, wrong client key) with 401 and nothing stored", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const wrongKey = yield* deliver(env.url, { key: "guessed-key" })
      expect(wrongKey).toEqual({ status: 401, body: { error: "bad_signature", detail: expect.any(String) } })
      // A key that would have been right for the old separate webhook credential is just another wrong key now.
      expect((yield* deliver(env.url, { key: "sim-webhook-key" })).body["error"]).toBe("bad_signature")
      // Signed with the client key (public) instead of the secret.
      expect((yield* deliver(env.url, { key: CLIENT_KEY })).body["error"]).toBe("bad_signature")
      const stale = String(Math.floor(Date.now() / 1000) - 400)
      expect((yield* deliver(env.url, { timestamp: stale })).body["error"]).toBe("stale_timestamp")
      // A rejection never names a secret.
      for (const refused of [wrongKey, yield* deliver(env.url, { headers: { "x-connect-client-key": "another-client" } })]) {
        expect(JSON.stringify(refused.body)).not.toContain(CLIENT_SECRET)
        expect(JSON.stringify(refused.body)).not.toContain(CLIENT_KEY)
      }
      // Signed for another path than the one it arrived on.
      expect((yield* deliver(env.url, { path: "/somewhere/else" })).body["error"]).toBe("bad_signature")
      expect((yield* deliver(env.url, { headers: { "x-connect-signature": "" } })).body["error"]).toBe("missing_headers")
      expect((yield* deliver(env.url, { headers: { "x-connect-client-key": "another-client" } })).body["error"]).toBe("wrong_client_key")
      yield* settle
      expect(yield* podEntries).toEqual([])
      expect(env.hints).toEqual([])
    }))

  it.effect("answers a replayed nonce 200 without acting on it again", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const first = yield* deliver(env.url, { nonce: "nonce-once" })
      const replay = yield* deliver(env.url, { nonce: "nonce-once" })
      expect(first.status).toBe(200)
      expect([first.body, replay.body]).toEqual([{ status: "accepted" }, { status: "duplicate" }])
      expect(replay.status).toBe(200)
      yield* settle
      expect(env.hints).toHaveLength(1)
      expect((yield* podEntries).map((e) => e.deliveryId)).toEqual(["nonce-once"])
    }))

  it.effect("refuses a 2 MiB body with 413", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const big = JSON.stringify({ type: "order_completed", pad: "x".repeat(2 * 1024 * 1024) })
      expect(yield* deliver(env.url, { body: big })).toEqual({
        status: 413,
        body: { error: "payload_too_large", detail: expect.any(String) }
      })
      expect(yield* podEntries).toEqual([])
    }))

  it.effect("stores a correctly signed body that is not JSON and answers 200, following nothing up", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      expect(yield* deliver(env.url, { body: "type=order_completed&id=7" })).toEqual({
        status: 200,
        body: { status: "accepted", ignored: "not_json" }
      })
      yield* settle
      expect(env.hints).toEqual([])
      expect((yield* podEntries).map((e) => e.payload)).toEqual([{ unreadable: "type=order_completed&id=7" }])
    }))

  it.effect("reads V1 payloads", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const body = JSON.stringify({
        api_key: CLIENT_KEY,
        type: "shipping_address_verified",
        data: {
          gearment_ord_id: "ord_9",
          gearment_ord_name: "#9",
          ord_status: "pending",
          order_id: "acme-shopify:9",
          verify_address: "verified"
        }
      })
      expect((yield* deliver(env.url, { body })).status).toBe(200)
      yield* settle
      expect(env.hints).toEqual([
        {
          podOrderId: "ord_9",
          referenceId: "acme-shopify:9",
          topic: "shipping_address_verified",
          event: "shipping_address_verified",
          addressVerified: true
        }
      ])
      // The API key the V1 body carries is held as a secret: not stored with the delivery.
      expect((yield* podEntries)[0]?.payload).toMatchObject({ api_key: "(redacted)", type: "shipping_address_verified" })
      expect(JSON.stringify((yield* podEntries)[0]?.payload)).not.toContain(CLIENT_KEY)
    }))

  it.effect("answers 200 and records a variant event, an unknown type and an order podsync does not know, acting only on the last", () =>
    Effect.gen(function*() {
      const env = yield* fresh
      const variantEvent = JSON.stringify({ type: "variant_updated", variant: { variant_id: "GM0002003147", stock_label: "out_of_stock" } })
      const unknownType = JSON.stringify({ type: "order_in_production", order: { gearment_id: "ord_7", reference: "acme-shopify:7" } })
      const unknownOrder = JSON.stringify({
        type: "order_cancelled",
        order: { gearment_id: "ord_404", reference: "someone-else:404", status: "cancelled" }
      })
      expect(yield* deliver(env.url, { body: variantEvent })).toEqual({
        status: 200,
        body: { status: "accepted", ignored: "event_not_acted_on" }
      })
      expect(yield* deliver(env.url, { body: unknownType })).toEqual({
        status: 200,
        body: { status: "accepted", ignored: "event_not_acted_on" }
      })
      // Whether podsync knows the order is for the follow-up to find (it reads nothing for a reference it never made).
      expect(yield* deliver(env.url, { body: unknownOrder })).toEqual({ status: 200, body: { status: "accepted" } })
      yield* settle
      expect((yield* podEntries).map((e) => e.topic)).toEqual(["variant_updated", "order_in_production", "order_cancelled"])
      expect(env.hints).toEqual([{
        topic: "order_cancelled",
        event: "order_cancelled",
        podOrderId: "ord_404",
        referenceId: "someone-else:404"
      }])
    }))

  it.effect("receives the POD simulator's real deliveries as an order ships, duplicated and reordered too", () =>
    Effect.scoped(Effect.gen(function*() {
      const env = yield* fresh
      const { sim, client } = yield* deliveringSimulator
      for (const topic of ["TOPIC_SHIPPING_ADDRESS_VERIFIED", "TOPIC_TRACKING_ORDER_UPDATED", "TOPIC_ORDER_COMPLETED"] as const) {
        yield* client.createWebhook({ status: "STATUS_ACTIVE", topic, version: "VERSION_V3", delivery_url: `${env.url}/webhooks/pod` })
      }
      // A V1 subscription too (another URL for the same path, so the service takes it).
      yield* client.createWebhook({
        status: "STATUS_ACTIVE",
        topic: "TOPIC_ORDER_COMPLETED",
        version: "VERSION_V1",
        delivery_url: `${env.url}/webhooks/pod?v=1`
      })
      const variants = yield* client.listCatalogVariants({
        filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"] },
        paging: { limit: 1 }
      })
      const draft = yield* client.createDraft(draftInput(variants.data[0]!.variant_id, "acme-shopify:5610000042"))

      const checkedOut = yield* Effect.promise(() =>
        admin<{ order_id: string }>(sim.url, "POST", `/drafts/${draft.order_id}/checkout`, { paid: true })
      )
      const shipped = yield* Effect.promise(() =>
        admin<{ order_status: string }>(sim.url, "POST", `/orders/${checkedOut.order_id}/ship`, {
          trackings: [{ tracking_no: "1Z999AA10123456784", carrier: "UPS" }]
        })
      )
      expect(shipped.order_status).toBe("VENDOR_ORDER_STATUS_SHIPPED")
      type Attempt = { topic: string; status: number | null; duplicate: boolean; nonce: string }
      const attempts = () => Effect.promise(() => admin<Array<Attempt>>(sim.url, "GET", "/webhooks/deliveries"))
      const delivered = yield* waitFor(attempts(), (list) => list.length === 4 && list.every((a) => a.status !== null))
      expect(delivered.map((a) => a.status)).toEqual([200, 200, 200, 200])
      yield* waitFor(Effect.sync(() => env.hints.length), (n) => n === 4)
      const expected = { podOrderId: checkedOut.order_id, referenceId: "acme-shopify:5610000042" }
      expect(env.hints.map((h) => ({ podOrderId: h.podOrderId, referenceId: h.referenceId }))).toEqual([
        expected,
        expected,
        expected,
        expected
      ])
      expect(env.hints.filter((h) => h.event !== "shipping_address_verified").every((h) => h.trackingNumber === "1Z999AA10123456784")).toBe(
        true
      )
      // The event's type travels with the hint: status events can be answered by a list, package events are read whole.
      expect(env.hints.map((h) => h.topic).sort()).toEqual([
        "order_completed",
        "order_completed",
        "shipping_address_verified",
        "tracking_order_updated"
      ])
      expect((yield* podEntries).map((e) => e.topic).sort()).toEqual([
        "order_completed",
        "order_completed",
        "shipping_address_verified",
        "tracking_order_updated"
      ])

      // Queued deliveries sent at once, newest first, each twice: every copy answered 200.
      yield* Effect.promise(() => admin(sim.url, "POST", "/webhooks/auto", { enabled: false }))
      yield* Effect.promise(() =>
        admin(sim.url, "POST", `/orders/${checkedOut.order_id}/ship`, { trackings: [{ tracking_no: "1Z999AA10123456785" }] })
      )
      const { sent } = yield* Effect.promise(() =>
        admin<{ sent: number }>(sim.url, "POST", "/webhooks/deliver", { duplicates: 1, reorder: true })
      )
      expect(sent).toBe(2)
      const all = yield* attempts()
      expect(all.slice(4).map((a) => [a.topic, a.status, a.duplicate])).toEqual([
        ["TOPIC_TRACKING_ORDER_UPDATED", 200, false],
        ["TOPIC_TRACKING_ORDER_UPDATED", 200, true]
      ])
      // The service gives every copy a fresh nonce, so each is a (harmless) hint of its own.
      yield* waitFor(Effect.sync(() => env.hints.length), (n) => n === 6)
      expect(new Set((yield* podEntries).map((e) => e.deliveryId))).toEqual(new Set(all.map((a) => a.nonce)))
    })))

  it.effect("verifies and acts on every published event in both versions, as the POD simulator sends them", () =>
    Effect.scoped(Effect.gen(function*() {
      const env = yield* fresh
      // The simulator's defaults are the published ones: it signs with the client secret and sends the client key.
      const { sim, client } = yield* deliveringSimulator
      const topics = PUBLISHED_TOPICS
      for (const topic of topics) {
        yield* client.createWebhook({ status: "STATUS_ACTIVE", topic, version: "VERSION_V3", delivery_url: `${env.url}/webhooks/pod` })
        yield* client.createWebhook({ status: "STATUS_ACTIVE", topic, version: "VERSION_V1", delivery_url: `${env.url}/webhooks/pod?v=1` })
      }
      const variants = yield* client.listCatalogVariants({
        filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"] },
        paging: { limit: 1 }
      })
      const variantId = variants.data[0]!.variant_id
      const input = draftInput(variantId, "acme-shopify:77")
      const draft = yield* client.createDraft({ ...input, address: { ...input.address, zip_code: "00000" } })
      yield* Effect.promise(() => admin(sim.url, "POST", `/drafts/${draft.order_id}/address-verification`, { verified: true }))
      const { order_id: orderId } = yield* Effect.promise(() =>
        admin<{ order_id: string }>(sim.url, "POST", `/drafts/${draft.order_id}/checkout`, { paid: true })
      )
      yield* Effect.promise(() => admin(sim.url, "POST", `/variants/${variantId}/stock`, { label: "OUT_OF_STOCK" }))
      yield* Effect.promise(() => admin(sim.url, "POST", `/orders/${orderId}/hold`))
      yield* Effect.promise(() => admin(sim.url, "POST", `/orders/${orderId}/cancel`))
      yield* Effect.promise(() => admin(sim.url, "POST", "/ship-all"))
      const other = yield* client.createDraft(draftInput(variants.data[0]!.variant_id, "acme-shopify:78"))
      const { order_id: shippedId } = yield* Effect.promise(() =>
        admin<{ order_id: string }>(sim.url, "POST", `/drafts/${other.order_id}/checkout`, { paid: true })
      )
      yield* Effect.promise(() =>
        admin(sim.url, "POST", `/orders/${shippedId}/ship`, { trackings: [{ tracking_no: "9400111899223100001234", carrier: "USPS" }] })
      )

      // unverified, verified (by hand and at checkout), out of stock, on hold, cancelled; verified, tracking, completed: 9 events, twice.
      type Attempt = { type: string; version: string; status: number | null }
      const attempts = () => Effect.promise(() => admin<Array<Attempt>>(sim.url, "GET", "/webhooks/deliveries"))
      const delivered = yield* waitFor(attempts(), (list) => list.length === 18 && list.every((a) => a.status !== null))
      expect(delivered.map((a) => a.status)).toEqual(Array(18).fill(200))
      expect(new Set(delivered.map((a) => a.type))).toEqual(
        new Set([
          "shipping_address_unverified",
          "shipping_address_verified",
          "product_out_of_stock",
          "order_on_hold",
          "order_cancelled",
          "tracking_order_updated",
          "tracking_updated",
          "order_completed"
        ])
      )
      yield* waitFor(Effect.sync(() => env.hints.length), (n) => n === 18)
      const count = (event: string) => env.hints.filter((h) => h.event === event).length
      expect([
        count("shipping_address_unverified"),
        count("shipping_address_verified"),
        count("product_out_of_stock"),
        count("order_on_hold"),
        count("order_cancelled"),
        count("tracking_updated"),
        count("order_completed")
      ]).toEqual([2, 6, 2, 2, 2, 2, 2])
      // Every hint names its order both ways: the service's id (the draft's before checkout) and our reference.
      for (const hint of env.hints) {
        expect([draft.order_id, orderId, shippedId]).toContain(hint.podOrderId)
        expect(["acme-shopify:77", "acme-shopify:78"]).toContain(hint.referenceId)
      }
      expect(env.hints.filter((h) => h.event === "shipping_address_unverified").map((h) => [h.podOrderId, h.addressVerified])).toEqual([
        [draft.order_id, false],
        [draft.order_id, false]
      ])
      expect(env.hints.filter((h) => h.event === "product_out_of_stock").map((h) => h.variantIds)).toEqual([[variantId], [variantId]])
      expect(env.hints.filter((h) => h.event === "tracking_updated").map((h) => h.trackingNumber)).toEqual([
        "9400111899223100001234",
        "9400111899223100001234"
      ])
      expect(yield* podEntries).toHaveLength(18)
    })))

  it.effect("uses the Clock for staleness and the configured signed path (TestClock)", () =>
    Effect.gen(function*() {
      yield* fresh
      const T0 = Date.parse("2026-11-21T12:00:00Z")
      yield* TestClock.setTime(T0)
      const { url, hints } = yield* serve(settingsOf({ signedPath: "/hooks/podsync", clientKey: "not checked here" }))
      const seconds = (ms: number) => String(Math.floor(ms / 1000))
      const signedAtT0 = { path: "/hooks/podsync", timestamp: seconds(T0), headers: { "x-connect-client-key": "not checked here" } }

      expect((yield* deliver(url, signedAtT0)).status).toBe(200)
      // Signed over the path it arrived on rather than the configured one: refused.
      expect((yield* deliver(url, { ...signedAtT0, path: "/webhooks/pod" })).body["error"]).toBe("bad_signature")
      expect((yield* deliver(url, { ...signedAtT0, timestamp: seconds(T0 - 301_000) })).body["error"]).toBe("stale_timestamp")
      expect((yield* deliver(url, { ...signedAtT0, timestamp: String(T0 + 301_000) })).body["error"]).toBe("stale_timestamp")

      yield* TestClock.adjust("4 minutes")
      expect((yield* deliver(url, signedAtT0)).status).toBe(200)
      yield* TestClock.adjust("2 minutes")
      const late = yield* deliver(url, signedAtT0)
      expect(late).toEqual({ status: 401, body: { error: "stale_timestamp", detail: expect.any(String) } })
      expect((yield* deliver(url, { ...signedAtT0, timestamp: seconds(T0 + 360_000) })).status).toBe(200)

      const entries = yield* podEntries
      expect(entries).toHaveLength(3)
      // The inbox stamps receipt with the same clock.
      expect(entries.map((e) => e.receivedAt.getTime())).toEqual([T0, T0 + 240_000, T0 + 360_000])
      // The follow-ups run in the background; give them a real moment (the TestClock does not move here).
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
      expect(hints).toHaveLength(3)
    }).pipe(Effect.scoped, Effect.provide(TestContext.TestContext)))
})

/** Polls (real time) until `check` holds. */
const waitFor = <A, E>(probe: Effect.Effect<A, E>, check: (a: A) => boolean, timeoutMs = 5_000): Effect.Effect<A, E> =>
  Effect.gen(function*() {
    const started = Date.now()
    for (;;) {
      const value = yield* probe
      if (check(value) || Date.now() - started > timeoutMs) return value
      yield* Effect.sleep("20 millis")
    }
  })
