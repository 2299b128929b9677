import { Effect } from "effect"
import { sql } from "kysely"
import { Db, type DbError } from "../db/Db.js"
import type { OrderState } from "../domain/OrderState.js"
import type { PushState } from "../domain/PushState.js"

export interface StoreStateCount {
  readonly storeKey: string
  readonly state: OrderState
  readonly count: number
}

/** Orders of one store in one state (and, for held ones, one reason), with the one waiting longest. */
export interface WaitingGroup {
  readonly storeKey: string
  readonly state: OrderState
  /** The held reason code; for `pod_on_hold`, the condition podsync holds it for (null when the service holds it); null elsewhere. */
  readonly reason: string | null
  readonly count: number
  /** When the oldest of them last changed state (updated_at). */
  readonly oldestSince: Date
  readonly oldestReferenceId: string
}

export interface HeldReasonCount {
  readonly storeKey: string
  readonly reason: string
  readonly count: number
  readonly oldestSince: Date
  readonly oldestReferenceId: string
}

/** Orders of one store whose would-be request of one kind a dry run recorded. */
export interface DryRunCount {
  readonly storeKey: string
  readonly kind: string
  readonly count: number
}

/** Shipments a store refused: their tracking must be added in the store by hand. */
export interface RefusedTrackingGroup {
  readonly storeKey: string
  readonly count: number
  readonly oldestSince: Date
  readonly oldestReferenceId: string
}

/** Which orders a pipeline stage claims: in these states, due, and (fulfill) with a shipment still to push. */
export interface StageQueue {
  readonly stage: string
  readonly states: ReadonlyArray<OrderState>
  readonly needsOpenShipment?: boolean
}

export interface StageDepth {
  readonly stage: string
  readonly due: number
  /** Since when the longest-waiting due order has been due; null when none is. */
  readonly oldestDueSince: Date | null
}

export interface StorePull {
  readonly storeKey: string
  /** When the store's cursor was last saved, i.e. the last pull that stored a page. */
  readonly lastPullAt: Date
}

/** Shipments the fulfill stage still has to push (ShipmentsRepo's open states). */
const OPEN_PUSH_STATES: ReadonlyArray<PushState> = ["pending", "in_doubt", "on_hold"]

const asDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value))

/**
 * The columns of a group of waiting rows: how many (`n`), since when the oldest waits (`oldest_since`,
 * the least `updatedAt`) and its reference id (`oldest_reference_id`; ties broken by `id`).
 */
const countAndOldest = (updatedAt: string, referenceId: string, id: string) =>
  [
    sql<number | string>`count(*)`.as("n"),
    sql<Date | string>`min(${sql.ref(updatedAt)})`.as("oldest_since"),
    sql<string>`(array_agg(${sql.ref(referenceId)} order by ${sql.ref(updatedAt)}, ${sql.ref(id)}))[1]`.as("oldest_reference_id")
  ] as const

/** The columns of `countAndOldest`, read. */
const countAndOldestOf = (
  r: { readonly n: number | string; readonly oldest_since: Date | string; readonly oldest_reference_id: string }
) => ({
  count: Number(r.n),
  oldestSince: asDate(r.oldest_since),
  oldestReferenceId: r.oldest_reference_id
})

