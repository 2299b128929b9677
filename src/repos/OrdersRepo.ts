import { Data, Effect } from "effect"
import { sql } from "kysely"
import { Db } from "../db/Db.js"
import { ownerSessionLive } from "../db/SessionTie.js"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import { AWAITING_STORE_PAYMENT, canTransition, NEEDS_A_PERSON, type OrderState } from "../domain/OrderState.js"
import { json, now, ORDER_COLUMNS, type Row, toStored } from "./OrderRows.js"
import { makeOrderFixes } from "./OrderFixes.js"
import { makePackageLooks } from "./PackageLooks.js"
import { makeOrderLookups } from "./OrderLookups.js"
import { makeStorePage } from "./PulledPages.js"
import { OPEN_PUSH_STATES } from "./ShipmentsRepo.js"

export type { FollowedOrder, OrderEvent, PulledOutcome, StoredOrder } from "./OrderRows.js"

export class StaleTransitionError extends Data.TaggedError("StaleTransitionError")<{
  readonly orderId: number
  readonly expected: OrderState
  readonly to: OrderState
}> {}

export class IllegalTransitionError extends Data.TaggedError("IllegalTransitionError")<{
  readonly from: OrderState
  readonly to: OrderState
}> {}

export interface TransitionChange {
  readonly reason: string
  readonly actor: string
  readonly data?: unknown
  readonly held?: { readonly code: string; readonly details: unknown } | null
  readonly podDraftId?: string
  readonly podOrderId?: string
  readonly podStatus?: string
  readonly lastError?: unknown
  readonly nextAttemptAt?: Date | null
  readonly attempts?: number
  readonly plannedLines?: ReadonlyArray<{ readonly lineId: string; readonly quantity: number }>
  /** Also give the claim back (if this owner still holds it), in the same statement; `nextAttemptAt` says when it is due again. */
  readonly release?: string
  /** Only if the order has no shipment still to push (a tracking recorded while the order was being fulfilled). */
  readonly unlessOpenShipments?: boolean
}

/** One order's move, for `transitionMany`. */
export interface Move {
  readonly id: number
  readonly from: OrderState
  readonly to: OrderState
  readonly change: TransitionChange
}

/** A move as one row of the statement's input: a `set_*` flag says a nullable column is written, absent values keep theirs. */
const moveRow = ({ id, from, to, change }: Move) => {
  const held = change.held !== undefined ? change.held : to !== "held" ? null : undefined
  return {
    id,
    from_state: from,
    to_state: to,
    reason: change.reason,
    actor: change.actor,
    data: change.data === undefined ? null : change.data,
    set_held: held !== undefined,
    held_reason: held?.code ?? null,
    held_details: held ? held.details ?? null : null,
    pod_draft_id: change.podDraftId ?? null,
    pod_order_id: change.podOrderId ?? null,
    pod_status: change.podStatus ?? null,
    set_last_error: change.lastError !== undefined,
    last_error: change.lastError ?? null,
    set_next: change.nextAttemptAt !== undefined,
    next_attempt_at: change.nextAttemptAt?.toISOString() ?? null,
    attempts: change.attempts ?? null,
    planned_lines: change.plannedLines?.map((l) => ({ lineId: l.lineId, quantity: l.quantity })) ?? null,
    release_owner: change.release ?? null,
    unless_open: change.unlessOpenShipments === true
  }
}

