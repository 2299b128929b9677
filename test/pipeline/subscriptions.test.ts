// PodWebhookSubscriptions.ensure against the POD simulator over real HTTP, and its plan (pure).
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Schema, TestClock } from "effect"
import { PodConfig } from "../../src/config/AppConfig.js"
import { PodWebhookSubscriptions, planSubscriptions, type SubscriptionTarget } from "../../src/pipeline/PodWebhookSubscriptions.js"
import { PodClient } from "../../src/pod/PodClient.js"
import { type Webhook, WebhookListResponse } from "../../src/pod/schemas/Webhooks.js"
import { startPodSimulator } from "../../src/simulator/pod/index.js"
import { podClientLayer, stats } from "../pod/podSim.js"

const PUBLIC_URL = "https://podsync.example.com/webhooks/pod"

const target: SubscriptionTarget = {
  publicUrl: PUBLIC_URL,
  topics: ["TOPIC_TRACKING_ORDER_UPDATED", "TOPIC_ORDER_COMPLETED", "TOPIC_ORDER_CANCELLED"],
  version: "VERSION_V3"
}

/** The simulator, a client on it, and the keeper built from `config`. */
const setup = (config: SubscriptionTarget | undefined) =>
  Effect.gen(function*() {
    const sim = yield* Effect.acquireRelease(
      Effect.promise(() => startPodSimulator({ rateLimit: false })),
      (running) => Effect.promise(() => running.close())
    )
    const clientLayer = podClientLayer(sim.url)
    const context = yield* Layer.build(Layer.merge(clientLayer, PodWebhookSubscriptions.Default(config).pipe(Layer.provide(clientLayer))))
    return { sim, pod: Context.get(context, PodClient), keeper: Context.get(context, PodWebhookSubscriptions) }
  })

const listAll = (pod: PodClient) =>
  Effect.map(
    pod.listWebhooks({ paging: { limit: 100 } }),
    (page) => page.data.map((w) => ({ id: w.webhook_id, topic: w.topic, version: w.version, url: w.delivery_url, status: w.status }))
  )

const webhookRequests = async (url: string) => {
  const { requests } = await stats(url)
  return Object.fromEntries(Object.entries(requests).filter(([key]) => key.includes("/api/v3/webhooks")))
}

