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

      it.effect("prunes in batches: every key older than the retention goes, every recent one stays (TestClock)", () =>
        Effect.gen(function*() {
          const inbox = yield* WebhookInboxRepo
          yield* TestClock.setTime(Date.parse("2026-12-10T00:00:00Z"))
          // Only this test's keys: the earlier tests' are forgotten first.
          yield* inbox.pruneReceivedBefore(new Date("2026-12-10T00:00:00Z"))
          for (let i = 0; i < 7; i++) {
            yield* inbox.record({ source: "batches", deliveryId: `old-${i}`, payload: { i } })
            yield* TestClock.adjust("1 minute")
          }
          yield* TestClock.adjust("2 days")
          for (let i = 0; i < 3; i++) yield* inbox.record({ source: "batches", deliveryId: `recent-${i}`, payload: { i } })
          yield* TestClock.adjust("1 day")
          // A retention of 2 days, 3 rows a statement: the 7 old keys go in three statements, the recent ones stay.
          expect(yield* inbox.pruneExpired(2, 3)).toBe(7)
          expect((yield* inbox.entries("batches")).map((e) => e.deliveryId)).toEqual(["recent-0", "recent-1", "recent-2"])
          expect(yield* inbox.pruneExpired(2, 3)).toBe(0)
          yield* TestClock.adjust("1 day")
          yield* TestClock.adjust("1 minute")
          expect(yield* inbox.pruneExpired(2, 3)).toBe(3)
          expect(yield* inbox.entries("batches")).toEqual([])
        }))

      it.effect("stores a key once when its copies arrive together, answering the first new and the others duplicate", () =>
        Effect.gen(function*() {
          const inbox = yield* WebhookInboxRepo
          const outcomes = yield* Effect.all(
            [1, 2, 3].map((copy) => inbox.record({ source: "together", deliveryId: "same", payload: { copy } })),
            { concurrency: "unbounded" }
          )
          expect([...outcomes].sort()).toEqual(["duplicate", "duplicate", "new"])
          const entries = yield* inbox.entries("together")
          expect(entries).toHaveLength(1)
          // Others arriving in the same turn share the statement and are each stored.
          const many = yield* Effect.all(
            Array.from({ length: 40 }, (_, i) => inbox.record({ source: "together", deliveryId: `d-${i}`, payload: { i } })),
            { concurrency: "unbounded" }
          )
          expect(many.every((outcome) => outcome === "new")).toBe(true)
          expect(yield* inbox.countBySource).toMatchObject({ together: 41 })
        }))

      it.effect("marks hundreds of deliveries of several sources processed at once, each its own", () =>
        Effect.gen(function*() {
          const inbox = yield* WebhookInboxRepo
          const keys = Array.from({ length: 600 }, (_, i) => ({ source: `marks-${i % 3}`, deliveryId: `m-${i}` }))
          yield* Effect.forEach(keys, (key) => inbox.record({ ...key, payload: {} }), { concurrency: "unbounded" })
          // Gathered into a few updates; every mark lands on its own delivery and no other.
          yield* Effect.forEach(keys.slice(0, 500), (key) => inbox.markProcessed(key.source, key.deliveryId), { concurrency: "unbounded" })
          const entries = (yield* Effect.forEach(["marks-0", "marks-1", "marks-2"], inbox.entries)).flat()
          const processed = new Set(entries.filter((e) => e.processedAt !== null).map((e) => e.deliveryId))
          expect(processed).toEqual(new Set(keys.slice(0, 500).map((key) => key.deliveryId)))
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