export class OrdersRepo extends Effect.Service<OrdersRepo>()("podsync/OrdersRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    const appendEvent = (
      orderId: number,
      at: Date,
      actor: string,
      from: OrderState | null,
      to: OrderState,
      reason: string,
      data?: unknown
    ) =>
      db.use((k) =>
        k.insertInto("order_events").values({ order_id: orderId, at, actor, from_state: from, to_state: to, reason, data: json(data) })
          .execute()
      )

    /** Stores a page of pulled orders (PulledPages.ts). */
    const storePage = makeStorePage(db)

    /** Stores one pulled order (a page of one): any newer version counts as a change. */
    const upsertPulled = (order: NormalizedOrder, referenceId: string) =>
      Effect.flatMap(storePage(order.storeKey, [{ order, referenceId }], () => true), (outcomes) => {
        const outcome = outcomes.get(order.storeOrderId)
        return outcome !== undefined
          ? Effect.succeed(outcome)
          : Effect.dieMessage(`storing order ${order.storeOrderId} gave no outcome (a page's store gives one for each of its orders)`)
      })

    /**
     * Claims up to `limit` due orders in the given states for `leaseSeconds`.
     * SKIP LOCKED lets replicas claim side by side. A claim tied to its holder's
     * database session (`tiedToSession`, PostgreSQL) is claimable again the moment
     * that session ends (a killed replica), and not before; an untied one when its
     * lease expires.
     */
    const claim = (
      states: ReadonlyArray<OrderState>,
      limit: number,
      owner: string,
      leaseSeconds: number,
      options: {
        /**
         * The claim is the write-ahead record of an attempt (the draft stage: one claim sends at most one
         * draft): `attempts` is counted up in the same statement, and the orders carry the count from
         * before it, so "an earlier attempt may have reached the service" still reads `attempts > 0`.
         */
        readonly countsAttempt?: boolean
        /** This replica holds its session lock now (SessionTie): the claims are marked tied to its session. */
        readonly tiedToSession?: boolean
        /**
         * How long after its holder's session is seen gone a tied claim stays untaken: as long as a
         * request the dead holder had sent may still be at work at the service (its request timeout),
         * so that the look-up before a new attempt sees what it did. 0 for work with no such request.
         */
        readonly takeOverAfterMs?: number
        /**
         * Ready orders this database never tried to draft by how recently their reference id was looked
         * up at the POD service (LookUpStage.ts), `withinMs` back: `recently` takes only those looked up
         * (the draft stage; orders with an attempt of their own, and other states, go as before),
         * `notRecently` only those still to look up (the look-up stage).
         */
        readonly lookedUp?: { readonly when: "recently" | "notRecently"; readonly withinMs: number }
        /** A daemon in dry run: orders whose would-be request it recorded already (`recordDryRun`) are left alone. */
        readonly unlessDryRunRecorded?: boolean
      } = {}
    ) =>
      Effect.gen(function*() {
        const at = yield* now
        const until = new Date(at.getTime() + leaseSeconds * 1000)
        if (db.dialect === "postgres") {
          // A tied claim whose holder's session is gone becomes an untied lease ending after the grace
          // (or sooner, at its own end): seen once, by whichever replica claims first. Only claims this
          // kind of work makes are seen here, so that the grace is that of the dead holder's work: the
          // look-up stage (no grace) never frees a draft claim (a counted attempt) whose create may still
          // be at work at the service, and the draft stage never makes a look-up claim wait its grace.
          const graceEnd = new Date(at.getTime() + Math.max(0, options.takeOverAfterMs ?? 0) - 1)
          yield* db.use((k) =>
            k.updateTable("store_orders")
              .set({ lease_session: false, lease_expires_at: sql<Date>`least(lease_expires_at, ${graceEnd})` })
              .where("state", "in", [...states]).where("lease_session", "=", true).where("lease_owner", "is not", null)
              .$if(options.lookedUp?.when === "notRecently", (q) => q.where("attempts", "=", 0))
              .$if(options.countsAttempt === true, (q) => q.where("attempts", ">", 0))
              .where((w) => w.not(ownerSessionLive("lease_owner")))
              .execute()
          )
        }
        const lookedUp = options.lookedUp
        const lookedUpSince = lookedUp === undefined ? at : new Date(at.getTime() - lookedUp.withinMs)
        const columns = options.countsAttempt === true ? ORDER_COLUMNS.filter((c) => c !== "attempts") : ORDER_COLUMNS
        const rows = yield* db.use((k) =>
          k.updateTable("store_orders")
            .set((eb) => ({
              lease_owner: owner,
              lease_expires_at: until,
              lease_session: options.tiedToSession === true,
              ...(options.countsAttempt === true ? { attempts: eb("attempts", "+", 1) } : {})
            }))
            .where("id", "in", (eb) =>
              eb.selectFrom("store_orders").select("id")
                .where("state", "in", [...states])
                // Null means "not due until something changes" (a held order waits for a wake-up).
                .where("next_attempt_at", "<=", at)
                .$if(options.unlessDryRunRecorded === true, (q) => q.where("dry_run_at", "is", null))
                .where((w) =>
                  w.or([
                    w("lease_expires_at", "is", null),
                    w.and([w("lease_session", "=", false), w("lease_expires_at", "<", at)])
                  ])
                )
                .$if(lookedUp?.when === "recently", (q) =>
                  q.where((w) => w.or([w("state", "!=", "ready"), w("attempts", ">", 0), w("pod_looked_up_at", ">=", lookedUpSince)])))
                .$if(lookedUp?.when === "notRecently", (q) =>
                  q.where("attempts", "=", 0).where((w) =>
                    w.or([w("pod_looked_up_at", "is", null), w("pod_looked_up_at", "<", lookedUpSince)])
                  ))
                .orderBy("next_attempt_at").orderBy("id")
                .limit(limit)
                .forUpdate().skipLocked())
            .returning([...columns])
            .$if(options.countsAttempt === true, (q) =>
              q.returning(sql<number>`attempts - 1`.as("attempts")))
            .execute()
        )
        return rows.map((r) =>
          toStored(r as unknown as Row)
        )
      })

    /**
     * Moves orders, each from its `from` to its `to` if it is still in `from`, and records why:
     * the updates and their events in one statement (atomic without a transaction), whatever
     * the number of orders; with `release` the claim is given back in it too. Answers, for each
     * order that moved, the version of the store order its row holds now; an order missing from
     * the answer was no longer in its `from` (or, with `unlessOpenShipments`, had a shipment open).
     */
    const transitionMany = (moves: ReadonlyArray<Move>) =>
      Effect.gen(function*() {
        const moved = new Map<number, { readonly storeUpdatedAt: Date | null }>()
        if (moves.length === 0) return moved as ReadonlyMap<number, { readonly storeUpdatedAt: Date | null }>
        for (const { from, to } of moves) {
          if (!canTransition(from, to)) return yield* Effect.fail(new IllegalTransitionError({ from, to }))
        }
        const at = yield* now
        const rows = yield* db.use((k) =>
          sql<{ id: number; store_updated_at: Date | null }>`
            with input as (
              select * from jsonb_to_recordset(${JSON.stringify(moves.map(moveRow))}::jsonb) as x(
                id bigint, from_state text, to_state text, reason text, actor text, data jsonb,
                set_held boolean, held_reason text, held_details jsonb, pod_draft_id text, pod_order_id text, pod_status text,
                set_last_error boolean, last_error jsonb, set_next boolean, next_attempt_at timestamptz, attempts int,
                planned_lines jsonb, release_owner text, unless_open boolean)
            ), moved as (
              update store_orders as s set
                state = x.to_state, updated_at = ${at}::timestamptz,
                held_reason = case when x.set_held then x.held_reason else s.held_reason end,
                held_details = case when x.set_held then x.held_details else s.held_details end,
                pod_draft_id = coalesce(x.pod_draft_id, s.pod_draft_id),
                pod_order_id = coalesce(x.pod_order_id, s.pod_order_id),
                pod_status = coalesce(x.pod_status, s.pod_status),
                last_error = case when x.set_last_error then x.last_error else s.last_error end,
                next_attempt_at = case when x.set_next then x.next_attempt_at else s.next_attempt_at end,
                attempts = coalesce(x.attempts, s.attempts),
                planned_lines = coalesce(x.planned_lines, s.planned_lines),
                -- A move is news a dry run has not seen: what it would send now is recorded again.
                dry_run_at = null, dry_run_request = null,
                -- Every SET expression sees the row as it was: the lease is given back only by its holder.
                lease_owner = case when s.lease_owner = x.release_owner then null else s.lease_owner end,
                lease_expires_at = case when s.lease_owner = x.release_owner then null else s.lease_expires_at end
              from input as x
              where s.id = x.id and s.state = x.from_state
                and (x.unless_open is not true or not exists (
                  select 1 from shipments as sh where sh.order_id = s.id and sh.push_state in (${sql.join([...OPEN_PUSH_STATES])})))
              returning s.id, s.store_updated_at, x.actor, x.from_state, x.to_state, x.reason, x.data,
                s.store_key, s.reference_id, s.held_reason, s.held_details, s.last_error, s.normalized ->> 'name' as name
            ), logged as (
              insert into order_events (order_id, at, actor, from_state, to_state, reason, data)
              select id, ${at}::timestamptz, actor, from_state, to_state, reason, data from moved
            ), alerted as (
              -- An order that now needs a person is an alert, once per (order, state, reason): written
              -- with the move itself, so a crash cannot separate them (repos/AlertsRepo.ts). An order held
              -- unpaid waits for the buyer, not a person (OrderState.needsAPerson).
              insert into alert_outbox (dedup_key, kind, store_key, order_id, reference_id, reason, data, created_at)
              select 'order:' || id || ':' || to_state || ':' || coalesce(held_reason, ''), 'order.' || to_state, store_key, id,
                reference_id, held_reason,
                jsonb_build_object('name', name, 'state', to_state,
                  'message', coalesce(held_details ->> 'message', last_error ->> 'message', reason)),
                ${at}::timestamptz
              from moved where to_state in (${sql.join([...NEEDS_A_PERSON])})
                and not (to_state = 'held' and held_reason is not distinct from ${AWAITING_STORE_PAYMENT})
              on conflict (dedup_key) do nothing
            )
            select id, store_updated_at from moved`.execute(k)
        )
        for (const row of rows.rows) {
          moved.set(Number(row.id), { storeUpdatedAt: row.store_updated_at === null ? null : new Date(row.store_updated_at) })
        }
        return moved as ReadonlyMap<number, { readonly storeUpdatedAt: Date | null }>
      })

    /** Gives claimed orders back in one statement, each due again at its `nextAttemptAt` (null: only when something changes). */
    const releaseMany = (items: ReadonlyArray<{ readonly id: number; readonly nextAttemptAt: Date | null }>, owner: string) =>
      items.length === 0
        ? Effect.void
        : db.use((k) =>
          sql`update store_orders as s set lease_owner = null, lease_expires_at = null, next_attempt_at = x.next_attempt_at
            from jsonb_to_recordset(${
            JSON.stringify(items.map((i) => ({ id: i.id, next_attempt_at: i.nextAttemptAt?.toISOString() ?? null })))
          }::jsonb)
              as x(id bigint, next_attempt_at timestamptz)
            where s.id = x.id and s.lease_owner = ${owner}`.execute(k)
        ).pipe(Effect.asVoid)

    /**
     * A daemon in dry run records what it would have sent for a claimed order (`request`: DryRun.ts) instead of
     * sending it: kept on the order and told in its story, in one statement, and the claim is given back with
     * `attempts` (nothing was sent, so no attempt counts). Until the order changes, a dry-run daemon leaves it
     * alone (`claim`'s `unlessDryRunRecorded`); a daemon not in dry run sends it as usual.
     */
    const recordDryRun = (
      id: number,
      owner: string,
      change: { readonly reason: string; readonly request: unknown; readonly attempts?: number }
    ) =>
      Effect.gen(function*() {
        const at = yield* now
        yield* db.use((k) =>
          sql`with marked as (
                update store_orders set dry_run_at = ${at}::timestamptz, dry_run_request = ${JSON.stringify(change.request)}::jsonb,
                  attempts = coalesce(${change.attempts ?? null}::int, attempts),
                  lease_owner = case when lease_owner = ${owner} then null else lease_owner end,
                  lease_expires_at = case when lease_owner = ${owner} then null else lease_expires_at end
                where id = ${id} returning id, state
              )
              insert into order_events (order_id, at, actor, from_state, to_state, reason, data)
              select id, ${at}::timestamptz, ${owner}, state, state, ${change.reason}, ${
            JSON.stringify({ wouldSend: change.request })
          }::jsonb
              from marked`.execute(k)
        )
      })

    /** How many ready orders are due a look-up at the POD service (not looked up within `withinMs`), counting up to `limit`. */
    const countDueForLookUp = (withinMs: number, limit: number, unlessDryRunRecorded = false) =>
      Effect.gen(function*() {
        const at = yield* now
        const since = new Date(at.getTime() - withinMs)
        const row = yield* db.use((k) =>
          k.selectFrom((eb) =>
            eb.selectFrom("store_orders").select("id").where("state", "=", "ready").where("attempts", "=", 0)
              .where((w) => w.or([w("pod_looked_up_at", "is", null), w("pod_looked_up_at", "<", since)]))
              .where("next_attempt_at", "<=", at)
              .$if(unlessDryRunRecorded, (q) => q.where("dry_run_at", "is", null))
              .where((w) => w.or([w("lease_expires_at", "is", null), w("lease_expires_at", "<", at)]))
              .limit(limit).as("due")
          ).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()
        )
        return Number(row.n)
      })

    /**
     * Records that these claimed orders' reference ids were looked up at the POD service and nothing
     * live was found: they are given back, due at once, for the draft stage to create their drafts.
     */
    const markLookedUp = (ids: ReadonlyArray<number>, owner: string) =>
      ids.length === 0 ? Effect.void : Effect.gen(function*() {
        const at = yield* now
        yield* db.use((k) =>
          k.updateTable("store_orders")
            .set({ pod_looked_up_at: at, next_attempt_at: at, lease_owner: null, lease_expires_at: null })
            .where("id", "in", [...ids]).where("lease_owner", "=", owner).execute()
        )
      })

    /** Gives a claimed order back, due again at `nextAttemptAt` (null: only when something changes). */
    const release = (id: number, owner: string, nextAttemptAt: Date | null) => releaseMany([{ id, nextAttemptAt }], owner)

    /**
     * Moves an order from `from` to `to` if it is still in `from`, and records
     * why (see `transitionMany`). Returns the version of the store order the
     * row holds now; fails with StaleTransitionError when it was not in `from`.
     */
    const transition = (id: number, from: OrderState, to: OrderState, change: TransitionChange) =>
      Effect.flatMap(transitionMany([{ id, from, to, change }]), (moved) => {
        const row = moved.get(id)
        return row === undefined ? Effect.fail(new StaleTransitionError({ orderId: id, expected: from, to })) : Effect.succeed(row)
      })

    /** Records something a person should know without changing the state (a flag). */
    const note = (id: number, actor: string, reason: string, data?: unknown) =>
      Effect.gen(function*() {
        const at = yield* now
        const row = yield* db.use((k) => k.selectFrom("store_orders").select("state").where("id", "=", id).executeTakeFirstOrThrow())
        yield* appendEvent(id, at, actor, row.state, row.state, reason, data)
      })

    /**
     * Ends every claim within `graceMs` (at once for 0): only for a database this process holds
     * alone, where any claim is a dead predecessor's. The grace is how long a request it had sent
     * may still be at work at the service (its request timeout): the look-up before the next
     * attempt then sees what that request did.
     */
    const releaseAllLeases = (graceMs: number) =>
      Effect.gen(function*() {
        const at = yield* now
        const end = new Date(at.getTime() + Math.max(0, graceMs) - 1)
        const released = yield* db.use((k) =>
          k.updateTable("store_orders")
            .set({ lease_session: false, lease_expires_at: sql<Date>`least(lease_expires_at, ${end})` })
            .where("lease_owner", "is not", null).where("lease_expires_at", ">=", at)
            .executeTakeFirst()
        )
        return Number(released.numUpdatedRows)
      })

    /**
     * Keeps many claims alive at once; answers the ids whose lease was kept. A claim tied to this
     * replica's session is still its own past its lease's expiry (nobody takes it while the
     * session lives): a replica stopped for a while (SIGSTOP, a long pause) goes on with its work.
     */
    const renewLeases = (ids: ReadonlyArray<number>, owner: string, leaseSeconds: number) =>
      ids.length === 0
        ? Effect.succeed(new Set<number>() as ReadonlySet<number>)
        : Effect.gen(function*() {
          const at = yield* now
          const rows = yield* db.use((k) =>
            k.updateTable("store_orders").set({ lease_expires_at: new Date(at.getTime() + leaseSeconds * 1000) })
              .where("id", "in", [...ids]).where("lease_owner", "=", owner)
              .where((w) => w.or([w("lease_expires_at", ">", at), w("lease_session", "=", true)])).returning("id").execute()
          )
          return new Set(rows.map((r) => r.id)) as ReadonlySet<number>
        })

    /** Makes every order in the given states of a store due now (a mapping or catalog change may release them). */
    const wake = (states: ReadonlyArray<OrderState>, storeKey?: string) =>
      Effect.gen(function*() {
        const at = yield* now
        const result = yield* db.use((k) => {
          let q = k.updateTable("store_orders").set({ next_attempt_at: at }).where("state", "in", [...states])
          if (storeKey !== undefined) q = q.where("store_key", "=", storeKey)
          return q.executeTakeFirst()
        })
        return Number(result.numUpdatedRows)
      })

    /**
     * Makes the orders in the given states (of a store) that wait for a later attempt due now: a
     * dependency they waited for is back, and no backoff may outlive its outage. Orders due only
     * when something changes (no next attempt) stay as they are. Answers how many.
     */
    const wakeWaiting = (states: ReadonlyArray<OrderState>, storeKey?: string) =>
      Effect.gen(function*() {
        const at = yield* now
        const result = yield* db.use((k) => {
          let q = k.updateTable("store_orders").set({ next_attempt_at: at }).where("state", "in", [...states])
            .where("next_attempt_at", ">", at)
          if (storeKey !== undefined) q = q.where("store_key", "=", storeKey)
          return q.executeTakeFirst()
        })
        return Number(result.numUpdatedRows)
      })

    return {
      ...makeOrderLookups(db),
      packageLooks: makePackageLooks(db),
      fixes: makeOrderFixes(db),
      wakeWaiting,
      storePage,
      upsertPulled,
      note,
      recordDryRun,
      claim,
      markLookedUp,
      countDueForLookUp,
      releaseAllLeases,
      release,
      releaseMany,
      renewLeases,
      transition,
      transitionMany,
      wake
    }
  })
}) {}
