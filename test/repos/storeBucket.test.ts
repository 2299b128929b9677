/**
 * The store API buckets, one contract for both implementations: in memory on the TestClock
 * (waits exact), and in the database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set) on
 * the database's clock, where a few milliseconds pass between statements. Two "replicas" are two
 * bucket handles on the same state: on PostgreSQL, two connection pools.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, Effect, Layer, Option, TestClock } from "effect"
import { type KyselyPlugin, RawNode } from "kysely"
import { Db, DbLive } from "../../src/db/Db.js"
import type { BucketShape, StoreBucket, StoreBuckets } from "../../src/domain/StoreBucket.js"
import { makeSqlStoreBuckets } from "../../src/repos/SqlStoreBucket.js"
import { budgetUnavailable, makeBucketGate } from "../../src/stores/BucketGate.js"
import { makeInMemoryStoreBucket } from "../../src/stores/InMemoryStoreBucket.js"
import { otherReplicaDb, testDatabases } from "../support/database.js"

interface Fixture {
  /** Moves the bucket's clock forward. */
  readonly elapse: (ms: number) => Effect.Effect<void>
  /** How much a wait may have shrunk by the time it is read (time passing between statements). */
  readonly slackMs: number
}

type Replicas = readonly [StoreBuckets, StoreBuckets]

const waitOf = (bucket: StoreBucket, cost: number) => Effect.map(bucket.take(cost), (t) => t.waitMs)

const expectWait = (actual: number, expected: number, fixture: Fixture) => {
  expect(actual).toBeLessThanOrEqual(expected)
  expect(actual).toBeGreaterThanOrEqual(expected - fixture.slackMs)
}

