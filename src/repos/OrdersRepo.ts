import { Data, Effect } from "effect"
import { sql } from "kysely"
import { jsonb } from "../db/Jsonb.js"
import { Db } from "../db/Db.js"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import { canTransition, type OrderState } from "../domain/OrderState.js"
import { type FollowedOrder, json, now, ORDER_COLUMNS, type OrderEvent, type Row, toStored } from "./OrderRows.js"
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

export class OrdersRepo extends Effect.Service<OrdersRepo>()("podsync/OrdersRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    const appendEvent = (orderId: number, at: Date, actor: string, from: string | null, to: string, reason: string, data?: unknown) =>
      db.use((k) =>
        k.insertInto("order_events").values({ order_id: orderId, at, actor, from_state: from, to_state: to, reason, data: json(data) }).execute()
      )

    /** Stores a page of pulled orders (PulledPages.ts). */
    const storePage = makeStorePage(db)

    /** Stores one pulled order (a page of one): any newer version counts as a change. */
    const upsertPulled = (order: NormalizedOrder, referenceId: string) =>
      Effect.map(
        storePage(order.storeKey, [{ order, referenceId }], () => true),
        (outcomes) => outcomes.get(order.storeOrderId)!
      )

    /**
     * Claims up to `limit` due orders in the given states for `leaseSeconds`.
     * SKIP LOCKED lets replicas claim side by side; an expired lease (a killed
     * process) is claimable again.
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
      } = {}
    ) =>
      Effect.gen(function*() {
        const at = yield* now
        const until = new Date(at.getTime() + leaseSeconds * 1000)
        const columns = options.countsAttempt === true ? ORDER_COLUMNS.filter((c) => c !== "attempts") : ORDER_COLUMNS
        const rows = yield* db.use((k) =>
          k.updateTable("store_orders")
            .set((eb) => ({ lease_owner: owner, lease_expires_at: until, ...(options.countsAttempt === true ? { attempts: eb("attempts", "+", 1) } : {}) }))
            .where("id", "in", (eb) =>
              eb.selectFrom("store_orders").select("id")
                .where("state", "in", [...states])
                // Null means "not due until something changes" (a held order waits for a wake-up).
                .where("next_attempt_at", "<=", at)
                .where((w) => w.or([w("lease_expires_at", "is", null), w("lease_expires_at", "<", at)]))
                .orderBy("next_attempt_at").orderBy("id")
                .limit(limit)
                .forUpdate().skipLocked()
            )
            .returning([...columns])
            .$if(options.countsAttempt === true, (q) => q.returning(sql<number>`attempts - 1`.as("attempts")))
            .execute()
        )
        return rows.map((r) => toStored(r as unknown as Row))
      })

    /** Gives a claimed order back, due again at `nextAttemptAt` (null: only when something changes). */
    const release = (id: number, owner: string, nextAttemptAt: Date | null) =>
      db.use((k) =>
        k.updateTable("store_orders").set({ lease_owner: null, lease_expires_at: null, next_attempt_at: nextAttemptAt })
          .where("id", "=", id).where("lease_owner", "=", owner).execute()
      ).pipe(Effect.asVoid)

    /**
     * Moves an order from `from` to `to` if it is still in `from`, and records
     * why: the update and its event in one statement (atomic without a
     * transaction), and with `release` the claim given back in it too.
     * Returns the version of the store order the row holds now.
     */
    const transition = (id: number, from: OrderState, to: OrderState, change: TransitionChange) =>
      Effect.gen(function*() {
        if (!canTransition(from, to)) return yield* Effect.fail(new IllegalTransitionError({ from, to }))
        const at = yield* now
        const owner = change.release
        const rows = yield* db.use((k) =>
          k.with("moved", (q) => {
            let update = q.updateTable("store_orders").set({
              state: to,
              updated_at: at,
              ...(change.held !== undefined
                ? { held_reason: change.held?.code ?? null, held_details: change.held ? json(change.held.details) : null }
                : to !== "held" ? { held_reason: null, held_details: null } : {}),
              ...(change.podDraftId !== undefined ? { pod_draft_id: change.podDraftId } : {}),
              ...(change.podOrderId !== undefined ? { pod_order_id: change.podOrderId } : {}),
              ...(change.podStatus !== undefined ? { pod_status: change.podStatus } : {}),
              ...(change.lastError !== undefined ? { last_error: json(change.lastError) } : {}),
              ...(change.nextAttemptAt !== undefined ? { next_attempt_at: change.nextAttemptAt } : {}),
              ...(change.attempts !== undefined ? { attempts: change.attempts } : {}),
              ...(change.plannedLines !== undefined ? { planned_lines: jsonb(change.plannedLines.map((l) => ({ lineId: l.lineId, quantity: l.quantity }))) } : {}),
              // Every SET expression sees the row as it was: the lease is given back only by its holder.
              ...(owner !== undefined
                ? {
                  lease_owner: sql<string | null>`case when lease_owner = ${owner} then null else lease_owner end`,
                  lease_expires_at: sql<Date | null>`case when lease_owner = ${owner} then null else lease_expires_at end`
                }
                : {})
            }).where("id", "=", id).where("state", "=", from)
            if (change.unlessOpenShipments === true) {
              update = update.where(({ not, exists, selectFrom }) =>
                not(exists(selectFrom("shipments").select("shipments.id").whereRef("shipments.order_id", "=", "store_orders.id")
                  .where("shipments.push_state", "in", [...OPEN_PUSH_STATES])))
              )
            }
            return update.returning(["id", "store_updated_at"])
          }).with("logged", (q) =>
            q.insertInto("order_events").columns(["order_id", "at", "actor", "from_state", "to_state", "reason", "data"])
              .expression((eb) =>
                eb.selectFrom("moved").select([
                  "moved.id",
                  sql<Date>`${at}::timestamptz`.as("at"),
                  sql<string>`${change.actor}::text`.as("actor"),
                  sql<string>`${from}::text`.as("from_state"),
                  sql<string>`${to}::text`.as("to_state"),
                  sql<string>`${change.reason}::text`.as("reason"),
                  (change.data === undefined || change.data === null ? sql<unknown>`null::jsonb` : jsonb(change.data)).as("data")
                ])
              )
              .returning("order_events.id")
          ).selectFrom("moved").select(["moved.store_updated_at"]).execute()
        )
        const moved = rows[0]
        if (moved === undefined) return yield* Effect.fail(new StaleTransitionError({ orderId: id, expected: from, to }))
        return { storeUpdatedAt: moved.store_updated_at }
      })

    /** Records something a person should know without changing the state (a flag). */
    const note = (id: number, actor: string, reason: string, data?: unknown) =>
      Effect.gen(function*() {
        const at = yield* now
        const row = yield* db.use((k) => k.selectFrom("store_orders").select("state").where("id", "=", id).executeTakeFirstOrThrow())
        yield* appendEvent(id, at, actor, row.state, row.state, reason, data)
      })

    /** Releases every claim at once: only for a database this process holds alone, where any claim is a dead predecessor's. */
    const releaseAllLeases = db.use((k) =>
      k.updateTable("store_orders").set({ lease_owner: null, lease_expires_at: null }).where("lease_owner", "is not", null).executeTakeFirst()
    ).pipe(Effect.map((r) => Number(r.numUpdatedRows)))

    /** Keeps a claim alive while its holder works (a heartbeat); false when the lease was lost. */
    const renewLease = (id: number, owner: string, leaseSeconds: number) =>
      Effect.gen(function*() {
        const at = yield* now
        const result = yield* db.use((k) =>
          k.updateTable("store_orders").set({ lease_expires_at: new Date(at.getTime() + leaseSeconds * 1000) })
            .where("id", "=", id).where("lease_owner", "=", owner).where("lease_expires_at", ">", at).executeTakeFirst()
        )
        return Number(result.numUpdatedRows) === 1
      })

    /** Orders in the given states, in id order, a page at a time (reconciliation batches). */
    const pageInStates = (states: ReadonlyArray<OrderState>, afterId: number, limit: number) =>
      db.use((k) =>
        k.selectFrom("store_orders").select([...ORDER_COLUMNS]).where("state", "in", [...states]).where("id", ">", afterId)
          .orderBy("id").limit(limit).execute()
      ).pipe(Effect.map((rows) => rows.map((r) => toStored(r as Row))))

    /** Like `pageInStates`, but only what following an order at the service needs (no order body to decode). */
    const followPage = (states: ReadonlyArray<OrderState>, afterId: number, limit: number) =>
      db.use((k) =>
        k.selectFrom("store_orders").select(["id", "reference_id", "state"]).where("state", "in", [...states]).where("id", ">", afterId)
          .orderBy("id").limit(limit).execute()
      ).pipe(Effect.map((rows) => rows.map((r): FollowedOrder => ({ id: r.id, referenceId: r.reference_id, state: r.state as OrderState }))))

    /** The orders named by reference id or by POD order id (webhook hints), as reconciliation follows them. */
    const followByIds = (ids: { readonly referenceIds: ReadonlyArray<string>; readonly podOrderIds: ReadonlyArray<string> }) =>
      ids.referenceIds.length === 0 && ids.podOrderIds.length === 0
        ? Effect.succeed([])
        : db.use((k) =>
          k.selectFrom("store_orders").select(["id", "reference_id", "state", "pod_order_id"])
            .where((w) =>
              w.or([
                ...(ids.referenceIds.length > 0 ? [w("reference_id", "in", [...ids.referenceIds])] : []),
                ...(ids.podOrderIds.length > 0 ? [w("pod_order_id", "in", [...ids.podOrderIds])] : [])
              ])
            ).execute()
        ).pipe(Effect.map((rows) =>
          rows.map((r) => ({ id: r.id, referenceId: r.reference_id, state: r.state as OrderState, podOrderId: r.pod_order_id }))
        ))

    const byReference = (referenceId: string) =>
      db.use((k) => k.selectFrom("store_orders").select([...ORDER_COLUMNS]).where("reference_id", "=", referenceId).executeTakeFirst())
        .pipe(Effect.map((row) => (row === undefined ? undefined : toStored(row as Row))))

    const byId = (id: number) =>
      db.use((k) => k.selectFrom("store_orders").select([...ORDER_COLUMNS]).where("id", "=", id).executeTakeFirstOrThrow())
        .pipe(Effect.map((row) => toStored(row as Row)))

    const story = (id: number) =>
      db.use((k) => k.selectFrom("order_events").selectAll().where("order_id", "=", id).orderBy("id").execute()).pipe(
        Effect.map((rows): ReadonlyArray<OrderEvent> =>
          rows.map((r) => ({ at: r.at, actor: r.actor, from: r.from_state, to: r.to_state, reason: r.reason, data: r.data }))
        )
      )

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

    const countByState = db.use((k) =>
      k.selectFrom("store_orders").select(["state", sql<number>`count(*)::int`.as("n")]).groupBy("state").execute()
    ).pipe(Effect.map((rows) => Object.fromEntries(rows.map((r) => [r.state, Number(r.n)])) as Partial<Record<OrderState, number>>))

    return { storePage, upsertPulled, note, claim, releaseAllLeases, release, renewLease, pageInStates, followPage, followByIds, transition, byReference, byId, story, wake, countByState }
  })
}) {}
