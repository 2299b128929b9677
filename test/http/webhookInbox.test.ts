// The webhook inbox behind both receivers, on PGlite and (when TEST_DATABASE_URL is set) real PostgreSQL.
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { INBOX_RETENTION_DAYS, WebhookInboxRepo } from "../../src/repos/WebhookInboxRepo.js"
import { testDatabases } from "../support/database.js"

for (const database of testDatabases()) {
  describe(`webhook inbox (${database.name})`, () => {
    layer(WebhookInboxRepo.Default.pipe(Layer.provide(database.layer)))((it) => {
      it.effect("keeps a delivery key once, stamps it with the Clock, and forgets old keys", () =>
        Effect.gen(function*() {
          const inbox = yield* WebhookInboxRepo
          yield* TestClock.setTime(Date.parse("2026-11-21T12:00:00Z"))
          expect(
            yield* inbox.record({ source: "pod", deliveryId: "n-1", topic: "order_completed", payload: { order: { gearment_id: "o1" } } })
          ).toBe("new")
          expect(yield* inbox.record({ source: "pod", deliveryId: "n-1", topic: "order_completed", payload: {} })).toBe("duplicate")
          // The same key from another source is another delivery.
          expect(yield* inbox.record({ source: "acme-shopify", deliveryId: "n-1", payload: { id: 1 } })).toBe("new")
          yield* TestClock.adjust("1 hour")
          expect(yield* inbox.record({ source: "pod", deliveryId: "n-2", payload: { order: { gearment_id: "o2" } } })).toBe("new")

          const entries = yield* inbox.entries("pod")
          expect(entries.map((e) => [e.deliveryId, e.topic, e.receivedAt.toISOString(), e.processedAt])).toEqual([
            ["n-1", "order_completed", "2026-11-21T12:00:00.000Z", null],
            ["n-2", null, "2026-11-21T13:00:00.000Z", null]
          ])
          expect(entries[0]!.payload).toEqual({ order: { gearment_id: "o1" } })
          yield* inbox.markProcessed("pod", "n-1")
          expect((yield* inbox.entries("pod"))[0]!.processedAt?.toISOString()).toBe("2026-11-21T13:00:00.000Z")
          expect(yield* inbox.countBySource).toEqual({ pod: 2, "acme-shopify": 1 })

          expect(yield* inbox.pruneReceivedBefore(new Date("2026-11-21T12:30:00Z"))).toBe(2)
          expect((yield* inbox.entries("pod")).map((e) => e.deliveryId)).toEqual(["n-2"])
          // A pruned key is new again: only senders that still retry need remembering.
          expect(yield* inbox.record({ source: "pod", deliveryId: "n-1", payload: {} })).toBe("new")
        }))

      it.effect("forgets on housekeeping only keys older than the retention, which outlasts every sender's retries", () =>
        Effect.gen(function*() {
          const inbox = yield* WebhookInboxRepo
          yield* TestClock.setTime(Date.parse("2026-12-01T00:00:00Z"))
          yield* inbox.record({ source: "hk", deliveryId: "old", payload: {} })
          yield* TestClock.adjust(`${INBOX_RETENTION_DAYS * 24 - 1} hours`)
          yield* inbox.record({ source: "hk", deliveryId: "recent", payload: {} })
          yield* inbox.pruneExpired()
          expect((yield* inbox.entries("hk")).map((e) => e.deliveryId)).toEqual(["old", "recent"])
          yield* TestClock.adjust("2 hours")
          yield* inbox.pruneExpired()
          expect((yield* inbox.entries("hk")).map((e) => e.deliveryId)).toEqual(["recent"])
          expect(yield* inbox.record({ source: "hk", deliveryId: "recent", payload: {} })).toBe("duplicate")
        }))

      it.effect("stores any JSON a signed body may hold, NUL characters included", () =>
        Effect.gen(function*() {
          const inbox = yield* WebhookInboxRepo
          yield* inbox.record({ source: "odd", deliveryId: "a", payload: { "k\u0000": "v\u0000", list: [1, "x\u0000"] } })
          yield* inbox.record({ source: "odd", deliveryId: "b", payload: "a bare string" })
          yield* inbox.record({ source: "odd", deliveryId: "c", payload: [1, 2, 3] })
          yield* inbox.record({ source: "odd", deliveryId: "d", payload: undefined })
          expect((yield* inbox.entries("odd")).map((e) => e.payload)).toEqual([
            { "k\uFFFD": "v\uFFFD", list: [1, "x\uFFFD"] },
            "a bare string",
            [1, 2, 3],
            null
          ])
        }))
    })
  })
}
