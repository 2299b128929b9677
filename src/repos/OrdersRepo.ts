import { Clock, Data, Effect, Schema } from "effect"
import { sql } from "kysely"
import { jsonb, jsonbOrNull } from "../db/Jsonb.js"
import { Db } from "../db/Db.js"
import { NormalizedOrder, type NormalizedOrderEncoded } from "../domain/NormalizedOrder.js"
import { canTransition, type OrderState } from "../domain/OrderState.js"
import { OPEN_PUSH_STATES } from "./ShipmentsRepo.js"

/** One store order as podsync holds it. */
export interface StoredOrder {
  readonly id: number
  readonly storeKey: string
  readonly storeOrderId: string
  readonly referenceId: string
  readonly state: OrderState
  readonly heldReason: string | null
  readonly heldDetails: unknown
  readonly order: NormalizedOrder
  readonly podDraftId: string | null
  readonly podOrderId: string | null
  readonly podStatus: string | null
  readonly attempts: number
  readonly lastError: unknown
  readonly storeUpdatedAt: Date | null
  readonly updatedAt: Date
  /** The store lines a draft was made of (set when drafted). */
  readonly plannedLines: ReadonlyArray<{ readonly lineId: string; readonly quantity: number }>
}

/** An order as reconciliation follows it. */
export type FollowedOrder = Pick<StoredOrder, "id" | "referenceId" | "state">

export interface OrderEvent {
  readonly at: Date
  readonly actor: string
  readonly from: string | null
  readonly to: string
  readonly reason: string | null
  readonly data: unknown
}

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

/** What a pulled page did to one order. `quiet`: a newer version that changes nothing the pipeline looks at (stored, no event). */
export type PulledOutcome =
  | { readonly id: number; readonly outcome: "inserted"; readonly state: OrderState }
  | { readonly id: number; readonly outcome: "unchanged" | "quiet"; readonly state: OrderState }
  | { readonly id: number; readonly outcome: "changed"; readonly state: OrderState; readonly previous: NormalizedOrder }

const encodeOrder = Schema.encodeSync(NormalizedOrder)
const decodeOrder = Schema.decodeUnknownSync(NormalizedOrder)

type Row = {
  id: number
  store_key: string
  store_order_id: string
  reference_id: string
  state: string
  held_reason: string | null
  held_details: unknown
  normalized: unknown
  pod_draft_id: string | null
  pod_order_id: string | null
  pod_status: string | null
  attempts: number
  last_error: unknown
  store_updated_at: Date | null
  updated_at: Date
  planned_lines: ReadonlyArray<{ lineId: string; quantity: number }> | null
}

const toStored = (row: Row): StoredOrder => ({
  id: row.id,
  storeKey: row.store_key,
  storeOrderId: row.store_order_id,
  referenceId: row.reference_id,
  state: row.state as OrderState,
  heldReason: row.held_reason,
  heldDetails: row.held_details,
  order: decodeOrder(row.normalized),
  podDraftId: row.pod_draft_id,
  podOrderId: row.pod_order_id,
  podStatus: row.pod_status,
  attempts: row.attempts,
  lastError: row.last_error,
  storeUpdatedAt: row.store_updated_at,
  updatedAt: row.updated_at,
  plannedLines: row.planned_lines ?? []
})

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** Every column the pipeline reads (not `raw`: the store payload is kept for audit, not read back). */
const ORDER_COLUMNS = [
  "id", "store_key", "store_order_id", "reference_id", "state", "held_reason", "held_details", "normalized", "pod_draft_id",
  "pod_order_id", "pod_status", "attempts", "last_error", "store_updated_at", "updated_at", "planned_lines"
] as const
const json = (value: unknown) => jsonbOrNull(value as object)

