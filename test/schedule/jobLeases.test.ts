import { expect, layer } from "@effect/vitest"
import { Clock, Deferred, Effect, Exit, Fiber, Ref, TestClock } from "effect"
import { Db } from "../../src/db/Db.js"
import { JOB_LEASE_MS, makeJobLeases } from "../../src/schedule/JobLeases.js"
import { testDatabases } from "../support/database.js"

const START = Date.parse("2026-11-25T06:00:00Z")

/** A job that counts its runs; the first one waits for `release`. */
const gatedJob = Effect.gen(function*() {
  const runs = yield* Ref.make(0)
  const started = yield* Deferred.make<void>()
  const release = yield* Deferred.make<void>()
  const job = Effect.gen(function*() {
    const n = yield* Ref.updateAndGet(runs, (x) => x + 1)
    if (n === 1) {
      yield* Deferred.succeed(started, undefined)
      yield* Deferred.await(release)
    }
  })
  return { runs, started, release, job }
})

const lease = (job: string) =>
  Effect.flatMap(Db, (db) => db.use((k) => k.selectFrom("job_leases").selectAll().where("job", "=", job).executeTakeFirst()))

/**
 * Moves the test clock one heartbeat (15 s), then waits, in real time, until the holder's renewal of
 * that beat is in the database: the renewal is a real query, and a clock moved on before it lands
 * finds the heartbeat not yet asleep again, so later beats never renew (a loaded machine's failure).
 */
const heartbeat = (job: string) =>
  Effect.gen(function*() {
    yield* TestClock.adjust("15 seconds")
    const now = yield* Clock.currentTimeMillis
    for (let waited = 0; waited < 30_000; waited += 10) {
      const row = yield* lease(job)
      if (row !== undefined && new Date(row.expires_at).getTime() >= now + JOB_LEASE_MS) return
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
    return yield* Effect.die(new Error(`${job}'s lease was not renewed at ${new Date(now).toISOString()}`))
  })

for (const database of testDatabases()) {
  layer(database.layer)(`job leases on ${database.name}`, (it) => {
    it.effect("run a job once at a time across replicas; requests meanwhile fold into one follow-up run by the holder", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(START)
        const [a, b] = yield* Effect.all([makeJobLeases("replica-a"), makeJobLeases("replica-b")])
        const { runs, started, release, job } = yield* gatedJob
        const running = yield* Effect.fork(a.exclusive("pull:shop", job))
        yield* Deferred.await(started)

        // Three requests on another replica while it runs: each folded, none run there.
        for (let i = 0; i < 3; i++) expect(yield* b.exclusive("pull:shop", job)).toEqual({ _tag: "Coalesced", holder: "replica-a" })
        // And one in the holder's own process.
        expect(yield* a.exclusive("pull:shop", job)).toEqual({ _tag: "Coalesced", holder: "replica-a" })
        expect(yield* Ref.get(runs)).toBe(1)

        yield* Deferred.succeed(release, undefined)
        // The holder runs once more for all four requests, then gives the job back.
        expect(yield* Fiber.join(running)).toEqual({ _tag: "Ran", runs: 2 })
        expect(yield* Ref.get(runs)).toBe(2)
        expect(yield* b.exclusive("pull:shop", job)).toEqual({ _tag: "Ran", runs: 1 })
        expect(yield* Ref.get(runs)).toBe(3)
      }))

    it.effect("keep a long run's lease alive, and interrupt a run whose lease another replica took", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(START)
        const [a, b] = yield* Effect.all([makeJobLeases("replica-a"), makeJobLeases("replica-b")])
        const { started, job } = yield* gatedJob
        const running = yield* Effect.fork(a.exclusive("reconcile", job))
        yield* Deferred.await(started)
        // Renewed every 15 s: three lease lengths later the job is still its own.
        for (let i = 0; i < 12; i++) yield* heartbeat("reconcile")
        expect(yield* b.exclusive("reconcile", Effect.void)).toMatchObject({ _tag: "Coalesced" })

        // Taken from it (its renewals failed for a whole lease, say): the run stops at its next beat.
        yield* Effect.flatMap(Db, (db) => db.use((k) => k.updateTable("job_leases").set({ owner: "replica-b" }).execute()))
        yield* TestClock.adjust("15 seconds")
        const exit = yield* Fiber.await(running)
        expect(Exit.isFailure(exit) && JSON.stringify(exit.cause).includes("JobLeaseLostError")).toBe(true)
      }))

    it.effect("take a dead holder's tick over once its lease expires, exactly once, and record who served it", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(START)
        const tick = new Date(START - 5_000)
        // Replica "dead" claimed the report tick and took the job's lease, then was killed mid-run.
        yield* Effect.flatMap(Db, (db) =>
          db.use(async (k) => {
            await k.insertInto("job_runs").values({ job: "report", tick_at: tick, owner: "dead", started_at: tick, status: "running" })
              .execute()
            await k.insertInto("job_leases").values({
              job: "report",
              owner: "dead",
              expires_at: new Date(START + JOB_LEASE_MS),
              tick_at: tick
            })
              .execute()
          }))
        const [b, c] = yield* Effect.all([makeJobLeases("replica-b"), makeJobLeases("replica-c")])
        const runs = yield* Ref.make(0)
        const jobs = new Map([["report", Ref.update(runs, (n) => n + 1)]])

        // Its lease still counts: nobody runs the tick yet.
        expect(yield* b.takeOver(jobs)).toBe(0)
        yield* TestClock.adjust(JOB_LEASE_MS + 1_000)
        const taken = yield* Effect.all([b.takeOver(jobs), c.takeOver(jobs)], { concurrency: "unbounded" })
        expect(taken[0] + taken[1]).toBe(1)
        expect(yield* Ref.get(runs)).toBe(1)
        // Served and recorded; later sweeps find nothing.
        expect(yield* b.takeOver(jobs)).toBe(0)
        expect(yield* c.takeOver(jobs)).toBe(0)
        const row = yield* Effect.flatMap(
          Db,
          (db) => db.use((k) => k.selectFrom("job_runs").selectAll().where("job", "=", "report").executeTakeFirstOrThrow())
        )
        expect(row.status).toBe("done")
        expect(row.owner).toMatch(/^replica-[bc]$/)
        expect(row.error).toContain("taken over from dead")
        expect((yield* lease("report"))?.tick_at).toBeNull()
      }))

    it.effect("give a failed run's lease back at once", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(START)
        const [a, b] = yield* Effect.all([makeJobLeases("replica-a"), makeJobLeases("replica-b")])
        const failed = yield* Effect.exit(a.exclusive("catalog", Effect.fail("the POD service is down")))
        expect(Exit.isFailure(failed)).toBe(true)
        expect(yield* b.exclusive("catalog", Effect.void)).toEqual({ _tag: "Ran", runs: 1 })
      }))
  })
}
