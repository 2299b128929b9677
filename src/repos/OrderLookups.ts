import { Effect } from "effect"
import { sql } from "kysely"
import type { DbShape } from "../db/Db.js"
import type { OrderState } from "../domain/OrderState.js"
import { type FollowedOrder, ORDER_COLUMNS, type OrderEvent, toStored } from "./OrderRows.js"

/**
 * The store orders as they are read, never written: by id, reference or POD id, by a name a
 * seller types, a page at a time in some states (reconciliation), their story and their counts.
 * Part of OrdersRepo (which returns these beside its writes).
 */
export const makeOrderLookups = (db: DbShape) => {
  /** Orders in the given states, in id order, a page at a time (reconciliation batches). */
  const pageInStates = (states: ReadonlyArray<OrderState>, afterId: number, limit: number) =>
    db.use((k) =>
      k.selectFrom("store_orders").select([...ORDER_COLUMNS]).where("state", "in", [...states]).where("id", ">", afterId)
        .orderBy("id").limit(limit).execute()
    ).pipe(Effect.map((rows) => rows.map((r) => toStored(r))))

  /** Like `pageInStates`, but only what following an order at the service needs (no order body to decode). */
  const followPage = (states: ReadonlyArray<OrderState>, afterId: number, limit: number) =>
    db.use((k) =>
      k.selectFrom("store_orders").select(["id", "reference_id", "state", "held_reason"]).where("state", "in", [...states]).where(
        "id",
        ">",
        afterId
      )
        .orderBy("id").limit(limit).execute()
    ).pipe(
      Effect.map((rows) =>
        rows.map((r): FollowedOrder => ({ id: r.id, referenceId: r.reference_id, state: r.state, heldReason: r.held_reason }))
      )
    )

  /** The orders named by reference id or by POD order id (webhook hints), as reconciliation follows them. */
  const followByIds = (ids: { readonly referenceIds: ReadonlyArray<string>; readonly podOrderIds: ReadonlyArray<string> }) =>
    ids.referenceIds.length === 0 && ids.podOrderIds.length === 0
      ? Effect.succeed([])
      : db.use((k) =>
        k.selectFrom("store_orders").select(["id", "reference_id", "state", "held_reason", "pod_order_id"])
          .where((w) =>
            w.or([
              ...(ids.referenceIds.length > 0 ? [w("reference_id", "in", [...ids.referenceIds])] : []),
              ...(ids.podOrderIds.length > 0 ? [w("pod_order_id", "in", [...ids.podOrderIds])] : [])
            ])
          ).execute()
      ).pipe(
        Effect.map((rows) =>
          rows.map((r) => ({
            id: r.id,
            referenceId: r.reference_id,
            state: r.state,
            heldReason: r.held_reason,
            podOrderId: r.pod_order_id
          }))
        )
      )

  /** A store's orders held for `heldReason`, the most recently moved first, at most `limit`. */
  const heldFor = (storeKey: string, heldReason: string, limit: number) =>
    db.use((k) =>
      k.selectFrom("store_orders").select([...ORDER_COLUMNS]).where("store_key", "=", storeKey).where("state", "=", "held")
        .where("held_reason", "=", heldReason).orderBy("updated_at", "desc").orderBy("id", "desc").limit(limit).execute()
    ).pipe(Effect.map((rows) => rows.map((r) => toStored(r))))

  const byReference = (referenceId: string) =>
    db.use((k) => k.selectFrom("store_orders").select([...ORDER_COLUMNS]).where("reference_id", "=", referenceId).executeTakeFirst())
      .pipe(Effect.map((row) => (row === undefined ? undefined : toStored(row))))

  /**
   * The references of the orders a seller may mean by `said`: the store's order name (`#1006`,
   * with or without the #) or its order id, in `storeKey` when given. A scan: for a person's
   * lookup, not a loop.
   */
  const referencesNamed = (said: string, storeKey?: string) =>
    db.use((k) => {
      const bare = said.replace(/^#/, "")
      let q = k.selectFrom("store_orders").select(["reference_id", "store_key"]).where((w) =>
        w.or([
          w(sql<string>`normalized->>'name'`, "in", [said, bare, `#${bare}`]),
          w("store_order_id", "=", bare)
        ])
      )
      if (storeKey !== undefined) q = q.where("store_key", "=", storeKey)
      return q.orderBy("reference_id").limit(20).execute()
    }).pipe(Effect.map((rows) => rows.map((r) => ({ referenceId: r.reference_id, storeKey: r.store_key }))))

  /** The order whose POD order or POD draft has this id (a webhook about a draft names the draft). */
  const byPodId = (podId: string) =>
    db.use((k) =>
      k.selectFrom("store_orders").select([...ORDER_COLUMNS])
        .where((w) => w.or([w("pod_order_id", "=", podId), w("pod_draft_id", "=", podId)]))
        .orderBy("id").executeTakeFirst()
    ).pipe(Effect.map((row) => (row === undefined ? undefined : toStored(row))))

  const byId = (id: number) =>
    db.use((k) => k.selectFrom("store_orders").select([...ORDER_COLUMNS]).where("id", "=", id).executeTakeFirstOrThrow())
      .pipe(Effect.map((row) => toStored(row)))

  const story = (id: number) =>
    db.use((k) => k.selectFrom("order_events").selectAll().where("order_id", "=", id).orderBy("id").execute()).pipe(
      Effect.map((rows): ReadonlyArray<OrderEvent> =>
        rows.map((r) => ({ at: r.at, actor: r.actor, from: r.from_state, to: r.to_state, reason: r.reason, data: r.data }))
      )
    )

  /** How many orders are in the given states (of a store). */
  const countIn = (states: ReadonlyArray<OrderState>, storeKey?: string) =>
    db.use((k) => {
      let q = k.selectFrom("store_orders").select(sql<number>`count(*)::int`.as("n")).where("state", "in", [...states])
      if (storeKey !== undefined) q = q.where("store_key", "=", storeKey)
      return q.executeTakeFirstOrThrow()
    }).pipe(Effect.map((row) => Number(row.n)))

  const countByState = db.use((k) =>
    k.selectFrom("store_orders").select(["state", sql<number>`count(*)::int`.as("n")]).groupBy("state").execute()
  ).pipe(Effect.map((rows) => Object.fromEntries(rows.map((r) => [r.state, Number(r.n)])) as Partial<Record<OrderState, number>>))

  return { pageInStates, followPage, followByIds, heldFor, byReference, referencesNamed, byPodId, byId, story, countIn, countByState }
}
