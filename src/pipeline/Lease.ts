import { Context, Data, Duration, Effect, Schedule } from "effect"
import { watchDatabase } from "../observability/DependencyHealth.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"

/** A claim lasts this long without a heartbeat: a killed process's orders are claimable again within it. */
export const LEASE_SECONDS = 60

/**
 * How long this daemon's claims last without a heartbeat (`pipeline.leaseSeconds`, default 60 s);
 * each is renewed every quarter of it. Where claims are tied to the database session (PostgreSQL)
 * it matters only when that tie is lost; untied (PGlite, a transaction pooler) it is how long a
 * killed or stopped replica's orders wait before another takes them.
 */
export class LeaseLength extends Context.Reference<LeaseLength>()("podsync/LeaseLength", {
  defaultValue: () => LEASE_SECONDS
}) {}

export class LeaseLostError extends Data.TaggedError("LeaseLostError")<{ readonly orderId: number }> {}

/**
 * Runs work on a claimed batch while renewing all its leases in one statement
 * per beat. If any lease is lost, the whole work is interrupted: another
 * replica may now hold that order (the others are given back by the caller).
 */
export const whileLeasedAll = <A, E, R>(orderIds: ReadonlyArray<number>, owner: string, work: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const leaseSeconds = yield* LeaseLength
    const beat = Duration.millis(leaseSeconds * 250)
    const heartbeat = Effect.delay(
      watchDatabase("renewing leases", repo.renewLeases(orderIds, owner, leaseSeconds)).pipe(
        Effect.map((kept) => orderIds.find((id) => !kept.has(id))),
        // A failed renewal is seen (logged, counted) and retried at the next beat: the lease has slack.
        Effect.catchAll(() => Effect.succeed(undefined)),
        Effect.flatMap((lost) => (lost === undefined ? Effect.void : Effect.fail(new LeaseLostError({ orderId: lost })))),
        Effect.repeat(Schedule.spaced(beat))
      ),
      beat
    ).pipe(Effect.zipRight(Effect.never))
    return yield* Effect.raceFirst(work, heartbeat)
  })

/** Runs work on one claimed order while renewing its lease (see `whileLeasedAll`). */
export const whileLeased = <A, E, R>(orderId: number, owner: string, work: Effect.Effect<A, E, R>) => whileLeasedAll([orderId], owner, work)
