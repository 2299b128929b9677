import { Clock, Data, Effect, Schema } from "effect"
import { sql } from "kysely"
import { jsonb, jsonbOrNull } from "../db/Jsonb.js"
import { Db } from "../db/Db.js"
import { NormalizedOrder } from "../domain/NormalizedOrder.js"
import { canTransition, type OrderState } from "../domain/OrderState.js"

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
}

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
const json = (value: unknown) => jsonbOrNull(value as object)

export class OrdersRepo extends Effect.Service<OrdersRepo>()("podsync/OrdersRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    const appendEvent = (orderId: number, at: Date, actor: string, from: string | null, to: string, reason: string, data?: unknown) =>
      db.use((k) =>
        k.insertInto("order_events").values({ order_id: orderId, at, actor, from_state: from, to_state: to, reason, data: json(data) }).execute()
      )

    /**
     * Stores a pulled order: a new row in state `pulled`, or, for an order we
     * have, the newer version (never an older one). A changed order becomes
     * due at once so the pipeline re-plans it.
     */
    const upsertPulled = (order: NormalizedOrder, referenceId: string) =>
      db.transaction(Effect.gen(function*() {
        const at = yield* now
        const encoded = jsonb(encodeOrder(order) as object)
        const storeUpdatedAt = new Date(order.updatedAt)
        const existing = yield* db.use((k) =>
          k.selectFrom("store_orders").select(["id", "state", "store_updated_at", "normalized"])
            .where("store_key", "=", order.storeKey).where("store_order_id", "=", order.storeOrderId)
            .forUpdate().executeTakeFirst()
        )
        if (existing === undefined) {
          const inserted = yield* db.use((k) =>
            k.insertInto("store_orders").values({
              store_key: order.storeKey, store_order_id: order.storeOrderId, reference_id: referenceId, state: "pulled",
              raw: jsonb((order.raw ?? {}) as object), normalized: encoded, store_updated_at: storeUpdatedAt, next_attempt_at: at, updated_at: at
            }).onConflict((oc) => oc.columns(["store_key", "store_order_id"]).doNothing()).returning("id").executeTakeFirst()
          )
          // Another replica stored it between our read and insert: theirs stands.
          if (inserted === undefined) return { id: -1, outcome: "unchanged" as const, state: "pulled" as OrderState }
          yield* appendEvent(inserted.id, at, "pull", null, "pulled", `pulled from the store (${order.name})`)
          return { id: inserted.id, outcome: "inserted" as const, state: "pulled" as OrderState }
        }
        if (existing.store_updated_at !== null && existing.store_updated_at.getTime() >= storeUpdatedAt.getTime()) {
          return { id: existing.id, outcome: "unchanged" as const, state: existing.state as OrderState }
        }
        yield* db.use((k) =>
          k.updateTable("store_orders").set({
            raw: jsonb((order.raw ?? {}) as object), normalized: encoded, store_updated_at: storeUpdatedAt, next_attempt_at: at, updated_at: at
          }).where("id", "=", existing.id).execute()
        )
        yield* appendEvent(existing.id, at, "pull", existing.state, existing.state, "the order changed in the store", { updatedAt: order.updatedAt })
        return { id: existing.id, outcome: "changed" as const, state: existing.state as OrderState, previous: decodeOrder(existing.normalized) }
      }))

    /**
     * Claims up to `limit` due orders in the given states for `leaseSeconds`.
     * SKIP LOCKED lets replicas claim side by side; an expired lease (a killed
     * process) is claimable again.
     */
    const claim = (states: ReadonlyArray<OrderState>, limit: number, owner: string, leaseSeconds: number) =>
      Effect.gen(function*() {
        const at = yield* now
        const until = new Date(at.getTime() + leaseSeconds * 1000)
        const rows = yield* db.use((k) =>
          k.updateTable("store_orders")
            .set({ lease_owner: owner, lease_expires_at: until })
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
            .returningAll()
            .execute()
        )
        return rows.map((r) => toStored(r as Row))
      })

    /** Gives a claimed order back, due again at `nextAttemptAt` (null: only when something changes). */
    const release = (id: number, owner: string, nextAttemptAt: Date | null) =>
      db.use((k) =>
        k.updateTable("store_orders").set({ lease_owner: null, lease_expires_at: null, next_attempt_at: nextAttemptAt })
          .where("id", "=", id).where("lease_owner", "=", owner).execute()
      ).pipe(Effect.asVoid)

    /** Moves an order from `from` to `to` if it is still in `from`, and records why. */
    const transition = (id: number, from: OrderState, to: OrderState, change: TransitionChange) =>
      Effect.gen(function*() {
        if (!canTransition(from, to)) return yield* Effect.fail(new IllegalTransitionError({ from, to }))
        const at = yield* now
        const result = yield* db.transaction(Effect.gen(function*() {
          const updated = yield* db.use((k) =>
            k.updateTable("store_orders").set({
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
              ...(change.plannedLines !== undefined ? { planned_lines: jsonb(change.plannedLines.map((l) => ({ lineId: l.lineId, quantity: l.quantity }))) } : {})
            }).where("id", "=", id).where("state", "=", from).executeTakeFirst()
          )
          if (Number(updated.numUpdatedRows) === 0) return false
          yield* appendEvent(id, at, change.actor, from, to, change.reason, change.data)
          return true
        }))
        if (!result) return yield* Effect.fail(new StaleTransitionError({ orderId: id, expected: from, to }))
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

    /** Records an attempt before it is made (write-ahead): a crash after this means "look before posting again". */
    const recordAttempt = (id: number, owner: string) =>
      db.use((k) =>
        k.updateTable("store_orders").set((eb) => ({ attempts: eb("attempts", "+", 1) }))
          .where("id", "=", id).where("lease_owner", "=", owner).returning("attempts").executeTakeFirst()
      ).pipe(Effect.map((row) => row?.attempts))

    /** Orders in the given states, in id order, a page at a time (reconciliation batches). */
    const pageInStates = (states: ReadonlyArray<OrderState>, afterId: number, limit: number) =>
      db.use((k) =>
        k.selectFrom("store_orders").selectAll().where("state", "in", [...states]).where("id", ">", afterId)
          .orderBy("id").limit(limit).execute()
      ).pipe(Effect.map((rows) => rows.map((r) => toStored(r as Row))))

    const byReference = (referenceId: string) =>
      db.use((k) => k.selectFrom("store_orders").selectAll().where("reference_id", "=", referenceId).executeTakeFirst())
        .pipe(Effect.map((row) => (row === undefined ? undefined : toStored(row as Row))))

    const byId = (id: number) =>
      db.use((k) => k.selectFrom("store_orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow())
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

    return { upsertPulled, note, claim, releaseAllLeases, release, renewLease, recordAttempt, pageInStates, transition, byReference, byId, story, wake, countByState }
  })
}) {}
