import { Clock, Effect } from "effect"
import { Db } from "../db/Db.js"
import { jsonbOrNull } from "../db/Jsonb.js"

export type PushState = "pending" | "in_doubt" | "pushed" | "on_hold" | "skipped" | "rejected"

export interface Shipment {
  readonly id: number
  readonly orderId: number
  readonly trackingNo: string
  readonly carrier: string | null
  readonly trackingUrl: string | null
  readonly pushState: PushState
  readonly attempts: number
}

const json = (value: unknown) => jsonbOrNull(value as object)

/** One row per (order, tracking number): the unit of "pushed to the store exactly once". */
export class ShipmentsRepo extends Effect.Service<ShipmentsRepo>()("podsync/ShipmentsRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    /** Records a tracking the POD service reported; true when it is new. */
    const record = (orderId: number, podOrderId: string, tracking: { readonly number: string; readonly carrier?: string | undefined; readonly url?: string | undefined }) =>
      db.use((k) =>
        k.insertInto("shipments").values({
          order_id: orderId, tracking_no: tracking.number, carrier: tracking.carrier ?? null, tracking_url: tracking.url ?? null,
          pod_order_id: podOrderId, push_state: "pending"
        }).onConflict((oc) => oc.columns(["order_id", "tracking_no"]).doNothing()).returning("id").executeTakeFirst()
      ).pipe(Effect.map((row) => row !== undefined))

    const toPush = (orderId: number) =>
      db.use((k) =>
        k.selectFrom("shipments").selectAll().where("order_id", "=", orderId).where("push_state", "in", ["pending", "in_doubt", "on_hold"])
          .orderBy("id").execute()
      ).pipe(Effect.map((rows) => rows.map((r): Shipment => ({
        id: r.id, orderId: r.order_id, trackingNo: r.tracking_no, carrier: r.carrier, trackingUrl: r.tracking_url,
        pushState: r.push_state as PushState, attempts: r.attempts
      }))))

    const mark = (id: number, state: PushState, detail: { readonly fulfillmentId?: string; readonly error?: unknown; readonly attempt?: boolean } = {}) =>
      Effect.gen(function*() {
        const at = new Date(yield* Clock.currentTimeMillis)
        yield* db.use((k) =>
          k.updateTable("shipments").set((eb) => ({
            push_state: state,
            ...(detail.fulfillmentId !== undefined ? { store_fulfillment_id: detail.fulfillmentId } : {}),
            ...(detail.error !== undefined ? { last_error: json(detail.error) } : {}),
            ...(detail.attempt ? { attempts: eb("attempts", "+", 1) } : {}),
            ...(state === "pushed" ? { pushed_at: at } : {})
          })).where("id", "=", id).execute()
        )
      })

    const openCount = (orderId: number) =>
      db.use((k) =>
        k.selectFrom("shipments").select((eb) => eb.fn.countAll<number | string>().as("n"))
          .where("order_id", "=", orderId).where("push_state", "in", ["pending", "in_doubt", "on_hold"]).executeTakeFirstOrThrow()
      ).pipe(Effect.map((r) => Number(r.n)))

    const forOrder = (orderId: number) =>
      db.use((k) => k.selectFrom("shipments").selectAll().where("order_id", "=", orderId).orderBy("id").execute())

    return { record, toPush, mark, openCount, forOrder }
  })
}) {}