/** Read-only figures for `podsync status`, GET /status and the metrics scraped from the database. */
export class StatusRepo extends Effect.Service<StatusRepo>()("podsync/StatusRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    /** Orders by store and state: all of them, or those first stored (pulled) since `since` (the console's "today", "7 days"). */
    const ordersPulledSince = (since: Date | undefined) =>
      db.use((k) =>
        k.selectFrom("store_orders")
          .select(["store_key", "state", (eb) => eb.fn.countAll<number | string>().as("n")])
          .where((eb) => (since === undefined ? eb.lit(true) : eb("created_at", ">=", since)))
          .groupBy(["store_key", "state"])
          .orderBy("store_key")
          .orderBy("state")
          .execute()
      ).pipe(
        Effect.map((rows): ReadonlyArray<StoreStateCount> =>
          rows.map((r) => ({ storeKey: r.store_key, state: r.state, count: Number(r.n) }))
        )
      )
    const ordersByStoreAndState = ordersPulledSince(undefined)

    /** Orders in `states` by store, state and held reason, each group with its longest-waiting order. */
    const waitingIn = (states: ReadonlyArray<OrderState>): Effect.Effect<ReadonlyArray<WaitingGroup>, DbError> =>
      states.length === 0 ? Effect.succeed([]) : db.use((k) =>
        k.selectFrom("store_orders")
          .where("state", "in", [...states])
          .select([
            "store_key",
            "state",
            "held_reason",
            ...countAndOldest("updated_at", "reference_id", "id")
          ])
          .groupBy(["store_key", "state", "held_reason"])
          .orderBy("store_key")
          .orderBy("state")
          .orderBy("held_reason")
          .execute()
      ).pipe(Effect.map((rows) =>
        rows.map((r): WaitingGroup => ({
          storeKey: r.store_key,
          state: r.state,
          reason: r.state === "held" ? r.held_reason ?? "unknown" : r.state === "pod_on_hold" ? r.held_reason : null,
          ...countAndOldestOf(r)
        }))
      ))

    const heldByReason = waitingIn(["held"]).pipe(Effect.map((groups) =>
      groups.map((g): HeldReasonCount => ({
        storeKey: g.storeKey,
        reason: g.reason ?? "unknown",
        count: g.count,
        oldestSince: g.oldestSince,
        oldestReferenceId: g.oldestReferenceId
      }))
    ))

    const refusedTracking = db.use((k) =>
      k.selectFrom("shipments")
        .innerJoin("store_orders", "store_orders.id", "shipments.order_id")
        .where("shipments.push_state", "=", "rejected")
        .select([
          "store_orders.store_key",
          // Shipments keep no time of refusal: the order's last change (when it shipped) stands for it.
          ...countAndOldest("store_orders.updated_at", "store_orders.reference_id", "shipments.id")
        ])
        .groupBy("store_orders.store_key")
        .orderBy("store_orders.store_key")
        .execute()
    ).pipe(Effect.map((rows) => rows.map((r): RefusedTrackingGroup => ({ storeKey: r.store_key, ...countAndOldestOf(r) }))))

    /**
     * Due orders per stage at `now`: what the stage's next claims will take. An order is due
     * from max(updated_at, next_attempt_at): when it reached its state, or when its retry came up.
     */
    const dueByStage = (stages: ReadonlyArray<StageQueue>, now: Date, unlessDryRunRecorded = false) =>
      Effect.forEach(stages, (stage) =>
        db.use((k) => {
          let query = k.selectFrom("store_orders")
            .where("state", "in", [...stage.states])
            .where("next_attempt_at", "<=", now)
            // A dry run leaves an order alone once its would-be request is recorded: not waiting, not stalled.
            .$if(unlessDryRunRecorded, (q) => q.where("dry_run_at", "is", null))
          if (stage.needsOpenShipment === true) {
            query = query.where((eb) =>
              eb.exists(
                eb.selectFrom("shipments").select("shipments.id")
                  .whereRef("shipments.order_id", "=", "store_orders.id")
                  .where("shipments.push_state", "in", OPEN_PUSH_STATES)
              )
            )
          }
          return query.select([
            (eb) => eb.fn.countAll<number | string>().as("n"),
            sql<Date | string | null>`min(greatest(updated_at, next_attempt_at))`.as("oldest")
          ]).executeTakeFirstOrThrow()
        }).pipe(Effect.map((row): StageDepth => ({
          stage: stage.stage,
          due: Number(row.n),
          oldestDueSince: row.oldest === null ? null : asDate(row.oldest)
        }))))

    const lastPulls = db.use((k) => k.selectFrom("store_cursors").select(["store_key", "updated_at"]).orderBy("store_key").execute()).pipe(
      Effect.map((rows) => rows.map((r): StorePull => ({ storeKey: r.store_key, lastPullAt: asDate(r.updated_at) })))
    )

    /**
     * What a dry run recorded it would have sent (OrdersRepo.recordDryRun), by store and kind (`draft`,
     * `draft_update`, `tracking`): orders a daemon not in dry run will send it for.
     */
    const dryRunRecorded: Effect.Effect<ReadonlyArray<DryRunCount>, DbError> = db.use((k) =>
      k.selectFrom("store_orders")
        .where("dry_run_at", "is not", null)
        .select((eb) => [
          "store_key",
          sql<string>`coalesce(dry_run_request ->> 'kind', 'draft')`.as("kind"),
          eb.fn.countAll<number>().as("n")
        ])
        .groupBy(["store_key", sql`coalesce(dry_run_request ->> 'kind', 'draft')`])
        .orderBy("store_key")
        .execute()
    ).pipe(Effect.map((rows) => rows.map((r) => ({ storeKey: r.store_key, kind: r.kind, count: Number(r.n) }))))

    return { ordersByStoreAndState, ordersPulledSince, heldByReason, waitingIn, refusedTracking, dueByStage, lastPulls, dryRunRecorded }
  })
}) {}
