import { Data, Effect, Schedule } from "effect"
import { watchDatabase } from "../observability/DependencyHealth.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"

/** A claim lasts this long without a heartbeat: a killed process's orders are claimable again within it. */
export const LEASE_SECONDS = 60
const HEARTBEAT = "15 seconds"

export class LeaseLostError extends Data.TaggedError("LeaseLostError")<{ readonly orderId: number }> {}

/**
 * Runs work on a claimed batch while renewing all its leases in one statement
 * per beat. If any lease is lost, the whole work is interrupted: another
 * replica may now hold that order (the others are given back by the caller).
 */
export const whileLeasedAll = <A, E, R>(orderIds: ReadonlyArray<number>, owner: string, work: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const heartbeat = Effect.delay(
      watchDatabase("renewing leases", repo.renewLeases(orderIds, owner, LEASE_SECONDS)).pipe(
        Effect.map((kept) => orderIds.find((id) => !kept.has(id))),
        // A failed renewal is seen (logged, counted) and retried at the next beat: the lease has slack.
        Effect.catchAll(() => Effect.succeed(undefined)),
        Effect.flatMap((lost) => (lost === undefined ? Effect.void : Effect.fail(new LeaseLostError({ orderId: lost })))),
        Effect.repeat(Schedule.spaced(HEARTBEAT))
      ),
      HEARTBEAT
    ).pipe(Effect.zipRight(Effect.never))
    return yield* Effect.raceFirst(work, heartbeat)
  })

/** Runs work on one claimed order while renewing its lease (see `whileLeasedAll`). */
export const whileLeased = <A, E, R>(orderId: number, owner: string, work: Effect.Effect<A, E, R>) => whileLeasedAll([orderId], owner, work)
