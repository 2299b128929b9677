import { Effect, Schema } from "effect"
import type { DbShape } from "../db/Db.js"
import { ShipTo } from "../domain/NormalizedOrder.js"
import { type FixedOrder, NO_FIXES, type OrderFixes, PodVariantChoice } from "../domain/OrderFix.js"
import { jsonb } from "../db/Jsonb.js"
import { json, now } from "./OrderRows.js"

const decodeShipTo = Schema.decodeUnknownSync(ShipTo)
const decodeVariant = Schema.decodeUnknownSync(PodVariantChoice)

/**
 * What a person fixed of an order in the console (issue 34), kept beside the store's copy: the
 * draft plan applies it. Each fix is written with its line in the order's story, in one
 * transaction; a later fix of the same thing replaces the earlier. Part of OrdersRepo.
 */
export const makeOrderFixes = (db: DbShape) => {
  /** The fixes of each of these orders (an order without any: absent from the map). */
  const forOrders = (orderIds: ReadonlyArray<number>) =>
    orderIds.length === 0
      ? Effect.succeed(new Map<number, OrderFixes>())
      : db.use((k) =>
        k.selectFrom("order_fixes").selectAll().where("order_id", "in", [...orderIds]).orderBy("order_id").orderBy("line_id").execute()
      ).pipe(Effect.map((rows) => {
        const byOrder = new Map<number, OrderFixes>()
        for (const row of rows) {
          const id = Number(row.order_id)
          const fixes = byOrder.get(id) ?? NO_FIXES
          byOrder.set(
            id,
            row.kind === "address"
              ? { ...fixes, address: { shipTo: decodeShipTo(row.value), by: row.fixed_by, at: row.fixed_at } }
              : {
                ...fixes,
                variants: [...fixes.variants, { lineId: row.line_id, pod: decodeVariant(row.value), by: row.fixed_by, at: row.fixed_at }]
              }
          )
        }
        return byOrder
      }))

  const forOrder = (orderId: number) => Effect.map(forOrders([orderId]), (byOrder) => byOrder.get(orderId) ?? NO_FIXES)

  /**
   * Keeps one fix and tells it in the order's story (its state unchanged), in one transaction, only
   * if `onlyIf` finds nothing against it in the order as it is now (its row locked meanwhile, so
   * that no stage moves it in between). Answers `onlyIf`'s refusal, or undefined once kept.
   */
  const save = (
    orderId: number,
    fix:
      | { readonly kind: "address"; readonly shipTo: ShipTo }
      | { readonly kind: "variant"; readonly lineId: string; readonly pod: PodVariantChoice },
    story: {
      readonly actor: string
      readonly reason: string
      readonly data?: object
      readonly onlyIf?: (order: FixedOrder) => string | undefined
    }
  ) =>
    db.transaction(Effect.gen(function*() {
      const at = yield* now
      const row = yield* db.use((k) =>
        k.selectFrom("store_orders").select(["state", "pod_draft_id"]).where("id", "=", orderId).forUpdate().executeTakeFirstOrThrow()
      )
      const refused = story.onlyIf?.({ state: row.state, podDraftId: row.pod_draft_id })
      if (refused !== undefined) return refused
      const value = fix.kind === "address" ? Schema.encodeSync(ShipTo)(fix.shipTo) : Schema.encodeSync(PodVariantChoice)(fix.pod)
      const lineId = fix.kind === "address" ? "" : fix.lineId
      yield* db.use((k) =>
        k.insertInto("order_fixes")
          .values({
            order_id: orderId,
            kind: fix.kind,
            line_id: lineId,
            value: jsonb(value as object),
            fixed_by: story.actor,
            fixed_at: at
          })
          .onConflict((c) =>
            c.columns(["order_id", "kind", "line_id"]).doUpdateSet((eb) => ({
              value: eb.ref("excluded.value"),
              fixed_by: eb.ref("excluded.fixed_by"),
              fixed_at: eb.ref("excluded.fixed_at")
            }))
          )
          .execute()
      )
      yield* db.use((k) =>
        k.insertInto("order_events").values({
          order_id: orderId,
          at,
          actor: story.actor,
          from_state: row.state,
          to_state: row.state,
          reason: story.reason,
          data: json({ fix: fix.kind, ...(fix.kind === "variant" ? { lineId, pod: value } : { shipTo: value }), ...(story.data ?? {}) })
        }).execute()
      )
      return undefined
    }))

  return { forOrder, forOrders, save }
}