export class OrdersRepo extends Effect.Service<OrdersRepo>()("podsync/OrdersRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    const appendEvent = (orderId: number, at: Date, actor: string, from: string | null, to: string, reason: string, data?: unknown) =>
      db.use((k) =>
        k.insertInto("order_events").values({ order_id: orderId, at, actor, from_state: from, to_state: to, reason, data: json(data) }).execute()
      )

    /**
     * Stores a page of pulled orders in a few statements whatever its size:
     * new rows in state `pulled`; for orders we have, the newer version
     * (never an older one). A newer version that `matters` (the pipeline
     * would act differently) is recorded as an event and made due at once; one
     * that does not (our own annotation or fulfilment coming back, a tag) is
     * stored quietly. Runs in the caller's transaction when there is one.
     */
    const storePage = (
      storeKey: string,
      page: ReadonlyArray<{ readonly order: NormalizedOrder; readonly referenceId: string }>,
      matters: (state: OrderState, previous: NormalizedOrderEncoded, current: NormalizedOrderEncoded) => boolean
    ) =>
      db.transaction(Effect.gen(function*() {
        // The newest version of each order in the page (a page may repeat one).
        const newest = new Map<string, { readonly order: NormalizedOrder; readonly referenceId: string }>()
        for (const item of page) {
          const seen = newest.get(item.order.storeOrderId)
          if (seen === undefined || Date.parse(seen.order.updatedAt) < Date.parse(item.order.updatedAt)) newest.set(item.order.storeOrderId, item)
        }
        const outcomes = new Map<string, PulledOutcome>()
        if (newest.size === 0) return outcomes
        const at = yield* now
        const existing = new Map((yield* db.use((k) =>
          k.selectFrom("store_orders").select(["id", "store_order_id", "state", "store_updated_at", "normalized"])
            .where("store_key", "=", storeKey).where("store_order_id", "in", [...newest.keys()])
            .forUpdate().execute()
        )).map((row) => [row.store_order_id, row]))

        const fresh = [...newest.values()].filter((item) => !existing.has(item.order.storeOrderId))
        const events: Array<{ order_id: number; from_state: string | null; to_state: string; reason: string; data: unknown }> = []
        if (fresh.length > 0) {
          const inserted = yield* db.use((k) =>
            k.insertInto("store_orders").values(fresh.map(({ order, referenceId }) => ({
              store_key: storeKey, store_order_id: order.storeOrderId, reference_id: referenceId, state: "pulled",
              raw: jsonb((order.raw ?? {}) as object), normalized: jsonb(encodeOrder(order) as object),
              store_updated_at: new Date(order.updatedAt), next_attempt_at: at, updated_at: at
            }))).onConflict((oc) => oc.doNothing()).returning(["id", "store_order_id"]).execute()
          )
          const names = new Map(fresh.map(({ order }) => [order.storeOrderId, order.name]))
          for (const row of inserted) {
            outcomes.set(row.store_order_id, { id: row.id, outcome: "inserted", state: "pulled" })
            events.push({ order_id: row.id, from_state: null, to_state: "pulled", reason: `pulled from the store (${names.get(row.store_order_id)})`, data: null })
          }
          // Not inserted: another replica stored it between our read and insert, and theirs stands.
          for (const { order } of fresh) {
            if (!outcomes.has(order.storeOrderId)) outcomes.set(order.storeOrderId, { id: -1, outcome: "unchanged", state: "pulled" })
          }
        }

        const updates: Array<{ id: number; raw: unknown; normalized: unknown; store_updated_at: string; due: boolean }> = []
        for (const [storeOrderId, row] of existing) {
          const { order } = newest.get(storeOrderId)!
          const state = row.state as OrderState
          if (row.store_updated_at !== null && row.store_updated_at.getTime() >= Date.parse(order.updatedAt)) {
            outcomes.set(storeOrderId, { id: row.id, outcome: "unchanged", state })
            continue
          }
          // Our own rows: stored by encodeOrder, so read back as its output without decoding unless it changed.
          const normalized = encodeOrder(order)
          const due = matters(state, row.normalized as NormalizedOrderEncoded, normalized)
          updates.push({ id: row.id, raw: order.raw ?? {}, normalized, store_updated_at: new Date(order.updatedAt).toISOString(), due })
          if (due) {
            outcomes.set(storeOrderId, { id: row.id, outcome: "changed", state, previous: decodeOrder(row.normalized) })
            events.push({ order_id: row.id, from_state: state, to_state: state, reason: "the order changed in the store", data: { updatedAt: order.updatedAt } })
          } else {
            outcomes.set(storeOrderId, { id: row.id, outcome: "quiet", state })
          }
        }
        if (updates.length > 0) {
          yield* db.use((k) =>
            sql`update store_orders as s set
                  raw = x.raw, normalized = x.normalized, store_updated_at = x.store_updated_at,
                  next_attempt_at = case when x.due then ${at}::timestamptz else s.next_attempt_at end,
                  updated_at = case when x.due then ${at}::timestamptz else s.updated_at end
                from jsonb_to_recordset(${JSON.stringify(updates)}::jsonb)
                  as x(id bigint, raw jsonb, normalized jsonb, store_updated_at timestamptz, due boolean)
                where s.id = x.id`.execute(k)
          )
        }
        if (events.length > 0) {
          yield* db.use((k) =>
            k.insertInto("order_events").values(events.map((e) => ({ ...e, at, actor: "pull", data: json(e.data) }))).execute()
          )
        }
        return outcomes
      }))

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