/** The behaviour every implementation has; `replicas` answers two handles on one shared state. */
const contract = <E, R>(
  test: (name: string, body: () => Effect.Effect<void, unknown, R>) => void,
  replicas: Effect.Effect<Replicas, E, R>,
  fixture: Fixture
) => {
  test("takes while the bucket holds the cost, then answers how long until it will", () =>
    Effect.gen(function*() {
      const [one] = yield* replicas
      // A point comes back every 2 s: on the database's real clock, a loaded machine's slow statements
      // between the first take and the fourth must not refill the bucket (at 10 a second they did).
      const bucket = one.open("arithmetic", { capacity: 3, restorePerSecond: 0.5 })
      const taken = yield* Effect.forEach([1, 2, 3], () => bucket.take(1))
      expect(taken).toEqual([{ taken: true, waitMs: 0, ticket: 1 }, { taken: true, waitMs: 0, ticket: 2 }, {
        taken: true,
        waitMs: 0,
        ticket: 3
      }])
      const refused = yield* bucket.take(1)
      expect(refused).toMatchObject({ taken: false, ticket: 3 })
      expectWait(refused.waitMs, 2_000, fixture)
      yield* fixture.elapse(refused.waitMs)
      expect(yield* bucket.take(1)).toEqual({ taken: true, waitMs: 0, ticket: 4 })
    }))

  test("reserves for a caller that waited: its tokens are taken now, and it goes in its turn before later takes", () =>
    Effect.gen(function*() {
      const [one] = yield* replicas
      const bucket = one.open("reserved", { capacity: 3, restorePerSecond: 10 })
      yield* bucket.take(3)
      const reserved = yield* bucket.take(1, { reserve: true })
      expect(reserved).toMatchObject({ taken: true, ticket: 4 })
      expectWait(reserved.waitMs, 100, fixture)
      // The bucket owes the reservation: the next take waits for both.
      expectWait(yield* waitOf(bucket, 1), 200, fixture)
      yield* fixture.elapse(200)
      expect(yield* bucket.take(1)).toEqual({ taken: true, waitMs: 0, ticket: 5 })
    }))

  test("lets a cost above the capacity go with a full bucket, and leaves the bucket in debt", () =>
    Effect.gen(function*() {
      const [one] = yield* replicas
      const bucket = one.open("debt", { capacity: 5, restorePerSecond: 10 })
      expect((yield* bucket.take(8)).waitMs).toBe(0)
      // 3 points owed, then 1 more to find: 400 ms at 10 a second.
      expectWait(yield* waitOf(bucket, 1), 400, fixture)
    }))

  test("serves takes in the order they were made: a large one is not starved by smaller ones that fit sooner", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      // Shopify's Standard bucket; a pull's page costs 622, a fulfilment read 770.
      const shape = { capacity: 2000, restorePerSecond: 100 }
      const puller = one.open("starved", shape)
      const fulfiller = two.open("starved", shape)
      expect((yield* puller.take(1900)).waitMs).toBe(0)
      // 100 left: the read waits 6.7 s for its 770; the page asked after it waits for both, 12.9 s.
      // The fulfilment read was refused once and lost its turn: it reserves.
      const read = yield* fulfiller.take(770, { reserve: true })
      expect(read.taken).toBe(true)
      expectWait(read.waitMs, 6_700, fixture)
      const page = yield* puller.take(622)
      expect(page.taken).toBe(false)
      expectWait(page.waitMs, 12_920, fixture)
      expect(page.waitMs).toBeGreaterThan(read.waitMs)
    }))

  test("reserves nothing when the wait is longer than the caller sits out", () =>
    Effect.gen(function*() {
      const [one] = yield* replicas
      const bucket = one.open("too-long", { capacity: 10, restorePerSecond: 1 })
      expect((yield* bucket.take(10)).waitMs).toBe(0)
      const refused = yield* bucket.take(5, { reserve: true, maxWaitMs: 2_000 })
      expect(refused.taken).toBe(false)
      expectWait(refused.waitMs, 5_000, fixture)
      // Nothing was reserved: a take of 1 still waits 1 s, not 6.
      expectWait(yield* waitOf(bucket, 1), 1_000, fixture)
    }))

  test("never lets two replicas spend the same tokens", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const shape = { capacity: 20, restorePerSecond: 0.01 }
      const buckets = [one.open("contended", shape), two.open("contended", shape)]
      const takes = yield* Effect.forEach(Array.from({ length: 60 }, (_, i) => buckets[i % 2]!), (b) => b.take(1), {
        concurrency: "unbounded"
      })
      const granted = takes.filter((t) => t.taken)
      expect(granted).toHaveLength(20)
      expect(granted.every((t) => t.waitMs === 0)).toBe(true)
      expect(granted.map((t) => t.ticket).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    }))

  test("gives two replicas' reservations each its own turn", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const shape = { capacity: 20, restorePerSecond: 1 }
      const buckets = [one.open("reserving", shape), two.open("reserving", shape)]
      const takes = yield* Effect.forEach(
        Array.from({ length: 60 }, (_, i) => buckets[i % 2]!),
        (b) => b.take(1, { reserve: true }),
        { concurrency: "unbounded" }
      )
      // 20 at once, then one a second, each its own turn.
      expect(takes.every((t) => t.taken)).toBe(true)
      const byTicket = [...takes].sort((a, b) => a.ticket - b.ticket)
      expect(byTicket.map((t) => t.ticket)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
      expect(byTicket.filter((t) => t.waitMs === 0)).toHaveLength(20)
      byTicket.slice(20).forEach((t, i) => expectWait(t.waitMs, 1_000 * (i + 1), { ...fixture, slackMs: fixture.slackMs + 1_000 }))
      for (let i = 21; i < 60; i++) expect(byTicket[i]!.waitMs).toBeGreaterThan(byTicket[i - 1]!.waitMs)
    }))

  test("takes the store's reading over its own, less what was taken after the answered request", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const answered = two.open("reading")
      const other = one.open("reading")
      // Before the store has said anything, nothing is limited.
      const mine = yield* answered.take(10)
      expect(mine).toEqual({ taken: true, waitMs: 0, ticket: 10 })
      expect(yield* other.take(7)).toEqual({ taken: true, waitMs: 0, ticket: 17 })
      // The answer to the first request: 50 left. The other request may not have reached the store yet.
      yield* answered.observe({ capacity: 100, available: 50, restorePerSecond: 10 }, { ticket: mine.ticket })
      expect((yield* other.take(43)).waitMs).toBe(0)
      expectWait(yield* waitOf(other, 5), 500, fixture)
    }))

  test("keeps its own count when an answer raced past a request taken before it", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const shape = { capacity: 100, restorePerSecond: 0.01 }
      const first = one.open("raced", shape)
      const second = two.open("raced", shape)
      yield* first.observe({ ...shape, available: 100 })
      yield* first.take(10)
      const late = yield* second.take(20)
      // The later request reached the store first: its answer says 80 left, nothing of the earlier one's 10.
      yield* second.observe({ ...shape, available: 80 }, { ticket: late.ticket, credit: 0 })
      expect((yield* first.take(70)).taken).toBe(true)
      expect((yield* first.take(1)).taken).toBe(false)
    }))

  test("counts back what the store did not charge", () =>
    Effect.gen(function*() {
      const [one] = yield* replicas
      const shape = { capacity: 100, restorePerSecond: 0.01 }
      const bucket = one.open("refunded", shape)
      yield* bucket.observe({ ...shape, available: 100 })
      // Asked 50, charged 5: the store holds 95, and so does the bucket's own count.
      const asked = yield* bucket.take(50)
      yield* bucket.observe({ ...shape, available: 95 }, { ticket: asked.ticket, credit: 45 })
      expect((yield* bucket.take(95)).taken).toBe(true)
    }))

  test("believes a store that says its bucket is full over its own count", () =>
    Effect.gen(function*() {
      const [one] = yield* replicas
      const shape = { capacity: 100, restorePerSecond: 0.01 }
      const bucket = one.open("healed", shape)
      yield* bucket.observe({ ...shape, available: 100 })
      // A request whose answer never came (a timeout): its 60 are never credited.
      yield* bucket.take(60)
      const next = yield* bucket.take(10)
      yield* bucket.observe({ ...shape, available: 100 }, { ticket: next.ticket, credit: 10 })
      expect((yield* bucket.take(100)).taken).toBe(true)
    }))

  test("holds every replica during a pause, which a shorter one never shortens", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const shape = { capacity: 10, restorePerSecond: 10 }
      const refused = one.open("paused", shape)
      const other = two.open("paused", shape)
      yield* refused.pause(400)
      const held = yield* other.take(1)
      // Nothing is reserved during a pause: it is asked again after it.
      expect(held.taken).toBe(false)
      expectWait(held.waitMs, 400, fixture)
      expectWait(yield* other.pausedFor, 400, fixture)
      yield* refused.pause(100)
      const wait = yield* waitOf(other, 1)
      // What is left of the 400 ms pause, not the 100 ms one.
      expect(wait).toBeGreaterThan(Math.max(100, 300 - fixture.slackMs))
      yield* fixture.elapse(wait)
      expect(yield* other.pausedFor).toBe(0)
      expect(yield* other.take(1)).toMatchObject({ taken: true, waitMs: 0 })
    }))

  test("keeps the configured shape until the store reports one, then the store's", () =>
    Effect.gen(function*() {
      const [one] = yield* replicas
      const etsyDefault: BucketShape = { capacity: 1, restorePerSecond: 10 }
      const bucket = one.open("configured", etsyDefault)
      expect((yield* bucket.take(1)).waitMs).toBe(0)
      expectWait(yield* waitOf(bucket, 1), 100, fixture)
      // The store says 2 a second (no level): the level is kept, the refill is the store's.
      yield* bucket.observe({ capacity: 1, restorePerSecond: 2 })
      expectWait(yield* waitOf(bucket, 1), 500, fixture)
    }))
}

