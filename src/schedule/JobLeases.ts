import { Clock, Data, Effect, Exit, Option, Schedule } from "effect"
import { sql } from "kysely"
import { Db, type DbError } from "../db/Db.js"
import { ownerSessionLive, SessionTie } from "../db/SessionTie.js"

/** A run holds its job this long without a heartbeat: a killed holder's job is free again within it. */
export const JOB_LEASE_MS = 60_000
const HEARTBEAT = "15 seconds"

/**
 * Ends every job lease still running: only for a database this process holds alone (the embedded
 * one, behind its data-folder lock), where any is a dead predecessor's. The ticks they served stay
 * recorded, so the scheduler's `takeOver` serves them at once instead of a lease later.
 */
export const endDeadJobLeases = Effect.gen(function*() {
  const db = yield* Db
  const now = new Date(yield* Clock.currentTimeMillis)
  const ended = yield* db.use((k) =>
    k.updateTable("job_leases").set({ expires_at: now, rerun: false, session: false }).where("expires_at", ">", now).executeTakeFirst()
  )
  return Number(ended.numUpdatedRows)
})

export class JobLeaseLostError extends Data.TaggedError("JobLeaseLostError")<{ readonly job: string }> {}

/** What asking to run a job came to: it ran (with any follow-up runs asked for meanwhile), or it was folded into the run in progress. */
export type ExclusiveOutcome =
  | { readonly _tag: "Ran"; readonly runs: number }
  | { readonly _tag: "Coalesced"; readonly holder: string }

/** Whether this replica took a job's lease (and the tick a dead holder left unserved), or who holds it. */
type Acquisition =
  | { readonly _tag: "Held"; readonly inherited: Date | null; readonly previous: string | null }
  | { readonly _tag: "Busy"; readonly holder: string }
const held = (inherited: Date | null, previous: string | null): Acquisition => ({ _tag: "Held", inherited, previous })
const busy = (holder: string): Acquisition => ({ _tag: "Busy", holder })

export interface ExclusiveOptions<R> {
  /** The cron tick this run serves: taken over by another replica if this one dies holding the job. */
  readonly tickAt?: Date
  /** What a follow-up run does (a pull after a read of a few named orders is a whole pull). Default: the job again. */
  readonly followUp?: Effect.Effect<void, unknown, R>
}

/**
 * One run of a job at a time across replicas and within this process (`job_leases`): a store's
 * pull, the reconciliation, the catalog refresh, the report. A run holds the job's lease and
 * renews it while it runs; asking to run a job that runs elsewhere (or here) folds the request
 * into one follow-up run, made by the holder when it finishes, and says so in the log. A run
 * whose lease is lost (its renewals failed for a whole lease) is interrupted: the job may run
 * elsewhere now. A holder killed mid-run leaves its lease to expire; the tick it served is then
 * taken over (`takeOver`) by a replica that knows the job, once: the lease decides who.
 *
 * Times come from Effect's Clock, as the orders' leases do, so tests drive them with TestClock.
 */
