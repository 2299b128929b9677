import { Cause, Effect, Runtime } from "effect"
import { createTask } from "node-cron"
import { makeRunCoordinator, parseTickKey } from "./RunCoordinator.js"

export interface ScheduleOptions {
  /** Process identity recorded in job_runs. */
  readonly owner: string
  readonly timezone: string
}

/**
 * node-cron as an Effect service: wall-clock triggers from cron expressions,
 * each tick run once across replicas (Postgres run coordinator) and never
 * overlapping itself within a replica (noOverlap). A failed run is recorded in
 * job_runs and logged; the schedule goes on. Tasks stop when the scope closes.
 */
export const makeScheduler = (options: ScheduleOptions) =>
  Effect.gen(function*() {
    const { coordinator, finish } = yield* makeRunCoordinator(options.owner)
    const runtime = yield* Effect.runtime<never>()

    const schedule = (name: string, expression: string, job: Effect.Effect<void, unknown>) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const task = createTask(expression, async (context) => {
            const tickKey = `${name}:${context.date.toISOString()}`
            const outcome = await Runtime.runPromiseExit(runtime)(
              job.pipe(Effect.withLogSpan(`job.${name}`), Effect.annotateLogs({ job: name }))
            )
            if (outcome._tag === "Failure" && !Cause.isInterruptedOnly(outcome.cause)) {
              const { job: jobName, tickAt } = parseTickKey(tickKey)
              await Runtime.runPromise(runtime)(
                Effect.zipRight(
                  Effect.logError(`scheduled job ${name} failed`, outcome.cause),
                  finish(jobName, tickAt, "failed", Cause.pretty(outcome.cause).split("\n")[0] ?? "failed")
                ).pipe(Effect.ignore)
              )
            }
          }, { name, noOverlap: true, distributed: true, runCoordinator: coordinator, timezone: options.timezone })
          void task.start()
          return task
        }),
        (task) => Effect.promise(async () => task.destroy())
      )

    return { schedule }
  })
