import { logFailure } from "../observability/DependencyHealth.js"
/**
 * The morning report on `schedules.report`: each tick writes the previous
 * day's report, on one replica only (the Postgres run coordinator). A daemon
 * that was down at the scheduled time writes the missing report once, a
 * little after it starts, also on one replica only.
 */
import { Cause, type Duration, Effect, Exit, Layer } from "effect"
import { replicaIdentity } from "../schedule/ReplicaIdentity.js"
import { makeRunCoordinator } from "../schedule/RunCoordinator.js"
import { makeScheduler } from "../schedule/Scheduler.js"
import { ReportService } from "./ReportService.js"

export interface ReportScheduleOptions {
  /** `schedules.report`, a node-cron expression. */
  readonly expression: string
  /** `reports.timezone`: the cron expression and the report's day are read in it. */
  readonly timezone: string
  readonly owner?: string
  /** How long after start the missing previous-day report is written; false: never. Default 1 minute. */
  readonly catchUpAfter?: Duration.DurationInput | false
}

/** Writes the previous day's report if no replica has, once per period across replicas. */
export const catchUpPreviousDay = (owner: string) =>
  Effect.gen(function*() {
    const reports = yield* ReportService
    const period = yield* reports.previousDayPeriod
    if ((yield* reports.written(period, null)) !== undefined) return "already_written" as const
    const { claim, finish } = yield* makeRunCoordinator(owner)
    const tickAt = new Date(period.from)
    if (!(yield* claim("report-catch-up", tickAt))) return "claimed_elsewhere" as const
    const exit = yield* Effect.exit(reports.runFor(period, null))
    yield* finish(
      "report-catch-up",
      tickAt,
      Exit.isSuccess(exit) ? "done" : "failed",
      Exit.isSuccess(exit) ? null : Cause.pretty(exit.cause).split("\n")[0] ?? "failed"
    )
    return Exit.isSuccess(exit) ? "written" as const : yield* exit
  })

export const ReportScheduleLive = (options: ReportScheduleOptions) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const reports = yield* ReportService
    const owner = options.owner ?? (yield* replicaIdentity)
    const scheduler = yield* makeScheduler({ owner, timezone: options.timezone, logFailure })
    yield* scheduler.schedule("report", options.expression, reports.runPreviousDay)
    if (options.catchUpAfter !== false) {
      yield* catchUpPreviousDay(owner).pipe(
        Effect.delay(options.catchUpAfter ?? "1 minute"),
        Effect.catchAllCause((cause) => Effect.logError("the catch-up report failed; the next scheduled run writes it", cause)),
        Effect.forkScoped
      )
    }
  }))
