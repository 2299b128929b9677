import { Cause, Effect, FiberSet, Runtime, Schedule } from "effect"
import { createTask, type Logger } from "node-cron"
import { makeJobLeases } from "./JobLeases.js"
import { makeRunCoordinator, parseTickKey } from "./RunCoordinator.js"

/** How often a replica looks for ticks whose holder died mid-run. */
const TAKE_OVER_EVERY = "20 seconds"

export interface ScheduleOptions {
  /** Process identity recorded in job_runs. */
  readonly owner: string
  readonly timezone: string
  /** How a failed run is logged (the daemon lowers a database failure it already reported). Default: at error level. */
  readonly logFailure?: (message: string, cause: Cause.Cause<unknown>) => Effect.Effect<void>
}

/**
 * node-cron as an Effect service: wall-clock triggers from cron expressions,
 * each tick run once across replicas (Postgres run coordinator), and each job
 * never overlapping itself anywhere (JobLeases): a tick that finds its job
 * still running is folded into one follow-up run and recorded as coalesced; a
 * tick whose replica died mid-run is taken over once its lease expires. A failed run is recorded in
 * job_runs and logged; the schedule goes on. Jobs run in a FiberSet of the
 * scheduler's scope: when it closes (shutdown), tasks stop and a job in flight
 * is interrupted instead of outliving the daemon.
 */
export const makeScheduler = (options: ScheduleOptions) =>
  Effect.gen(function*() {
    const { coordinator, finish } = yield* makeRunCoordinator(options.owner)
    const leases = yield* makeJobLeases(options.owner)
    const runtime = yield* Effect.runtime<never>()
    const jobs = yield* FiberSet.make<void, never>()
    const runJob = yield* FiberSet.runtimePromise(jobs)<never>()
    const log = (job: string, level: "debug" | "warning" | "error") => (message: string | Error, error?: Error) => {
      const text = message instanceof Error ? message.message : message
      Runtime.runFork(runtime)(
        (level === "debug" ? Effect.logDebug : level === "error" ? Effect.logError : Effect.logWarning)(
          `node-cron: ${text}${error ? ` (${error.message})` : ""}`
        ).pipe(Effect.annotateLogs({ job }))
      )
    }
    const loggerFor = (job: string): Logger => ({
      info: log(job, "debug"),
      debug: log(job, "debug"),
      warn: log(job, "warning"),
      error: log(job, "error")
    })

    const known = new Map<string, Effect.Effect<void, unknown>>()
    const schedule = (name: string, expression: string, job: Effect.Effect<void, unknown>) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          known.set(name, job)
          const task = createTask(expression, (context) => {
            const { job: jobName, tickAt } = parseTickKey(`${name}:${context.date.toISOString()}`)
            return runJob(
              leases.exclusive(name, job, { tickAt }).pipe(
                Effect.flatMap((outcome) =>
                  outcome._tag === "Coalesced"
                    ? finish(jobName, tickAt, "coalesced", `folded into one follow-up run of the run in progress on ${outcome.holder}`)
                    : Effect.void
                ),
                Effect.withLogSpan(`job.${name}`),
                Effect.annotateLogs({ job: name }),
                Effect.catchAllCause((cause) =>
                  Cause.isInterruptedOnly(cause)
                    ? Effect.void
                    : Effect.zipRight(
                      (options.logFailure ?? Effect.logError)(`scheduled job ${name} failed`, cause),
                      finish(jobName, tickAt, "failed", Cause.pretty(cause).split("\n")[0] ?? "failed").pipe(Effect.ignore)
                    )
                )
              )
            ).catch(() => undefined) // interrupted by shutdown
          }, {
            name,
            noOverlap: false,
            distributed: true,
            runCoordinator: coordinator,
            timezone: options.timezone,
            logger: loggerFor(name)
          })
          void task.start()
          return task
        }),
        (task) => Effect.promise(async () => task.destroy())
      )

    // A replica that died mid-run leaves its tick to be served here once its lease expires.
    yield* leases.takeOver(known).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("looking for ticks to take over failed; looked again shortly", cause)),
      Effect.repeat(Schedule.spaced(TAKE_OVER_EVERY)),
      Effect.forkScoped
    )

    /** Runs a job on demand (not on a tick), under the same rule: never beside another run of it. */
    const runNow = <E, R>(name: string, job: Effect.Effect<void, E, R>) => Effect.asVoid(leases.exclusive(name, job))

    return { schedule, runNow }
  })