/** In-memory buckets shared by both "replicas" (in production each connector has its own). */
const sharedMemory = (): StoreBuckets => {
  const buckets = new Map<string, StoreBucket>()
  return {
    open: (credential, configured) => {
      const bucket = buckets.get(credential) ?? makeInMemoryStoreBucket(configured)
      buckets.set(credential, bucket)
      return bucket
    }
  }
}

describe("store buckets in memory", () => {
  contract(
    (name, body) => it.effect(name, body),
    Effect.sync(() => {
      const shared = sharedMemory()
      return [shared, shared] as const
    }),
    { elapse: (ms) => TestClock.adjust(ms), slackMs: 0 }
  )
})

// These run on the database's clock: real time, not the TestClock.
const live = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withClock(effect, Clock.make())

describe("store buckets when the database fails", () => {
  it.scoped("fail the take with the cause, and the store call as unavailable, not ambiguous", () =>
    Effect.gen(function*() {
      // A database without the table: every statement fails, as when the database is unreachable.
      const bare = Context.get(yield* Layer.build(DbLive({ url: Option.none(), dataDir: "memory://" })), Db)
      const gate = yield* makeBucketGate(makeSqlStoreBuckets(bare.kysely).open("unreachable", { capacity: 1, restorePerSecond: 1 }))
      const error = yield* Effect.flip(gate.acquire(1))
      expect(error._tag).toBe("StoreBucketError")
      const unavailable = budgetUnavailable("acme-woo", "orders.list")(error)
      expect(unavailable).toMatchObject({ _tag: "StoreUnavailableError", ambiguous: false })
      expect(unavailable.message).toContain("the shared store API budget could not take from the bucket")
      expect(unavailable.message).toContain("store_budgets")
    }))
})

