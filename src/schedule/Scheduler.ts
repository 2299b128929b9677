import { Cause, Effect, FiberSet, Runtime } from "effect"
import { createTask, type Logger } from "node-cron"
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
 * job_runs and logged; the schedule goes on. Jobs run in a FiberSet of the
 * scheduler's scope: when it closes (shutdown), tasks stop and a job in flight
 * is interrupted instead of outliving the daemon.
 */
export const makeScheduler = (options: ScheduleOptions) =>
  Effect.gen(function*() {
    const { coordinator, finish } = yield* makeRunCoordinator(options.owner)
    const runtime = yield* Effect.runtime<never>()
    const jobs = yield* FiberSet.make<void, never>()
    const runJob = yield* FiberSet.runtimePromise(jobs)<never>()
    const log = (job: string, level: "debug" | "warning" | "error") => (message: string | Error, error?: Error) => {
      const text = message instanceof Error ? message.message : message
      // A tick that finds the previous run still going is skipped by design (noOverlap): not a warning.
      const skipped = /overlap/i.test(text)
      Runtime.runFork(runtime)(
        (skipped || level === "debug" ? Effect.logDebug : level === "error" ? Effect.logError : Effect.logWarning)(
          skipped ? `skipped a tick of ${job}: its previous run is still going` : `node-cron: ${text}${error ? ` (${error.message})` : ""}`
        ).pipe(Effect.annotateLogs({ job }))
      )
    }
    const loggerFor = (job: string): Logger => ({
      info: log(job, "debug"),
      debug: log(job, "debug"),
      warn: log(job, "warning"),
      error: log(job, "error")
    })

    const schedule = (name: string, expression: string, job: Effect.Effect<void, unknown>) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const task = createTask(expression, (context) => {
            const { job: jobName, tickAt } = parseTickKey(`${name}:${context.date.toISOString()}`)
            return runJob(
              job.pipe(
                Effect.withLogSpan(`job.${name}`),
                Effect.annotateLogs({ job: name }),
                Effect.catchAllCause((cause) =>
                  Cause.isInterruptedOnly(cause)
                    ? Effect.void
                    : Effect.zipRight(
                      Effect.logError(`scheduled job ${name} failed`, cause),
                      finish(jobName, tickAt, "failed", Cause.pretty(cause).split("\n")[0] ?? "failed").pipe(Effect.ignore)
                    )
                )
              )
            ).catch(() => undefined) // interrupted by shutdown
          }, { name, noOverlap: true, distributed: true, runCoordinator: coordinator, timezone: options.timezone, logger: loggerFor(name) })
          void task.start()
          return task
        }),
        (task) => Effect.promise(async () => task.destroy())
      )

    return { schedule }
  })
