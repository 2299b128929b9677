import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, Duration, Effect, Either, Fiber, Layer, Option, Redacted } from "effect"
import { type Kysely, type KyselyPlugin, RawNode, sql } from "kysely"
import { makeCredentialBudget } from "../../src/budget/CredentialBudget.js"
import type { Lane } from "../../src/budget/Lane.js"
import { makeSqlSlotLedger } from "../../src/repos/SqlSlotLedger.js"
import { Db, DbLive } from "../../src/db/Db.js"
import { type TestDatabase, testDatabases } from "../support/database.js"
import { mostArrivalsPossibleInWindow, type TracedRequest } from "./windowCheck.js"

// These tests run on the database's clock: real time, not the TestClock.
const live = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withClock(effect, Clock.make())

const waiting = (lane: Lane, n: number) => ({ urgent: 0, normal: 0, background: 0, [lane]: n })

/** The same database through a handle that notes every statement the ledger sends. */
const countingStatements = <DB>(db: Kysely<DB>) => {
  const statements: Array<string> = []
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      statements.push(RawNode.is(node) ? node.sqlFragments.join("?").trim().split(/\s+/).slice(0, 3).join(" ") : node.kind)
      return node
    },
    transformResult: ({ result }) => Promise.resolve(result)
  }
  return { db: db.withPlugin(plugin), statements }
}

interface SlotRow {
  readonly id: string
  readonly answered_at_ms: string | null
  readonly holds_until_ms: string
  readonly lane: string | null
  readonly store_key: string | null
  readonly operation: string | null
  readonly status: number | null
}

const slotRows = (credential: string) =>
  Effect.flatMap(
    Db,
    (db) =>
      Effect.promise(() =>
        sql<SlotRow>`select id::text as id, answered_at_ms::text as answered_at_ms, holds_until_ms::text as holds_until_ms,
          lane, store_key, operation, status
        from rate_budget_slots where credential = ${credential} order by rate_budget_slots.id`.execute(db.kysely)
      )
  ).pipe(Effect.map((result) => result.rows))

/** A second, independent connection to the same database, as another replica would have. */
const otherReplicaDb = (database: TestDatabase) =>
  database.name === "postgres"
    ? Layer.build(DbLive({ url: Option.some(Redacted.make(database.url!)), dataDir: "unused", schema: database.schema! }))
      .pipe(Effect.map((context) => Context.get(context, Db)))
    : Db

