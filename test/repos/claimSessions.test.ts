import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Scope, TestClock } from "effect"
import { sql } from "kysely"
import { Db } from "../../src/db/Db.js"
import { makeSessionTie, SESSION_LOCK_CLASS, SessionTie } from "../../src/db/SessionTie.js"
import { AlertsRepo } from "../../src/repos/AlertsRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { endDeadJobLeases, makeJobLeases } from "../../src/schedule/JobLeases.js"
import { pgliteDatabase, postgresDatabase, type TestDatabase } from "../support/database.js"
import { sampleOrder } from "../support/orders.js"

const START = Date.parse("2026-11-30T08:00:00Z")

/** `count` pulled orders of their own (a prefix per test), due now. */
const pulledOrders = (prefix: string, count: number) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const ids: Array<number> = []
    for (let i = 0; i < count; i++) {
      const { id } = yield* repo.upsertPulled(sampleOrder({ storeOrderId: `${prefix}${i}` }), `acme-shopify:${prefix}${i}`)
      ids.push(id)
    }
    return ids
  })

const claimOf = (ids: ReadonlyArray<number>, owner: string, tiedToSession: boolean, takeOverAfterMs = 0) =>
  Effect.flatMap(OrdersRepo, (repo) => repo.claim(["pulled"], 100, owner, 60, { tiedToSession, takeOverAfterMs })).pipe(
    Effect.map((claimed) => claimed.map((o) => o.id).filter((id) => ids.includes(id)).sort((a, b) => a - b))
  )

/** A job lease `owner` could not give back (the database was away as its run ended): still its own, unexpired. */
const leftBehindLease = (job: string, owner: string, session: boolean) =>
  Effect.flatMap(
    Db,
    (db) =>
      db.use((k) =>
        k.insertInto("job_leases").values({ job, owner, expires_at: new Date(START + 60_000), rerun: false, tick_at: null, session })
          .execute()
      )
  )

