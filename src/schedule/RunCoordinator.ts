import { Clock, Effect, Runtime } from "effect"
import type { RunCoordinator } from "node-cron"
import { Db } from "../db/Db.js"
import type { JobRunStatus } from "../db/schema.js"

/** node-cron names a tick `<task name>:<slot as ISO time>`. */
export const parseTickKey = (key: string): { readonly job: string; readonly tickAt: Date } => {
  const at = key.indexOf(":")
  return { job: key.slice(0, at), tickAt: new Date(key.slice(at + 1)) }
}

/**
 * Elects one replica per cron tick through `job_runs` (primary key job +
 * tick): the replica whose insert lands runs the tick, the others skip it.
 * The row stays as the record of the run and its outcome.
 */
export const makeRunCoordinator = (owner: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const runtime = yield* Effect.runtime<never>()
    const run = Runtime.runPromise(runtime)

    const claim = (job: string, tickAt: Date) =>
      Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        const inserted = yield* db.use((k) =>
          k.insertInto("job_runs")
            .values({ job, tick_at: tickAt, owner, started_at: now, status: "running" })
            .onConflict((oc) => oc.columns(["job", "tick_at"]).doNothing())
            .returning("job")
            .executeTakeFirst()
        )
        return inserted !== undefined
      })

    const finish = (job: string, tickAt: Date, status: Exclude<JobRunStatus, "running">, error: string | null) =>
      Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* db.use((k) =>
          k.updateTable("job_runs")
            .set({ status, error, finished_at: now })
            .where("job", "=", job)
            .where("tick_at", "=", tickAt)
            .where("owner", "=", owner)
            .where("status", "=", "running")
            .execute()
        )
      })

    const coordinator: RunCoordinator = {
      shouldRun: (key) => {
        const { job, tickAt } = parseTickKey(key)
        return run(claim(job, tickAt))
      },
      onComplete: (key) => {
        const { job, tickAt } = parseTickKey(key)
        return run(finish(job, tickAt, "done", null))
      }
    }
    return { coordinator, claim, finish }
  })
