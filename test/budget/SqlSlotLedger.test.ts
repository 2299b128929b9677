import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { makeCredentialBudget } from "../../src/budget/CredentialBudget.js"
import type { Lane } from "../../src/budget/Lane.js"
import { makeSqlSlotLedger } from "../../src/budget/SqlSlotLedger.js"
import { Db, DbLive } from "../../src/db/Db.js"
import { type TestDatabase, testDatabases } from "../support/database.js"
import { mostArrivalsPossibleInWindow, type TracedRequest } from "./windowCheck.js"

// These tests run on the database's clock: real time, not the TestClock.
const live = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withClock(effect, Clock.make())

const waiting = (lane: Lane, n: number) => ({ urgent: 0, normal: 0, background: 0, [lane]: n })

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
        Effect.gen(function* () {
          const first = yield* Db
          const second = yield* otherReplicaDb(database)
          const make = (db: Db["Type"], replica: string) =>
            makeSqlSlotLedger({ db: db.kysely, credential, replica, ...options })
          return [make(first, "replica-1"), make(second, "replica-2")] as const
        })

      it.scoped("lets two replicas together hold no more than the limit in any window", () =>
        live(Effect.gen(function* () {
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
                Effect.gen(function* () {
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
        live(Effect.gen(function* () {
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
        live(Effect.gen(function* () {
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
        live(Effect.gen(function* () {
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
        live(Effect.gen(function* () {
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
    })
  })
}
