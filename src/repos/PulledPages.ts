import { Effect } from "effect"
import { sql } from "kysely"
import type { DbShape } from "../db/Db.js"
import { jsonb } from "../db/Jsonb.js"
import type { NormalizedOrder, NormalizedOrderEncoded } from "../domain/NormalizedOrder.js"
import type { OrderState } from "../domain/OrderState.js"
import { decodeOrder, encodeOrder, json, now, type PulledOutcome } from "./OrderRows.js"

/**
 * Stores a page of pulled orders in a few statements whatever its size:
 * new rows in state `pulled`; for orders we have, the newer version
 * (never an older one). A newer version that `matters` (the pipeline
 * would act differently) is recorded as an event and made due at once; one
 * that does not (our own annotation or fulfilment coming back, a tag) is
 * stored quietly. Runs in the caller's transaction when there is one.
 */
/** How many fields the store withheld from a stored version. */
const withheldCount = (order: NormalizedOrderEncoded) => (order.withheld ?? []).reduce((n, w) => n + w.fields.length, 0)

export const makeStorePage = (db: DbShape) =>
(
  storeKey: string,
  page: ReadonlyArray<{ readonly order: NormalizedOrder; readonly referenceId: string }>,
  matters: (state: OrderState, previous: NormalizedOrderEncoded, current: NormalizedOrderEncoded) => boolean
) =>
  db.transaction(Effect.gen(function*() {
    // The newest version of each order in the page (a page may repeat one).
    const newest = new Map<string, { readonly order: NormalizedOrder; readonly referenceId: string }>()
    for (const item of page) {
      const seen = newest.get(item.order.storeOrderId)
      if (seen === undefined || Date.parse(seen.order.updatedAt) < Date.parse(item.order.updatedAt)) {
        newest.set(item.order.storeOrderId, item)
      }
    }
    const outcomes = new Map<string, PulledOutcome>()
    if (newest.size === 0) return outcomes
    const at = yield* now
    const existing = new Map((yield* db.use((k) =>
      k.selectFrom("store_orders").select(["id", "store_order_id", "state", "store_updated_at", "normalized"])
        .where("store_key", "=", storeKey).where("store_order_id", "in", [...newest.keys()])
        .forUpdate().execute()
    )).map((row) => [row.store_order_id, row]))

    const fresh = [...newest.values()].filter((item) =>
      !existing.has(item.order.storeOrderId)
    )
    const events: Array<{ order_id: number; from_state: OrderState | null; to_state: OrderState; reason: string; data: unknown }> = []
    if (fresh.length > 0) {
      const inserted = yield* db.use((k) =>
        k.insertInto("store_orders").values(fresh.map(({ order, referenceId }) => ({
          store_key: storeKey,
          store_order_id: order.storeOrderId,
          reference_id: referenceId,
          state: "pulled",
          raw: jsonb((order.raw ?? {}) as object),
          normalized: jsonb(encodeOrder(order) as object),
          store_updated_at: new Date(order.updatedAt),
          next_attempt_at: at,
          updated_at: at
        }))).onConflict((oc) => oc.doNothing()).returning(["id", "store_order_id"]).execute()
      )
      const names = new Map(fresh.map(({ order }) => [order.storeOrderId, order.name]))
      for (const row of inserted) {
        outcomes.set(row.store_order_id, { id: row.id, outcome: "inserted", state: "pulled" })
        events.push({
          order_id: row.id,
          from_state: null,
          to_state: "pulled",
          reason: `pulled from the store (${names.get(row.store_order_id)})`,
          data: null
        })
      }
      // Not inserted: another replica stored it between our read and insert, and theirs stands.
      for (const { order } of fresh) {
        if (!outcomes.has(order.storeOrderId)) outcomes.set(order.storeOrderId, { id: -1, outcome: "unchanged", state: "pulled" })
      }
    }

    const updates: Array<{ id: number; raw: unknown; normalized: unknown; store_updated_at: string; due: boolean }> = []
    for (const [storeOrderId, row] of existing) {
      const pulled = newest.get(storeOrderId)
      if (pulled === undefined) {
        return yield* Effect.dieMessage(
          `store order ${storeOrderId} was read back though the page does not hold it (rows are selected by the page's ids)`
        )
      }
      const { order } = pulled
      const state = row.state
      // Our own rows: stored by encodeOrder, so read back as its output without decoding unless it changed.
      const normalized = encodeOrder(order)
      const stored = row.normalized as NormalizedOrderEncoded
      // The same version, now with what the store withheld before (the app was given access): it counts as newer.
      const fuller = row.store_updated_at?.getTime() === Date.parse(order.updatedAt) &&
        withheldCount(normalized) < withheldCount(stored)
      if (row.store_updated_at !== null && row.store_updated_at.getTime() >= Date.parse(order.updatedAt) && !fuller) {
        outcomes.set(storeOrderId, { id: row.id, outcome: "unchanged", state })
        continue
      }
      const due = matters(state, stored, normalized)
      updates.push({ id: row.id, raw: order.raw ?? {}, normalized, store_updated_at: new Date(order.updatedAt).toISOString(), due })
      if (due) {
        outcomes.set(storeOrderId, { id: row.id, outcome: "changed", state, previous: decodeOrder(row.normalized) })
        events.push({
          order_id: row.id,
          from_state: state,
          to_state: state,
          reason: fuller ? "the store now gives podsync what it withheld before" : "the order changed in the store",
          data: { updatedAt: order.updatedAt }
        })
      } else {
        outcomes.set(storeOrderId, { id: row.id, outcome: "quiet", state })
      }
    }
    if (updates.length > 0) {
      yield* db.use((k) =>
        sql`update store_orders as s set
              raw = x.raw, normalized = x.normalized, store_updated_at = x.store_updated_at,
              next_attempt_at = case when x.due then ${at}::timestamptz else s.next_attempt_at end,
              updated_at = case when x.due then ${at}::timestamptz else s.updated_at end,
              -- A change a dry run has not seen: what it would send now is recorded again.
              dry_run_at = case when x.due then null else s.dry_run_at end,
              dry_run_request = case when x.due then null else s.dry_run_request end
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
