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
    const log = (level: "debug" | "warning" | "error") => (message: string | Error, error?: Error) =>
      Runtime.runFork(runtime)(
        (level === "error" ? Effect.logError : level === "warning" ? Effect.logWarning : Effect.logDebug)(
          `node-cron: ${message instanceof Error ? message.message : message}${error ? ` (${error.message})` : ""}`
        )
      )
    const logger: Logger = { info: log("debug"), debug: log("debug"), warn: log("warning"), error: log("error") }

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
          }, { name, noOverlap: true, distributed: true, runCoordinator: coordinator, timezone: options.timezone, logger })
          void task.start()
          return task
        }),
        (task) => Effect.promise(async () => task.destroy())
      )

    return { schedule }
  })