describe("PodWebhookSubscriptions.ensure", () => {
  it.scopedLive("creates what is missing, keeps what is right, deletes our stale ones, and leaves others alone", () =>
    Effect.gen(function*() {
      const { sim, pod, keeper } = yield* setup(target)
      const create = (
        topic: "TOPIC_ORDER_COMPLETED" | "TOPIC_PRODUCT_OUT_OF_STOCK" | "TOPIC_ORDER_CANCELLED" | "TOPIC_TRACKING_ORDER_UPDATED",
        version: "VERSION_V1" | "VERSION_V3",
        url: string,
        status: "STATUS_ACTIVE" | "STATUS_INACTIVE" = "STATUS_ACTIVE"
      ) => Effect.map(pod.createWebhook({ status, topic, version, delivery_url: url }), (w) => w.webhook_id)
      const kept = yield* create("TOPIC_ORDER_COMPLETED", "VERSION_V3", PUBLIC_URL)
      const staleTopic = yield* create("TOPIC_PRODUCT_OUT_OF_STOCK", "VERSION_V3", PUBLIC_URL)
      const staleVersion = yield* create("TOPIC_ORDER_CANCELLED", "VERSION_V1", PUBLIC_URL)
      const inactive = yield* create(
        "TOPIC_TRACKING_ORDER_UPDATED",
        "VERSION_V3",
        "https://PODSYNC.example.com/webhooks/pod/",
        "STATUS_INACTIVE"
      )
      const foreign = yield* create("TOPIC_PRODUCT_OUT_OF_STOCK", "VERSION_V1", "https://erp.example.com/hooks/pod")
      const foreignSameHost = yield* create("TOPIC_ORDER_COMPLETED", "VERSION_V1", "https://podsync.example.com/other-app")

      const report = yield* keeper.ensure
      expect(report.kept).toEqual([kept])
      expect(report.deleted.map((d) => d.webhookId).sort()).toEqual([staleTopic, staleVersion, inactive].sort())
      expect(report.created.map((c) => c.topic).sort()).toEqual(["TOPIC_ORDER_CANCELLED", "TOPIC_TRACKING_ORDER_UPDATED"])
      expect(report.failed).toEqual([])

      const after = yield* listAll(pod)
      const ours = after.filter((w) => w.url === PUBLIC_URL)
      expect(ours.map((w) => w.topic).sort()).toEqual([...target.topics].sort())
      expect(ours.every((w) => w.version === "VERSION_V3" && w.status === "STATUS_ACTIVE")).toBe(true)
      expect(after.map((w) => w.id)).toEqual(expect.arrayContaining([kept, foreign, foreignSameHost]))
      expect(after).toHaveLength(5)

      // A second run finds everything in place: one listing, no writes.
      const before = yield* Effect.promise(() => webhookRequests(sim.url))
      const again = yield* keeper.ensure
      expect(again.created).toEqual([])
      expect(again.deleted).toEqual([])
      expect(again.kept).toHaveLength(3)
      const afterSecond = yield* Effect.promise(() => webhookRequests(sim.url))
      expect(afterSecond["GET /api/v3/webhooks"]).toBe((before["GET /api/v3/webhooks"] ?? 0) + 1)
      expect(afterSecond["POST /api/v3/webhooks"]).toBe(before["POST /api/v3/webhooks"])
      expect(afterSecond["DELETE /api/v3/webhooks/:webhook_id"] ?? 0).toBe(before["DELETE /api/v3/webhooks/:webhook_id"] ?? 0)
      expect(yield* listAll(pod)).toEqual(after)
    }))

  it.scopedLive("subscribes every default topic, address and stock ones included, on an account with none (a list answer with no `data`)", () =>
    Effect.gen(function*() {
      // The defaults as the configuration decodes them.
      const pod = Schema.decodeUnknownSync(PodConfig)({
        baseUrl: "https://pod.example.com",
        clientKey: "k",
        clientSecret: "s",
        webhooks: { publicUrl: PUBLIC_URL }
      })
      const defaults = PodWebhookSubscriptions.targetFromConfig(pod.webhooks)!
      expect(defaults.topics).toEqual(expect.arrayContaining(["TOPIC_SHIPPING_ADDRESS_UNVERIFIED", "TOPIC_PRODUCT_OUT_OF_STOCK"]))
      expect(defaults.topics).toHaveLength(7)
      const { sim, pod: client, keeper } = yield* setup(defaults)
      // Protobuf JSON leaves the empty list out.
      const empty = yield* Effect.promise(() =>
        fetch(`${sim.url}/api/v3/webhooks`, {
          headers: { "X-Gearment-Client-Key": "sim-client-key", "X-Gearment-Client-Secret": "sim-client-secret" }
        })
          .then((r) => r.json() as Promise<Record<string, unknown>>)
      )
      expect(empty).not.toHaveProperty("data")
      const report = yield* keeper.ensure
      expect(report.created.map((c) => c.topic).sort()).toEqual([...defaults.topics].sort())
      expect(report.failed).toEqual([])
      expect((yield* listAll(client)).map((w) => w.topic).sort()).toEqual([...defaults.topics].sort())
    }))

  it.scoped("asks again, seconds apart, when the listing fails on the service's side, then subscribes", () =>
    Effect.gen(function*() {
      const { sim, keeper } = yield* setup(target)
      // The service fails the first two listings (503), as it may at a daemon's start.
      const fault = yield* Effect.promise(() =>
        fetch(`${sim.url}/__sim/faults`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ kind: "error5xx", route: "GET /api/v3/webhooks", status: 503, count: 2 })
        })
      )
      expect(fault.status).toBe(200)
      const running = yield* Effect.fork(keeper.ensure)
      // The retries wait on the (test) clock: move it a second at a time, letting the real HTTP answer in between.
      for (let turn = 0; turn < 60 && (yield* Fiber.poll(running))._tag === "None"; turn++) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        yield* TestClock.adjust("1 second")
      }
      const report = yield* Fiber.join(running)
      expect(report.created.map((c) => c.topic).sort()).toEqual([...target.topics].sort())
      expect((yield* Effect.promise(() => webhookRequests(sim.url)))["GET /api/v3/webhooks"]).toBe(3)
    }))

  it.scoped("fails at once on a listing the service refuses (no retry can change it)", () =>
    Effect.gen(function*() {
      const { sim, keeper } = yield* setup(target)
      yield* Effect.promise(() =>
        fetch(`${sim.url}/__sim/faults`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ kind: "error5xx", route: "GET /api/v3/webhooks", status: 400, count: 1 })
        })
      )
      const outcome = yield* Effect.either(keeper.ensure)
      expect(outcome._tag).toBe("Left")
      expect((yield* Effect.promise(() => webhookRequests(sim.url)))["GET /api/v3/webhooks"]).toBe(1)
    }))

  it("reads a list answer without `data` as no subscriptions", () => {
    const decode = Schema.decodeUnknownSync(WebhookListResponse, { onExcessProperty: "error" })
    expect(decode({ status: "success", message: "OK", paging: { total: "0", page: 1, limit: 20 } }).data).toEqual([])
    expect(decode({ status: "success", data: null }).data).toEqual([])
    expect(decode({}).data).toEqual([])
  })

  it.scopedLive("does nothing at all when no public URL is configured", () =>
    Effect.gen(function*() {
      const { sim, keeper } = yield* setup(undefined)
      expect(yield* keeper.ensure).toEqual({ kept: [], created: [], deleted: [], unsupported: [], failed: [] })
      expect(yield* Effect.promise(() => webhookRequests(sim.url))).toEqual({})
    }))

  it.scopedLive("reports a refused create and carries on with the other topics", () =>
    Effect.gen(function*() {
      // The service wants HTTPS; this one also refuses plain HTTP delivery URLs.
      const sim = yield* Effect.acquireRelease(
        Effect.promise(() => startPodSimulator({ rateLimit: false, allowHttpDelivery: false })),
        (running) => Effect.promise(() => running.close())
      )
      const keeper = yield* Layer.build(
        PodWebhookSubscriptions.Default({ ...target, publicUrl: "http://podsync.example.com/webhooks/pod" }).pipe(
          Layer.provide(podClientLayer(sim.url))
        )
      ).pipe(Effect.map((context) => Context.get(context, PodWebhookSubscriptions)))
      const report = yield* keeper.ensure
      expect(report.created).toEqual([])
      expect(report.failed.map((f) => [f.action, f.target])).toEqual(target.topics.map((topic) => ["create", topic]))
      expect(report.failed[0]!.error).toContain("delivery URL")
      const pod = yield* Layer.build(podClientLayer(sim.url)).pipe(Effect.map((context) => Context.get(context, PodClient)))
      expect(yield* listAll(pod)).toEqual([])
    }))
})