for (const database of testDatabases()) {
  describe(`store buckets in the database on ${database.name}`, () => {
    it.layer(database.layer)((it) => {
      const replicas = Effect.gen(function*() {
        const first = yield* Db
        const second = yield* otherReplicaDb(database)
        return [makeSqlStoreBuckets(first.kysely), makeSqlStoreBuckets(second.kysely)] as const
      })

      // A wait read back has shrunk by the real time that passed since its state was written, times
      // the ratio of the refill rates when the shape changed in between (at most 5 here): never by
      // more than that of the test's run so far. 250 ms covers an idle machine; on a loaded one
      // statements take longer, and a fixed 250 ms failed there.
      let testStartedAt = Date.now()
      contract(
        (name, body) =>
          it.scoped(name, () =>
            live(Effect.suspend(() => {
              testStartedAt = Date.now()
              return body()
            }))),
        replicas,
        {
          elapse: (ms) => Effect.sleep(ms),
          get slackMs() {
            return Math.max(250, 5 * (Date.now() - testStartedAt))
          }
        }
      )

      it.scoped("takes with one statement once the credential's row exists", () =>
        Effect.gen(function*() {
          const db = yield* Db
          const statements: Array<string> = []
          const plugin: KyselyPlugin = {
            transformQuery: ({ node }) => {
              statements.push(RawNode.is(node) ? node.sqlFragments.join("?").replace(/^[?\s]+/, "").split(/\s+/)[0]! : node.kind)
              return node
            },
            transformResult: ({ result }) => Promise.resolve(result)
          }
          const bucket = makeSqlStoreBuckets(db.kysely.withPlugin(plugin)).open("statements", { capacity: 100, restorePerSecond: 1 })
          // The first take inserts the row, then takes.
          yield* bucket.take(1)
          expect(statements).toEqual(["insert", "with"])
          statements.length = 0
          yield* Effect.forEach([1, 2, 3], () => bucket.take(1))
          expect(statements).toEqual(["with", "with", "with"])
        }))

      it.scoped("follows a changed configuration until the store reports a shape (a WooCommerce interval edited)", () =>
        live(Effect.gen(function*() {
          const [one, two] = yield* replicas
          const before = yield* Clock.currentTimeMillis
          expect((yield* one.open("edited", { capacity: 1, restorePerSecond: 1 }).take(1)).waitMs).toBe(0)
          // Restarted with one request every 100 ms instead of every second.
          const wait = yield* waitOf(two.open("edited", { capacity: 1, restorePerSecond: 10 }), 1)
          const elapsed = (yield* Clock.currentTimeMillis) - before
          // The next request is due 100 ms after the first (1000 ms under the old shape), however long
          // the two statements took on a loaded machine: what is left of the 100 ms, and not nothing.
          expect(wait).toBeLessThanOrEqual(100)
          expect(wait + elapsed).toBeGreaterThanOrEqual(95)
        })))

      it.scoped("paces two replicas' callers together at the refill rate", () =>
        live(Effect.gen(function*() {
          const [one, two] = yield* replicas
          const shape = { capacity: 2, restorePerSecond: 20 }
          const gates = [yield* makeBucketGate(one.open("paced", shape)), yield* makeBucketGate(two.open("paced", shape))]
          const started = yield* Clock.currentTimeMillis
          const tickets = yield* Effect.forEach(Array.from({ length: 24 }, (_, i) => gates[i % 2]!), (gate) => gate.acquire(1), {
            concurrency: "unbounded"
          })
          const elapsed = (yield* Clock.currentTimeMillis) - started
          expect([...tickets].sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1))
          // 2 at once, then 22 at 20 a second: 1.1 s at least, whichever replica asked.
          expect(elapsed).toBeGreaterThanOrEqual(1100 - 20)
          expect(elapsed).toBeLessThan(4000)
        })), { timeout: 30_000 })
    })
  })
}
