// Back-pressure of the webhook receivers over real HTTP: a real Shopify connector, the inbox on PGlite
// and (when TEST_DATABASE_URL is set) real PostgreSQL, stalled by a transaction that holds the inbox.
// Above what the database commits, deliveries are answered 503 with Retry-After and counted; none is
// lost, since the sender retries and a retry is stored once.
import { Agent } from "node:http"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option, Schedule } from "effect"
import { sql } from "kysely"
import { send, signedDelivery, type Target } from "../../bench/webhook-load.js"
import { Db } from "../../src/db/Db.js"
import { PodWebhookSettings, WebhookIntakeSettings } from "../../src/http/WebhookReceiver.js"
import { MetricsRegistry } from "../../src/observability/MetricsRegistry.js"
import { WebhookMetrics, WebhookMetricsLive } from "../../src/observability/WebhookMetrics.js"
import { PipelineTriggers } from "../../src/pipeline/PipelineTriggers.js"
import { WebhookInboxRepo } from "../../src/repos/WebhookInboxRepo.js"
import { StoreConnectors } from "../../src/stores/StoreConnector.js"
import { testDatabases } from "../support/database.js"
import { serveWebhookReceiver } from "../support/webhookServer.js"
import { connectTo, startSimulator } from "../stores/shopify/harness.js"

const STORE = "acme-shopify"
const MAX_WAITING = 5
const MAX_WAIT_SECONDS = 1

const answered = (target: Target, deliveries: ReadonlyArray<ReturnType<typeof signedDelivery>>) =>
  Effect.promise(async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: deliveries.length })
    try {
      return await Promise.all(deliveries.map((delivery) => send(agent, target, delivery, true)))
    } finally {
      agent.destroy()
    }
  })

/**
 * Holds the inbox in a transaction (an exclusive lock on PostgreSQL; PGlite's one connection)
 * until the returned effect releases it, or the scope closes (a failed assertion included).
 */
const stallInbox = Effect.gen(function*() {
  const db = yield* Db
  const locked = yield* Deferred.make<void>()
  const release = yield* Deferred.make<void>()
  const holder = yield* db.transaction(
    db.use((k) => sql`lock table webhook_inbox in access exclusive mode`.execute(k)).pipe(
      Effect.zipRight(Deferred.succeed(locked, undefined)),
      Effect.zipRight(Deferred.await(release))
    )
  ).pipe(Effect.orDie, Effect.fork)
  const released = Deferred.succeed(release, undefined).pipe(Effect.zipRight(Fiber.join(holder)))
  yield* Effect.addFinalizer(() => released)
  yield* Deferred.await(locked)
  return released
})

for (const database of testDatabases()) {
  describe(`webhook back-pressure (${database.name})`, () => {
    const Services = Layer.mergeAll(WebhookInboxRepo.Default, WebhookMetricsLive([STORE])).pipe(
      Layer.provideMerge(Layer.mergeAll(database.layer, MetricsRegistry.Default))
    )
    layer(Services, { excludeTestServices: true })((it) => {
      it.effect(
        "answers 503 with Retry-After under a stalled database, counts it, and stores every retried delivery once",
        () =>
          Effect.scoped(Effect.gen(function*() {
            const sim = yield* startSimulator()
            const connector = yield* connectTo(sim)
            const inbox = yield* WebhookInboxRepo
            const url = yield* serveWebhookReceiver(Layer.mergeAll(
              Layer.succeed(WebhookInboxRepo, inbox),
              Layer.succeed(WebhookMetrics, yield* WebhookMetrics),
              Layer.succeed(PipelineTriggers, {
                storeChanged: () => Effect.void,
                podOrderChanged: () => Effect.void,
                replanHeld: () => Effect.void
              }),
              Layer.succeed(StoreConnectors, new Map([[STORE, connector]])),
              Layer.succeed(PodWebhookSettings, Option.none()),
              Layer.succeed(WebhookIntakeSettings, { maxWaiting: MAX_WAITING, maxWaitSeconds: MAX_WAIT_SECONDS })
            ))
            const target: Target = { url: `${url}/webhooks/${STORE}`, secret: sim.webhookSecret, shop: sim.shop }
            const deliveries = Array.from({ length: 20 }, (_, i) => signedDelivery(target, `stalled-${i}`))

            const release = yield* stallInbox
            const started = Date.now()
            const stalled = yield* answered(target, deliveries)
            const waitedMs = Date.now() - started
            // Nothing could be committed: every delivery is refused, none hangs.
            expect(stalled.map((a) => a.status)).toEqual(Array(20).fill(503))
            for (const answer of stalled) expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1)
            // Those beyond the queue are refused at once; those in it once they waited their limit.
            const details = stalled.map((a) => JSON.parse(a.body ?? "{}") as { error: string; detail: string })
            expect(details.every((d) => d.error === "busy")).toBe(true)
            expect(details.filter((d) => d.detail.includes("waiting to be stored"))).toHaveLength(20 - MAX_WAITING)
            expect(details.filter((d) => d.detail.includes("slow to store"))).toHaveLength(MAX_WAITING)
            expect(waitedMs).toBeGreaterThanOrEqual(MAX_WAIT_SECONDS * 1000)
            expect(waitedMs).toBeLessThan(MAX_WAIT_SECONDS * 1000 + 5000)
            const busy = (yield* (yield* WebhookMetrics).counts).find((c) => c.source === STORE && c.outcome === "busy")
            expect(busy?.count).toBe(20)

            yield* release
            // The statement that waited behind the lock finishes first (its deliveries still count as waiting until then).
            yield* inbox.waiting.pipe(Effect.repeat({ until: (n) => n === 0, schedule: Schedule.spaced("20 millis") }))
            // The senders retry, spread out as senders' retries are: every delivery is stored, once (those
            // that waited may have been committed after all: their retry is a duplicate).
            const retried = yield* Effect.forEach(deliveries, (delivery) => answered(target, [delivery]))
            expect(retried.flat().map((a) => a.status)).toEqual(Array(20).fill(200))
            const stored = yield* inbox.entries(STORE)
            expect(stored.map((e) => e.deliveryId).sort()).toEqual(
              deliveries.map((d) => `${STORE}:shopify-event:orders/updated:${d.headers["x-shopify-event-id"]}`).sort()
            )
          })),
        30_000
      )
    })
  })
}
