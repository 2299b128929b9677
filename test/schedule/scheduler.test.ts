import { describe, expect, it, layer } from "@effect/vitest"
import { Deferred, Effect, Ref, TestClock } from "effect"
import { Db } from "../../src/db/Db.js"
import { makeRunCoordinator } from "../../src/schedule/RunCoordinator.js"
import { makeScheduler } from "../../src/schedule/Scheduler.js"
import { testDatabases } from "../support/database.js"

const jobRuns = (job: string) =>
  Effect.flatMap(Db, (db) => db.use((k) => k.selectFrom("job_runs").selectAll().where("job", "=", job).orderBy("tick_at").execute()))

for (const database of testDatabases()) {
  // A standalone layer per backend: it.layer would share one memo map and build the second suite's services on the first one's database.
  layer(database.layer)(`run coordinator on ${database.name}`, (it) => {
    it.effect("elects exactly one replica per tick and records the outcome", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.parse("2026-11-21T06:00:00Z"))
        const replicas = yield* Effect.all(["a", "b", "c"].map((owner) => makeRunCoordinator(owner)))
        const tick = new Date("2026-11-21T06:00:00Z")
        const elected = yield* Effect.all(replicas.map((r) => r.claim("pull", tick)), { concurrency: "unbounded" })
        expect(elected.filter(Boolean)).toHaveLength(1)

        const winner = replicas[elected.indexOf(true)]!
        yield* TestClock.adjust("3 seconds")
        yield* winner.finish("pull", tick, "done", null)
        const [run] = yield* jobRuns("pull")
        expect(run).toMatchObject({ status: "done", error: null })
        expect(run!.finished_at!.getTime() - run!.started_at.getTime()).toBe(3_000)

        // The next tick is a new election.
        const next = yield* Effect.all(replicas.map((r) => r.claim("pull", new Date("2026-11-21T06:02:00Z"))))
        expect(next.filter(Boolean)).toHaveLength(1)
      }))
  })
}

describe("scheduler (node-cron with the run coordinator)", () => {
  const database = testDatabases().at(-1)!
  it.live(`runs each tick once across three replicas and records it (${database.name})`, () =>
    Effect.gen(function*() {
      const runs = yield* Ref.make(0)
      const enough = yield* Deferred.make<void>()
      const job = Effect.gen(function*() {
        const n = yield* Ref.updateAndGet(runs, (x) => x + 1)
        if (n >= 3) yield* Deferred.succeed(enough, undefined)
      })
      yield* Effect.scoped(Effect.gen(function*() {
        for (const owner of ["replica-1", "replica-2", "replica-3"]) {
          const scheduler = yield* makeScheduler({ owner, timezone: "UTC" })
          yield* scheduler.schedule("every-second", "* * * * * *", job)
        }
        yield* Deferred.await(enough).pipe(Effect.timeout("20 seconds"))
      }))
      const rows = yield* jobRuns("every-second")
      const executed = yield* Ref.get(runs)
      // One row per tick, one execution per row: no tick ran twice.
      expect(new Set(rows.map((r) => r.tick_at.toISOString())).size).toBe(rows.length)
      expect(executed).toBe(rows.length)
      expect(rows.every((r) => r.owner.startsWith("replica-"))).toBe(true)
    }).pipe(Effect.provide(database.layer)), 30_000)
})