/** Real time passes (a database session's end reaching this process) until `done` holds: 30 s at most. */
const untilTrue = (what: string, done: Effect.Effect<boolean>) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 30_000
    while (!(yield* done)) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen within 30 s`)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
  })

const repos = Layer.mergeAll(OrdersRepo.Default, AlertsRepo.Default)

const suite = (database: TestDatabase) =>
  layer(Layer.provideMerge(repos, database.layer))(`claims and database sessions on ${database.name}`, (it) => {
    if (database.name === "postgres") {
      it.effect("a replica's session-tied claims are taken the moment its session ends, and never while it lives", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(START)
          const ids = yield* pulledOrders("tie-a-", 3)
          // Replica A ties its claims to a session of its own, then claims.
          const life = yield* Scope.make()
          const tie = yield* Scope.extend(makeSessionTie("replica-a-session"), life)
          expect(yield* tie.tied).toBe(true)
          expect(yield* claimOf(ids, "replica-a-session", true)).toEqual(ids)

          // Alive (however slow: its leases ran out long ago), its claims stay its own, and its renewals keep them.
          yield* TestClock.adjust("10 minutes")
          expect(yield* claimOf(ids, "replica-b", false)).toEqual([])
          const kept = yield* Effect.flatMap(OrdersRepo, (repo) => repo.renewLeases(ids, "replica-a-session", 60))
          expect([...kept].sort((a, b) => a - b)).toEqual(ids)

          // Its session ends (the process killed): another replica takes them at once, no lease waited out.
          yield* Scope.close(life, Exit.void)
          expect(yield* claimOf(ids, "replica-b", false)).toEqual(ids)
          expect((yield* Effect.flatMap(OrdersRepo, (repo) => repo.renewLeases(ids, "replica-a-session", 60))).size).toBe(0)
        }))

      it.effect("work that sends requests waits, once the holder's session is seen gone, as long as a request it sent may still be at work", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(START)
          const ids = yield* pulledOrders("grace-", 2)
          const life = yield* Scope.make()
          yield* Scope.extend(makeSessionTie("replica-g-session"), life)
          expect(yield* claimOf(ids, "replica-g-session", true)).toEqual(ids)
          yield* Scope.close(life, Exit.void)
          // Seen gone now: a create it had sent may land for another 10 s (the request timeout).
          expect(yield* claimOf(ids, "replica-h", false, 10_000)).toEqual([])
          yield* TestClock.adjust("9 seconds")
          expect(yield* claimOf(ids, "replica-h", false, 10_000)).toEqual([])
          yield* TestClock.adjust("1 second")
          expect(yield* claimOf(ids, "replica-h", false, 10_000)).toEqual(ids)
        }))

      it.effect("a dead replica's draft claim waits out the request grace even when the look-up stage (no grace) claims first", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(START)
          const repo = yield* OrdersRepo
          const ids = yield* pulledOrders("lookup-grace-", 2)
          for (const id of ids) yield* repo.transition(id, "pulled", "ready", { actor: "test", reason: "matched" })
          const life = yield* Scope.make()
          yield* Scope.extend(makeSessionTie("replica-l-session"), life)
          // Replica L claims them to draft (an attempt counted) and sends the creates; then it is killed.
          const drafting = yield* repo.claim(["ready"], 100, "replica-l-session", 60, {
            countsAttempt: true,
            tiedToSession: true,
            takeOverAfterMs: 10_000
          })
          expect(drafting.map((o) => o.id).filter((id) => ids.includes(id)).sort((a, b) => a - b)).toEqual(ids)
          yield* Scope.close(life, Exit.void)
          const lookUp = () =>
            repo.claim(["ready"], 100, "replica-m", 60, { takeOverAfterMs: 0, lookedUp: { when: "notRecently", withinMs: 60_000 } })
          const draft = () => repo.claim(["ready"], 100, "replica-m", 60, { countsAttempt: true, takeOverAfterMs: 10_000 })
          const mine = (claimed: ReadonlyArray<{ readonly id: number }>) => claimed.map((o) => o.id).filter((id) => ids.includes(id))
          // The look-up stage sees the dead session first: it must not end the draft claims' grace.
          expect(mine(yield* lookUp())).toEqual([])
          expect(mine(yield* draft())).toEqual([])
          yield* TestClock.adjust("9 seconds")
          expect(mine(yield* lookUp())).toEqual([])
          expect(mine(yield* draft())).toEqual([])
          yield* TestClock.adjust("1 second")
          // Then the draft stage takes them, and its look-up before creating sees what L's creates did.
          const taken = yield* draft()
          expect(mine(taken).sort((a, b) => a - b)).toEqual(ids)
          expect(taken.filter((o) => ids.includes(o.id)).every((o) => o.attempts > 0)).toBe(true)
        }))

      it.effect("a dead replica's look-up claim is taken at once by the look-up stage, even when the draft stage claims first", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(START)
          const repo = yield* OrdersRepo
          const ids = yield* pulledOrders("lookup-dead-", 2)
          for (const id of ids) yield* repo.transition(id, "pulled", "ready", { actor: "test", reason: "matched" })
          const lookedUp = { when: "notRecently" as const, withinMs: 60_000 }
          const mine = (claimed: ReadonlyArray<{ readonly id: number }>) => claimed.map((o) => o.id).filter((id) => ids.includes(id))
          const life = yield* Scope.make()
          yield* Scope.extend(makeSessionTie("replica-n-session"), life)
          expect(mine(yield* repo.claim(["ready"], 100, "replica-n-session", 60, { tiedToSession: true, lookedUp }))).toHaveLength(2)
          yield* Scope.close(life, Exit.void)
          // The draft stage's claim sees only claims that counted an attempt: it leaves these alone.
          expect(mine(yield* repo.claim(["ready"], 100, "replica-o", 60, { countsAttempt: true, takeOverAfterMs: 10_000 }))).toEqual([])
          const taken = yield* repo.claim(["ready"], 100, "replica-o", 60, { takeOverAfterMs: 0, lookedUp })
          expect(mine(taken).sort((a, b) => a - b)).toEqual(ids)
        }))

      it.effect("a job run by a replica whose session ends is free at once; one whose holder lives, never (even past its lease)", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(START)
          const life = yield* Scope.make()
          const tie = yield* Scope.extend(makeSessionTie("replica-e-session"), life)
          const e = yield* makeJobLeases("replica-e-session").pipe(Effect.provideService(SessionTie, tie))
          const f = yield* makeJobLeases("replica-f")
          // E runs the pull and hangs in it.
          const started = yield* Deferred.make<void>()
          const running = yield* Effect.fork(
            e.exclusive("pull:tied", Effect.zipRight(Deferred.succeed(started, undefined), Effect.never)).pipe(
              Effect.provideService(SessionTie, tie)
            )
          )
          yield* Deferred.await(started)
          const lease = Effect.flatMap(
            Db,
            (db) => db.use((k) => k.selectFrom("job_leases").select(["owner", "session"]).where("job", "=", "pull:tied").executeTakeFirst())
          )
          const held = yield* lease
          expect(held).toEqual({ owner: "replica-e-session", session: true })
          // Its lease ran out (no heartbeat while the process was stopped): it still holds the job.
          yield* Effect.flatMap(
            Db,
            (db) =>
              db.use((k) =>
                k.updateTable("job_leases").set({ expires_at: new Date(START - 1_000) }).where("job", "=", "pull:tied").execute()
              )
          )
          expect(yield* f.exclusive("pull:tied", Effect.void)).toMatchObject({ _tag: "Coalesced" })
          // Its session ends (killed): F runs the job at once.
          yield* Scope.close(life, Exit.void)
          expect(yield* f.exclusive("pull:tied", Effect.void)).toEqual({ _tag: "Ran", runs: 1 })
          yield* Fiber.interrupt(running)
        }))

      it.effect("an alert channel's tied lease is free one send's timeout after its holder's session ends; while it lives, at its expiry", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(START)
          const alerts = yield* AlertsRepo
          const take = (owner: string, tied: boolean) => alerts.takeChannel("tickets-tied", owner, 20_000, tied, 3_000)
          const life = yield* Scope.make()
          const tie = yield* Scope.extend(makeSessionTie("replica-s-session"), life)
          expect(yield* tie.tied).toBe(true)
          expect(yield* take("replica-s-session", true)).toEqual({ lastSentAt: null })
          // Alive and sending: the channel is its own until the lease ends (a stopped sender's as before).
          yield* TestClock.adjust("19 seconds")
          expect(yield* take("replica-t", false)).toBeUndefined()
          yield* TestClock.adjust("1 second")
          expect(yield* take("replica-t", false)).toEqual({ lastSentAt: null })

          // S takes it again and is killed mid-send: once seen, one send's timeout (3 s), not the 20 s lease.
          yield* alerts.releaseChannel("tickets-tied", "replica-t")
          expect(yield* take("replica-s-session", true)).toEqual({ lastSentAt: null })
          yield* Scope.close(life, Exit.void)
          expect(yield* take("replica-t", false)).toBeUndefined()
          yield* TestClock.adjust("2 seconds")
          expect(yield* take("replica-t", false)).toBeUndefined()
          yield* TestClock.adjust("1 second")
          expect(yield* take("replica-t", false)).toEqual({ lastSentAt: null })
        }))

      it.effect("a tie lost and taken again: what the lost session held keeps to its lease, then is free, to this replica too", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(START)
          const ids = yield* pulledOrders("retie-", 2)
          const owner = "replica-r-session"
          const tie = yield* makeSessionTie(owner)
          expect(yield* claimOf(ids, owner, true)).toEqual(ids)
          // A pull whose run ended while the server was away: its lease could not be given back.
          yield* leftBehindLease("pull:retie", owner, true)
          // The server ends the tie's session (a failover, an idle timeout); the replica ties itself again.
          yield* Effect.flatMap(Db, (db) =>
            db.use((k) =>
              sql`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory'
                and classid = ${sql.lit(SESSION_LOCK_CLASS)}::oid and objid = hashtext(${owner})::oid`.execute(k)
            ))
          yield* untilTrue("the tie to be seen lost", Effect.map(tie.tied, (tied) => !tied))
          yield* TestClock.adjust("2 seconds")
          yield* untilTrue("the tie to be taken again", tie.tied)
          // Held by a live session of the same replica, they would otherwise never be free again.
          const other = yield* makeJobLeases("replica-s")
          expect(yield* claimOf(ids, "replica-s", false)).toEqual([])
          expect(yield* other.exclusive("pull:retie", Effect.void)).toMatchObject({ _tag: "Coalesced" })
          yield* TestClock.adjust("59 seconds")
          expect(yield* claimOf(ids, owner, true)).toEqual(ids)
          expect(yield* other.exclusive("pull:retie", Effect.void)).toEqual({ _tag: "Ran", runs: 1 })
        }).pipe(Effect.scoped))
    }

    it.effect("an untied claim keeps to its lease's expiry, whether its holder lives or not", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(START)
        const ids = yield* pulledOrders("untied-", 2)
        // A replica with no session lock (PGlite, an earlier version, a pooler): its claims are not marked.
        expect(yield* claimOf(ids, "replica-untied", false)).toEqual(ids)
        yield* TestClock.adjust("59 seconds")
        expect(yield* claimOf(ids, "replica-c", false)).toEqual([])
        yield* TestClock.adjust("2 seconds")
        expect(yield* claimOf(ids, "replica-c", false)).toEqual(ids)
      }))

    it.effect("a restart on a database held alone frees its predecessor's claims once a request it sent may no longer be at work", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(START)
        const ids = yield* pulledOrders("restart-", 2)
        expect(yield* claimOf(ids, "killed-predecessor", false)).toEqual(ids)
        const repo = yield* OrdersRepo
        expect(yield* repo.releaseAllLeases(10_000)).toBeGreaterThanOrEqual(2)
        yield* TestClock.adjust("9 seconds")
        expect(yield* claimOf(ids, "successor", false)).toEqual([])
        yield* TestClock.adjust("1 second")
        expect(yield* claimOf(ids, "successor", false)).toEqual(ids)
        // Work that sends nothing elsewhere is free at once.
        const more = yield* pulledOrders("restart-match-", 1)
        expect(yield* claimOf(more, "killed-predecessor", false)).toEqual(more)
        yield* repo.releaseAllLeases(0)
        expect(yield* claimOf(more, "successor", false)).toEqual(more)
      }))

    it.effect("a restart on a database held alone ends its predecessor's job leases at once, keeping their ticks for takeover", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(START)
        const killed = yield* makeJobLeases("killed-jobs")
        const started = yield* Deferred.make<void>()
        const hang = Effect.zipRight(Deferred.succeed(started, undefined), Effect.never)
        const running = yield* Effect.fork(killed.exclusive("pull:restart", hang, { tickAt: new Date(START) }))
        yield* Deferred.await(started)
        expect(yield* endDeadJobLeases).toBeGreaterThanOrEqual(1)
        const successor = yield* makeJobLeases("successor-jobs")
        expect(yield* successor.exclusive("pull:restart", Effect.void)).toEqual({ _tag: "Ran", runs: 1 })
        yield* Fiber.interrupt(running)
      }))

    it.effect("a job lease this replica could not give back (the database away as its run ended) does not keep it from the job", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(START)
        const tie = yield* makeSessionTie("replica-q")
        yield* leftBehindLease("pull:left-behind", "replica-q", yield* tie.tied)
        const q = yield* makeJobLeases("replica-q").pipe(Effect.provideService(SessionTie, tie))
        const r = yield* makeJobLeases("replica-t")
        // To another replica it is held, until it expires; this replica, which runs nothing, runs the job now.
        expect(yield* r.exclusive("pull:left-behind", Effect.void)).toMatchObject({ _tag: "Coalesced" })
        expect(yield* q.exclusive("pull:left-behind", Effect.void).pipe(Effect.provideService(SessionTie, tie))).toEqual({
          _tag: "Ran",
          runs: 1
        })
        // One run at a time in this process still: asked for while it runs, it is folded into a follow-up.
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        let runs = 0
        const job = Effect.sync(() => runs++).pipe(
          Effect.zipRight(Deferred.succeed(started, undefined)),
          Effect.zipRight(Deferred.await(release))
        )
        const first = yield* Effect.fork(q.exclusive("pull:once", job))
        yield* Deferred.await(started)
        expect(yield* q.exclusive("pull:once", job)).toEqual({ _tag: "Coalesced", holder: "replica-q" })
        yield* Deferred.succeed(release, undefined)
        expect(yield* Fiber.join(first)).toEqual({ _tag: "Ran", runs: 2 })
        expect(runs).toBe(2)
      }).pipe(Effect.scoped))

    it.effect(
      database.name === "postgres" ? "ties on PostgreSQL" : "never ties on the embedded database (one process holds it)",
      () =>
        Effect.gen(function*() {
          const tie = yield* makeSessionTie("replica-d")
          expect(yield* tie.tied).toBe(database.name === "postgres")
        }).pipe(Effect.scoped)
    )
  })

suite(pgliteDatabase())
const url = process.env.TEST_DATABASE_URL
if (url) suite(postgresDatabase(url))