for (const database of testDatabases()) {
  describe(`the shared slot ledger on ${database.name}`, () => {
    it.layer(database.layer)((it) => {
      const ledgers = (credential: string, options: { limit: number; windowMs: number; requestTimeoutMs?: number }) =>
        Effect.gen(function*() {
          const first = yield* Db
          const second = yield* otherReplicaDb(database)
          const make = (db: Db["Type"], replica: string) => makeSqlSlotLedger({ db: db.kysely, credential, replica, ...options })
          return [make(first, "replica-1"), make(second, "replica-2")] as const
        })

      it.scoped("lets two replicas together hold no more than the limit in any window", () =>
        live(Effect.gen(function*() {
          const limit = 5
          const windowMs = 300
          const [one, two] = yield* ledgers("shared-window", { limit, windowMs })
          const rateLimit = { requests: limit, windowSeconds: windowMs / 1000, blockSeconds: 5, headroom: 0 }
          const budgets = [
            yield* makeCredentialBudget(one, { credential: "shared-window", rateLimit }),
            yield* makeCredentialBudget(two, { credential: "shared-window", rateLimit })
          ]
          const trace: Array<TracedRequest> = []
          yield* Effect.forEach(
            Array.from({ length: 30 }, (_, i) => i),
            (i) =>
              budgets[i % 2]!.withPermit({ lane: "normal", storeKey: `s${i % 3}` }, (permit) =>
                Effect.gen(function*() {
                  yield* Effect.sleep(Duration.millis(5 + (i * 7) % 30))
                  trace.push({ sentAt: permit.sentAt, answeredAt: yield* Clock.currentTimeMillis })
                })),
            { concurrency: "unbounded", discard: true }
          )
          expect(trace).toHaveLength(30)
          expect(mostArrivalsPossibleInWindow(trace, windowMs)).toBeLessThanOrEqual(limit)
          // Both replicas were needed to fill the windows: the limit was reached, not undershot.
          expect(mostArrivalsPossibleInWindow(trace, windowMs)).toBe(limit)
        })), { timeout: 30_000 })

      it.scoped("makes a replica that starts after a crash wait for the slots its predecessor left", () =>
        live(Effect.gen(function*() {
          const [crashed, successor] = yield* ledgers("after-crash", { limit: 3, windowMs: 400, requestTimeoutMs: 1500 })
          const taken = yield* crashed.acquire({ waitingByLane: waiting("normal", 3) })
          expect(taken.granted).toHaveLength(3)
          yield* crashed.release(taken.granted[0]!, { lane: "normal", storeKey: "a", operation: "GET /x", status: 200 })
          // The predecessor dies: two requests stay in flight forever.
          const first = yield* successor.acquire({ waitingByLane: waiting("normal", 1) })
          expect(first).toMatchObject({ granted: [], inUse: 3 })
          // The answered one frees a window after its answer; the two in flight only once stale (timeout + window).
          yield* Effect.sleep(Duration.millis(first.retryAt! - first.now + 5))
          const second = yield* successor.acquire({ waitingByLane: waiting("normal", 3) })
          expect(second.granted).toHaveLength(1)
          expect(second.inUse).toBe(2)
          yield* Effect.sleep(Duration.millis(taken.now + 1500 + 400 - second.now + 10))
          const third = yield* successor.acquire({ waitingByLane: waiting("normal", 3) })
          expect(third.granted).toHaveLength(2)
        })), { timeout: 30_000 })

      it.scoped("keeps a long request's slot counting while its holder keeps it alive", () =>
        live(Effect.gen(function*() {
          const [holder, other] = yield* ledgers("keep-alive", { limit: 1, windowMs: 200, requestTimeoutMs: 2000 })
          const taken = yield* holder.acquire({ waitingByLane: waiting("normal", 1) })
          yield* Effect.sleep(Duration.millis(1000))
          yield* holder.keepAlive(taken.granted[0]!)
          // Past the first deadline (sent + timeout + window = 2200 ms), before the renewed one (≈ 3200 ms).
          yield* Effect.sleep(Duration.millis(1400))
          const refused = yield* other.acquire({ waitingByLane: waiting("normal", 1) })
          expect(refused.now - taken.now).toBeGreaterThan(2200)
          expect(refused.granted).toEqual([])
        })), { timeout: 30_000 })

      it.scoped("pauses every replica when one of them is answered 429", () =>
        live(Effect.gen(function*() {
          const [refused, other] = yield* ledgers("paused", { limit: 10, windowMs: 1000 })
          const until = yield* refused.pause(60_000)
          const result = yield* other.acquire({ waitingByLane: waiting("urgent", 1) })
          expect(result.granted).toEqual([])
          expect(result.pausedUntil).toBe(until)
          expect(result.retryAt).toBe(until)
          expect(until - result.now).toBeGreaterThan(59_000)
          // A shorter pause reported later never shortens it.
          expect(yield* other.pause(1_000)).toBe(until)
          const usage = yield* other.usage
          expect(usage.pausedUntil).toBe(until)
        })))

      it.scoped("serves no lower lane on one replica while another waits in a higher lane", () =>
        live(Effect.gen(function*() {
          const [urgentReplica, backgroundReplica] = yield* ledgers("lanes", { limit: 2, windowMs: 1000 })
          // Three urgent callers wait there: two are served, one still waits.
          const urgent = yield* urgentReplica.acquire({ waitingByLane: waiting("urgent", 3) })
          expect(urgent.granted).toHaveLength(2)
          // One of them gives up before sending: a slot is free, but the other replica's
          // background caller must leave it to the urgent one still waiting.
          yield* urgentReplica.cancel(urgent.granted[0]!)
          const deferred = yield* backgroundReplica.acquire({ waitingByLane: waiting("background", 1) })
          expect(deferred).toMatchObject({ granted: [], minLaneRank: 2, inUse: 1 })
          expect(deferred.retryAt! - deferred.now).toBeLessThanOrEqual(200)
          // Once the urgent replica has nobody waiting, the background caller is served.
          yield* urgentReplica.withdraw
          const served = yield* backgroundReplica.acquire({ waitingByLane: waiting("background", 1) })
          expect(served.granted).toHaveLength(1)
        })))

      // No `live` below: gathering releases waits for the event loop, never for the Clock, so
      // these run on the TestClock untouched.
      const countedLedger = (credential: string, options: { limit: number; windowMs: number; requestTimeoutMs?: number }) =>
        Effect.map(Db, (first) => {
          const { db, statements } = countingStatements(first.kysely)
          return { ledger: makeSqlSlotLedger({ db, credential, replica: "replica-1", ...options }), statements }
        })
      const answered = (i: number) =>
        ({
          lane: i % 2 === 0 ? "urgent" : "normal",
          storeKey: `store-${i % 3}`,
          operation: "GET /orders",
          status: i === 0 ? null : 200
        }) as const

      it.scoped("records answers that arrive together with one statement, each at the database's time of the write", () =>
        Effect.gen(function*() {
          const windowMs = 5000
          const { ledger, statements } = yield* countedLedger("gathered", { limit: 40, windowMs })
          const taken = yield* ledger.acquire({ waitingByLane: waiting("normal", 40) })
          expect(taken.granted).toHaveLength(40)
          const before = (yield* ledger.usage).now
          statements.length = 0
          yield* Effect.forEach(taken.granted, (slot, i) => ledger.release(slot, answered(i)), {
            concurrency: "unbounded",
            discard: true
          })
          // 40 answers, one statement (it was one statement per answer).
          expect(statements).toEqual(["update rate_budget_slots s"])
          const after = (yield* ledger.usage).now
          const rows = yield* slotRows("gathered")
          expect(rows).toHaveLength(40)
          for (const [i, row] of rows.entries()) {
            expect(row.id).toBe(taken.granted[i])
            // On the database's clock, at or after the answer: the slot counts a window from then.
            const answeredAt = Number(row.answered_at_ms)
            expect(answeredAt).toBeGreaterThanOrEqual(before)
            expect(answeredAt).toBeLessThanOrEqual(after + 1)
            expect(Number(row.holds_until_ms)).toBe(answeredAt + windowMs)
            const { lane, operation, status, storeKey } = answered(i)
            expect(row).toMatchObject({ lane, store_key: storeKey, operation, status })
          }
          expect(yield* ledger.usage).toMatchObject({ inUse: 40, inFlight: 0 })
        }))

      it.scoped("fails every release carried by a failing statement, and writes the releases after it", () =>
        Effect.gen(function*() {
          const { ledger, statements } = yield* countedLedger("failing", { limit: 5, windowMs: 5000 })
          const taken = yield* ledger.acquire({ waitingByLane: waiting("normal", 2) })
          statements.length = 0
          // A slot id the database cannot read fails the statement that carries the other two.
          const outcomes = yield* Effect.forEach(
            ["not-a-slot", ...taken.granted],
            (slot, i) => Effect.either(ledger.release(slot, answered(i))),
            { concurrency: "unbounded" }
          )
          expect(statements).toHaveLength(1)
          for (const outcome of outcomes) {
            expect(Either.isLeft(outcome)).toBe(true)
            expect(Either.getLeft(outcome).pipe(Option.getOrThrow)).toMatchObject({
              _tag: "SlotLedgerError",
              operation: "release a slot"
            })
          }
          expect(yield* ledger.usage).toMatchObject({ inUse: 2, inFlight: 2 })
          yield* Effect.forEach(taken.granted, (slot, i) => ledger.release(slot, answered(i)), {
            concurrency: "unbounded",
            discard: true
          })
          expect(yield* ledger.usage).toMatchObject({ inUse: 2, inFlight: 0 })
        }))

      it.scoped("writes the other callers' releases when one caller stops waiting for its own", () =>
        Effect.gen(function*() {
          const { ledger } = yield* countedLedger("interrupted", { limit: 5, windowMs: 5000 })
          const taken = yield* ledger.acquire({ waitingByLane: waiting("normal", 5) })
          const fibers = yield* Effect.forEach(taken.granted, (slot, i) => Effect.fork(ledger.release(slot, answered(i))))
          yield* Fiber.interrupt(fibers[0]!)
          yield* Effect.forEach(fibers.slice(1), Fiber.join, { discard: true })
          const rows = yield* slotRows("interrupted")
          for (const row of rows.slice(1)) expect(row.answered_at_ms).not.toBeNull()
          // The interrupted caller's slot is answered too, or still counts as in flight: never lost.
          expect(yield* ledger.usage).toMatchObject({ inUse: 5 })
        }))

      it.scoped("cancels slots and renews requests in flight together too, one statement each", () =>
        Effect.gen(function*() {
          const requestTimeoutMs = 30_000
          const windowMs = 5000
          const { ledger, statements } = yield* countedLedger("cancel-renew", { limit: 6, windowMs, requestTimeoutMs })
          const taken = yield* ledger.acquire({ waitingByLane: waiting("normal", 6) })
          const [unused, inFlight] = [taken.granted.slice(0, 3), taken.granted.slice(3)]
          statements.length = 0
          const before = (yield* ledger.usage).now
          yield* Effect.all([
            Effect.forEach(unused, ledger.cancel, { concurrency: "unbounded", discard: true }),
            Effect.forEach(inFlight, ledger.keepAlive, { concurrency: "unbounded", discard: true })
          ], { concurrency: "unbounded" })
          expect(statements.filter((s) => !s.startsWith("with clock")).sort())
            .toEqual(["delete from rate_budget_slots", "update rate_budget_slots set"])
          const rows = yield* slotRows("cancel-renew")
          expect(rows.map((row) => row.id)).toEqual(inFlight)
          for (const row of rows) {
            expect(row.answered_at_ms).toBeNull()
            expect(Number(row.holds_until_ms)).toBeGreaterThanOrEqual(before + requestTimeoutMs + windowMs)
          }
          expect(yield* ledger.usage).toMatchObject({ inUse: 3, inFlight: 3 })
        }))
    })
  })
}