describe("planSubscriptions (pure)", () => {
  const webhook = (id: string, topic: string, overrides: Partial<Webhook> = {}): Webhook =>
    ({ webhook_id: id, topic, status: "STATUS_ACTIVE", version: "VERSION_V3", delivery_url: PUBLIC_URL, ...overrides }) as Webhook

  it("keeps one subscription per topic and deletes a second one", () => {
    const plan = planSubscriptions([webhook("a", "TOPIC_ORDER_COMPLETED"), webhook("b", "TOPIC_ORDER_COMPLETED")], target)
    expect(plan.keep.map((w) => w.webhook_id)).toEqual(["a"])
    expect(plan.remove.map((w) => w.webhook_id)).toEqual(["b"])
    expect(plan.create).toEqual(["TOPIC_TRACKING_ORDER_UPDATED", "TOPIC_ORDER_CANCELLED"])
  })

  it("reads the create operation's topic names as the schema's", () => {
    const plan = planSubscriptions([
      webhook("a", "VENDOR_WEBHOOK_TOPIC_ORDER_CANCELED"),
      webhook("b", "VENDOR_WEBHOOK_TOPIC_TRACKING_UPDATED")
    ], target)
    expect(plan.keep.map((w) => w.webhook_id)).toEqual(["a", "b"])
    expect(plan.create).toEqual(["TOPIC_ORDER_COMPLETED"])
  })

  it("treats a store-scoped or differently written URL of ours as stale, and reports unknown topics", () => {
    const plan = planSubscriptions(
      [
        webhook("a", "TOPIC_ORDER_COMPLETED", { store_id: "store-1" }),
        webhook("b", "TOPIC_ORDER_CANCELLED", { delivery_url: `${PUBLIC_URL}?v=1` })
      ],
      { ...target, topics: [...target.topics, "TOPIC_SOMETHING_NEW"] }
    )
    expect(plan.keep).toEqual([])
    expect(plan.remove.map((w) => w.webhook_id)).toEqual(["a", "b"])
    expect(plan.unsupported).toEqual(["TOPIC_SOMETHING_NEW"])
  })
})