export const makeJobLeases = (owner: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    // Within this process: running jobs, and whether a run was asked for while they ran.
    const local = new Map<string, { rerun: boolean }>()
    const clock = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
    const expiry = (now: Date) => new Date(now.getTime() + JOB_LEASE_MS)
    // Tied to this replica's database session where the daemon ties it (PostgreSQL, see SessionTie):
    // a lease so marked is free the moment its holder's session ends, and never while it lives.
    const tie = Option.getOrElse(yield* Effect.serviceOption(SessionTie), () => SessionTie.untied)
    const free = (now: Date) =>
      sql<boolean>`((not job_leases.session and job_leases.expires_at <= ${now})
        or (job_leases.session and not ${ownerSessionLive(sql.ref("job_leases.owner"))}))`

    // The `previous` of these statements is the row as the statement found it (its snapshot; a
    // FOR UPDATE there would see nothing, the row being changed by the statement itself); the
    // condition of the write is checked again on the newest row, so of two replicas one wins.

    /**
     * Takes the job's lease if it is free or expired, or already this replica's: asked only while the
     * job does not run in this process (`local`; each job is run through one JobLeases of its
     * process), such a lease is one whose giving back failed (the database was away as the run
     * ended). Answers the tick an expired holder left unserved.
     */
    const acquire = (job: string, tickAt: Date | null) =>
      Effect.gen(function*() {
        const now = yield* clock
        const tied = yield* tie.tied
        const { rows } = yield* db.use((k) =>
          sql<{ job: string; inherited: Date | null; previous: string | null }>`
            with previous as (select owner, tick_at from job_leases where job = ${job})
            insert into job_leases (job, owner, expires_at, rerun, tick_at, session)
            values (${job}, ${owner}, ${expiry(now)}, false, ${tickAt}, ${tied})
            on conflict (job) do update
              set owner = excluded.owner, expires_at = excluded.expires_at, rerun = false, tick_at = excluded.tick_at,
                session = excluded.session
              where ${free(now)} or job_leases.owner = ${owner}
            returning job, (select tick_at from previous) as inherited, (select owner from previous) as previous`.execute(k)
        )
        const row = rows[0]
        return row === undefined ? undefined : held(row.previous === owner ? null : row.inherited, row.previous)
      })

    /** Takes an expired lease whose tick is unserved (its holder died mid-run); answers that tick. */
    const acquireUnserved = (job: string) =>
      Effect.gen(function*() {
        const now = yield* clock
        const tied = yield* tie.tied
        const { rows } = yield* db.use((k) =>
          sql<{ job: string; inherited: Date | null; previous: string | null }>`
            with previous as (select owner, tick_at from job_leases where job = ${job})
            update job_leases set owner = ${owner}, expires_at = ${expiry(now)}, rerun = false, tick_at = null, session = ${tied}
            where job = ${job} and ${free(now)} and tick_at is not null
            returning job, (select tick_at from previous) as inherited, (select owner from previous) as previous`.execute(k)
        )
        const row = rows[0]
        return row === undefined ? busy("another replica") : held(row.inherited, row.previous)
      })

    /**
     * The job runs elsewhere: ask its holder for one follow-up run. Answers the holder and whether
     * a follow-up was already asked for (undefined: its lease just ended).
     */
    const askFollowUp = (job: string) =>
      Effect.gen(function*() {
        const now = yield* clock
        const { rows } = yield* db.use((k) =>
          sql<{ owner: string; already: boolean }>`
            with previous as (select rerun from job_leases where job = ${job})
            update job_leases set rerun = true where job = ${job} and not ${free(now)}
            returning owner, (select rerun from previous) as already`.execute(k)
        )
        return rows[0]
      })

    // The first request folded into a run is said at info level, the rest at debug: a pull that
    // runs for a minute under a pull schedule of a few seconds meets many ticks.
    const folded = (job: string, holder: string, already: boolean) =>
      (already ? Effect.logDebug : Effect.logInfo)(
        `${job} is still running on ${holder}: this run is folded into one follow-up run there`
      ).pipe(Effect.annotateLogs({ job, holder }))

    const renew = (job: string) =>
      Effect.gen(function*() {
        const now = yield* clock
        const row = yield* db.use((k) =>
          k.updateTable("job_leases").set({ expires_at: expiry(now) }).where("job", "=", job).where("owner", "=", owner)
            .returning("job").executeTakeFirst()
        )
        return row !== undefined
      })

    /** Renews the lease every beat; fails when another replica holds it now. A failed renewal is retried at the next beat. */
    const heartbeat = (job: string) =>
      Effect.delay(
        renew(job).pipe(
          Effect.catchAll(() => Effect.succeed(true)),
          Effect.flatMap((kept) => (kept ? Effect.void : Effect.fail(new JobLeaseLostError({ job })))),
          Effect.repeat(Schedule.spaced(HEARTBEAT))
        ),
        HEARTBEAT
      ).pipe(Effect.zipRight(Effect.never))

    /** Gives the lease back unless a follow-up run was asked for: then keeps it (renewed) and answers true. */
    const releaseOrFollowUp = (job: string) =>
      Effect.gen(function*() {
        const now = yield* clock
        const released = yield* db.use((k) =>
          k.updateTable("job_leases").set({ expires_at: now, tick_at: null, session: false }).where("job", "=", job)
            .where("owner", "=", owner)
            .where("rerun", "=", false).returning("job").executeTakeFirst()
        )
        if (released !== undefined) return false
        const again = yield* db.use((k) =>
          k.updateTable("job_leases").set({ rerun: false, expires_at: expiry(now), tick_at: null }).where("job", "=", job)
            .where("owner", "=", owner).where("rerun", "=", true).returning("job").executeTakeFirst()
        )
        return again !== undefined // else the lease was lost meanwhile: nothing more to do here
      })

    /**
     * A run that failed gives its lease back (the tick is recorded as failed by its scheduler); one
     * interrupted (shutdown) gives it back with its tick, for another replica to take over at once.
     */
    const giveUp = (job: string, keepTick: boolean) =>
      Effect.gen(function*() {
        const now = yield* clock
        yield* db.use((k) =>
          k.updateTable("job_leases").set({ expires_at: now, rerun: false, session: false, ...(keepTick ? {} : { tick_at: null }) })
            .where("job", "=", job).where("owner", "=", owner).execute()
        )
      }).pipe(Effect.catchAll(() => Effect.void)) // the lease expires anyway

    /** Records a tick served by a run other than the one its claimant started. */
    const markTakenOver = (job: string, tickAt: Date, from: string | null) =>
      Effect.gen(function*() {
        const now = yield* clock
        yield* db.use((k) =>
          k.updateTable("job_runs").set({
            owner,
            status: "done",
            finished_at: now,
            error: `taken over from ${from ?? "a replica that stopped"} after its lease expired`
          }).where("job", "=", job).where("tick_at", "=", tickAt).where("status", "=", "running").execute()
        )
      })

    /** Runs `effect` while holding the lease, then each follow-up asked for meanwhile. */
    const runHolding = <E, R>(job: string, effect: Effect.Effect<void, E, R>, followUp: Effect.Effect<void, unknown, R>) =>
      Effect.gen(function*() {
        let runs = 0
        let next: Effect.Effect<void, unknown, R> = effect
        for (;;) {
          runs += 1
          yield* Effect.raceFirst(next, heartbeat(job))
          const mark = local.get(job)
          const wantedHere = mark?.rerun === true
          if (mark !== undefined) mark.rerun = false
          const wantedElsewhere = yield* releaseOrFollowUp(job)
          if (!wantedHere && !wantedElsewhere) return runs
          if (wantedHere && !wantedElsewhere && !(yield* reacquire(job))) return runs
          yield* Effect.logInfo(`running ${job} again: it was asked for while it ran`).pipe(Effect.annotateLogs({ job }))
          next = followUp
        }
      })

    // After giving the lease back, take it again for a follow-up asked for in this process.
    const reacquire = (job: string) => Effect.map(acquire(job, null), (got) => got !== undefined)

    const exclusive = <E, R>(job: string, effect: Effect.Effect<void, E, R>, options: ExclusiveOptions<R> = {}) => {
      const acquired = Effect.gen(function*() {
        const got = yield* acquire(job, options.tickAt ?? null)
        if (got !== undefined) return got
        const holder = yield* askFollowUp(job)
        if (holder !== undefined) {
          yield* folded(job, holder.owner, holder.already)
          return busy(holder.owner)
        }
        // Its lease ended between the two statements.
        return (yield* acquire(job, options.tickAt ?? null)) ?? busy("another replica")
      })
      return holding(job, effect, options.followUp ?? effect, acquired, (running) => {
        const already = running.rerun
        running.rerun = true
        return Effect.as(folded(job, owner, already), { _tag: "Coalesced", holder: owner } satisfies ExclusiveOutcome as ExclusiveOutcome)
      })
    }

    /**
     * Runs `effect` (and its follow-ups) if `acquired` takes the lease, and marks a tick it inherited
     * served; if the job runs in this process already, `ifRunning` instead. Whether it runs here is
     * looked up and marked in one step, so that two fibers never both go on to `acquired` (which takes
     * a lease this replica holds: see `acquire`).
     */
    const holding = <E, R>(
      job: string,
      effect: Effect.Effect<void, E, R>,
      followUp: Effect.Effect<void, unknown, R>,
      acquired: Effect.Effect<Acquisition, DbError>,
      ifRunning: (running: { rerun: boolean }) => Effect.Effect<ExclusiveOutcome>
    ): Effect.Effect<ExclusiveOutcome, unknown, R> =>
      Effect.suspend(() => {
        const running = local.get(job)
        if (running !== undefined) return ifRunning(running)
        local.set(job, { rerun: false })
        return Effect.gen(function*() {
          const got = yield* acquired
          if (got._tag === "Busy") return { _tag: "Coalesced", holder: got.holder } as const
          const runs = yield* runHolding(job, effect, followUp).pipe(
            Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : giveUp(job, Exit.isInterrupted(exit))))
          )
          if (got.inherited !== null) yield* markTakenOver(job, got.inherited, got.previous)
          return { _tag: "Ran", runs } as const
        }).pipe(Effect.ensuring(Effect.sync(() => local.delete(job))))
      })

    /**
     * Takes over the ticks of `jobs` whose holder died mid-run (lease expired with the tick
     * unserved): each is run here once, and its `job_runs` row records who finished it.
     */
    const takeOver = <R>(jobs: ReadonlyMap<string, Effect.Effect<void, unknown, R>>) =>
      Effect.gen(function*() {
        if (jobs.size === 0) return 0
        const now = yield* clock
        const stale = yield* db.use((k) =>
          k.selectFrom("job_leases").select(["job", "owner", "tick_at"]).where("job", "in", [...jobs.keys()])
            .where(free(now)).where("tick_at", "is not", null).execute()
        )
        let taken = 0
        for (const lease of stale) {
          const job = jobs.get(lease.job)
          if (job === undefined || lease.tick_at === null) continue
          const outcome = yield* holding(
            lease.job,
            job,
            job,
            acquireUnserved(lease.job),
            () => Effect.succeed({ _tag: "Coalesced", holder: owner } as const)
          )
          if (outcome._tag === "Ran") {
            taken += 1
            yield* Effect.logWarning(
              `took over ${lease.job}'s tick of ${lease.tick_at.toISOString()} from ${lease.owner}, which stopped mid-run`
            )
              .pipe(Effect.annotateLogs({ job: lease.job }))
          }
        }
        return taken
      })

    return { exclusive, takeOver }
  })

export type JobLeases = Effect.Effect.Success<ReturnType<typeof makeJobLeases>>
