import { Clock, Effect } from "effect"
import { sql } from "kysely"
import { Db } from "../db/Db.js"
import type { PushState } from "../domain/PushState.js"

export type { PushState }

export interface Shipment {
  readonly id: number
  readonly orderId: number
  readonly trackingNo: string
  readonly carrier: string | null
  readonly trackingUrl: string | null
  readonly pushState: PushState
  readonly attempts: number
}

/** A tracking as the POD service reports it. */
export interface TrackingSeen {
  readonly number: string
  readonly carrier?: string | undefined
  readonly url?: string | undefined
}

/** Push states that still need work: an order with a shipment in one is not done. */
export const OPEN_PUSH_STATES: ReadonlyArray<PushState> = ["pending", "in_doubt", "on_hold"]

/** A shipment's new push state, with what the attempt left: the store's fulfilment id, or the error. */
export interface ShipmentMark {
  readonly id: number
  readonly state: PushState
  readonly detail?: { readonly fulfillmentId?: string; readonly error?: unknown; readonly attempt?: boolean }
}

/** The row of a tracking just reported, not yet pushed to the store. */
const newShipment = (orderId: number, podOrderId: string, tracking: TrackingSeen) => ({
  order_id: orderId,
  tracking_no: tracking.number,
  carrier: tracking.carrier ?? null,
  tracking_url: tracking.url ?? null,
  pod_order_id: podOrderId,
  push_state: "pending" as const
})

/** One row per (order, tracking number): the unit of "pushed to the store exactly once". */
export class ShipmentsRepo extends Effect.Service<ShipmentsRepo>()("podsync/ShipmentsRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    /** Records a tracking the POD service reported; true when it is new. */
    const record = (orderId: number, podOrderId: string, tracking: TrackingSeen) =>
      db.use((k) =>
        k.insertInto("shipments").values(newShipment(orderId, podOrderId, tracking)).onConflict((oc) =>
          oc.columns(["order_id", "tracking_no"]).doNothing()
        ).returning("id").executeTakeFirst()
      ).pipe(Effect.map((row) => row !== undefined))

    /** Records many trackings in one statement; answers how many were new, by order. */
    const recordMany = (rows: ReadonlyArray<{ readonly orderId: number; readonly podOrderId: string; readonly tracking: TrackingSeen }>) =>
      (rows.length === 0
        ? Effect.succeed([])
        : db.use((k) =>
          k.insertInto("shipments").values(rows.map(({ orderId, podOrderId, tracking }) => newShipment(orderId, podOrderId, tracking)))
            .onConflict((oc) => oc.columns(["order_id", "tracking_no"]).doNothing()).returning("order_id").execute()
        )).pipe(Effect.map((inserted) => {
          const counts = new Map<number, number>()
          for (const row of inserted) counts.set(row.order_id, (counts.get(row.order_id) ?? 0) + 1)
          return counts as ReadonlyMap<number, number>
        }))

    /** One shipment's new push state (see `markMany`). */
    const mark = (id: number, state: PushState, detail: ShipmentMark["detail"] = {}) => markMany([{ id, state, detail }])

    /** Many shipments' new push states in one statement (a fulfilled batch). */
    const markMany = (marks: ReadonlyArray<ShipmentMark>) =>
      marks.length === 0
        ? Effect.void
        : Effect.gen(function*() {
          const at = new Date(yield* Clock.currentTimeMillis)
          const rows = marks.map(({ id, state, detail = {} }) => ({
            id,
            push_state: state,
            fulfillment_id: detail.fulfillmentId ?? null,
            set_error: detail.error !== undefined,
            last_error: detail.error ?? null,
            attempt: detail.attempt === true
          }))
          yield* db.use((k) =>
            sql`update shipments as s set
                push_state = x.push_state,
                store_fulfillment_id = coalesce(x.fulfillment_id, s.store_fulfillment_id),
                last_error = case when x.set_error then x.last_error else s.last_error end,
                attempts = s.attempts + case when x.attempt then 1 else 0 end,
                pushed_at = case when x.push_state = 'pushed' then ${at}::timestamptz else s.pushed_at end
              from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                as x(id bigint, push_state text, fulfillment_id text, set_error boolean, last_error jsonb, attempt boolean)
              where s.id = x.id`.execute(k)
          )
        })

    /** Every shipment of the given orders (one query for a claimed batch), oldest first, by order. */
    const forOrders = (orderIds: ReadonlyArray<number>) =>
      (orderIds.length === 0
        ? Effect.succeed([])
        : db.use((k) => k.selectFrom("shipments").selectAll().where("order_id", "in", [...orderIds]).orderBy("id").execute())).pipe(
          Effect.map((rows) => {
            const byOrder = new Map<number, Array<Shipment>>(orderIds.map((id) => [id, []]))
            for (const r of rows) {
              byOrder.get(r.order_id)?.push({
                id: r.id,
                orderId: r.order_id,
                trackingNo: r.tracking_no,
                carrier: r.carrier,
                trackingUrl: r.tracking_url,
                pushState: r.push_state,
                attempts: r.attempts
              })
            }
            return byOrder as ReadonlyMap<number, ReadonlyArray<Shipment>>
          })
        )

    /** Every shipment of an order, oldest first. */
    const forOrder = (orderId: number) => Effect.map(forOrders([orderId]), (byOrder) => byOrder.get(orderId) ?? [])

    return { record, recordMany, mark, markMany, forOrder, forOrders }
  })
}) {}
