import { Effect, Option, Schema } from "effect"
import { Db } from "../db/Db.js"
import { jsonb } from "../db/Jsonb.js"
import { NormalizedOrder } from "../domain/NormalizedOrder.js"
import { NEEDS_A_PERSON, type OrderState } from "../domain/OrderState.js"
import type { ReportOrder } from "../reports/ReportInput.js"
import type { ReportFormat } from "../reports/ReportOutput.js"
import { toOrderRecord } from "../repos/OrderRows.js"

/** Orders a report always looks at, whatever the period: they need a person, or are still on their way. */
export const OPEN_STATES: ReadonlyArray<OrderState> = [
  ...NEEDS_A_PERSON,
  "pulled",
  "ready",
  "in_doubt",
  "drafted",
  "checked_out",
  "in_production",
  "shipped"
]

/** One written report: its period and store ("" for every store), the files and the summary. */
export interface ReportRecord {
  readonly periodFrom: Date
  readonly periodTo: Date
  readonly storeKey: string
  readonly createdAt: Date
  readonly files: unknown
  readonly summary: unknown
}

const CHUNK = 500
const decodeOrder = Schema.decodeUnknown(NormalizedOrder)
const chunks = <A>(items: ReadonlyArray<A>) =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK))

const groupBy = <A>(items: ReadonlyArray<A>, key: (item: A) => number) => {
  const groups = new Map<number, Array<A>>()
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item])
  return groups
}

/** What the reconciliation report reads from the database, and the record of the reports written. */
export class ReportsRepo extends Effect.Service<ReportsRepo>()("podsync/ReportsRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    /** Stored orders with their events and shipments (oldest first), by id. */
    const withHistory = (ids: ReadonlyArray<number>) =>
      Effect.forEach(chunks([...new Set(ids)]), (chunk) =>
        Effect.gen(function*() {
          const [rows, events, shipments] = yield* Effect.all([
            db.use((k) => k.selectFrom("store_orders").selectAll().where("id", "in", chunk).orderBy("id").execute()),
            db.use((k) =>
              k.selectFrom("order_events").select(["order_id", "at", "from_state", "to_state", "reason"]).where("order_id", "in", chunk)
                .orderBy("order_id").orderBy("id").execute()
            ),
            db.use((k) =>
              k.selectFrom("shipments").select([
                "order_id",
                "tracking_no",
                "carrier",
                "tracking_url",
                "pod_order_id",
                "push_state",
                "created_at"
              ]).where(
                "order_id",
                "in",
                chunk
              ).orderBy("id").execute()
            )
          ])
          const eventsOf = groupBy(events, (e) => Number(e.order_id))
          const shipmentsOf = groupBy(shipments, (s) => Number(s.order_id))
          return yield* Effect.forEach(rows, (row) =>
            Effect.map(Effect.orDie(decodeOrder(row.normalized)), (order): ReportOrder => ({
              ...toOrderRecord(row, order),
              id: Number(row.id),
              events: (eventsOf.get(Number(row.id)) ?? [])
                .map((e) => ({ at: e.at.getTime(), from: e.from_state, to: e.to_state, reason: e.reason })),
              shipments: (shipmentsOf.get(Number(row.id)) ?? [])
                .map((s) => ({
                  trackingNo: s.tracking_no,
                  carrier: s.carrier,
                  trackingUrl: s.tracking_url,
                  podOrderId: s.pod_order_id,
                  pushState: s.push_state,
                  createdAt: s.created_at.getTime()
                }))
            })))
        })).pipe(Effect.map((parts) => parts.flat()))

    /**
     * The orders of a report on `storeKeys`: every order with an event in
     * [from, to), and every order still open (needing a person, or on its way).
     */
    const ordersFor = (period: { readonly from: Date; readonly to: Date }, storeKeys: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        if (storeKeys.length === 0) return []
        const ids = yield* db.use((k) =>
          k.selectFrom("store_orders").select("id")
            .where("store_key", "in", [...storeKeys]).where("state", "in", [...OPEN_STATES])
            .union(
              // The period's events, found through their time index.
              k.selectFrom("order_events").innerJoin("store_orders", "store_orders.id", "order_events.order_id").select("store_orders.id")
                .where("order_events.at", ">=", period.from).where("order_events.at", "<", period.to)
                .where("store_orders.store_key", "in", [...storeKeys])
            )
            .execute()
        )
        return yield* withHistory(ids.map((r) => Number(r.id)))
      })

    /** Stored orders with these reference ids (POD records the report found outside its own set). */
    const byReferences = (referenceIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const found = yield* Effect.forEach(chunks([...new Set(referenceIds)]), (chunk) =>
          db.use((k) => k.selectFrom("store_orders").select("id").where("reference_id", "in", chunk).execute()))
        return yield* withHistory(
          found.flat().map((r) =>
            Number(r.id)
          )
        )
      })

    /** Records a written report; writing the same period and store again replaces it. */
    const save = (
      record: {
        readonly periodFrom: Date
        readonly periodTo: Date
        readonly storeKey: string
        readonly files: unknown
        readonly summary: unknown
      }
    ) =>
      db.use((k) =>
        k.insertInto("reports").values({
          period_from: record.periodFrom,
          period_to: record.periodTo,
          store_key: record.storeKey,
          files: jsonb(record.files as object),
          summary: jsonb(record.summary as object)
        }).onConflict((oc) =>
          oc.columns(["period_from", "period_to", "store_key"]).doUpdateSet((eb) => ({
            files: eb.ref("excluded.files"),
            summary: eb.ref("excluded.summary")
          }))
        ).execute()
      ).pipe(Effect.asVoid)

    const toRecord = (
      row: { period_from: Date; period_to: Date; store_key: string; created_at: Date; files: unknown; summary: unknown }
    ): ReportRecord => ({
      periodFrom: row.period_from,
      periodTo: row.period_to,
      storeKey: row.store_key,
      createdAt: row.created_at,
      files: row.files,
      summary: row.summary
    })

    /** The latest reports, newest period first. */
    const list = (limit = 100) =>
      db.use((k) =>
        k.selectFrom("reports").selectAll().orderBy("period_from", "desc").orderBy("period_to", "desc").orderBy("store_key").limit(limit)
          .execute()
      )
        .pipe(Effect.map((rows) => rows.map(toRecord)))

    const find = (periodFrom: Date, periodTo: Date, storeKey: string) =>
      db.use((k) =>
        k.selectFrom("reports").selectAll().where("period_from", "=", periodFrom).where("period_to", "=", periodTo).where(
          "store_key",
          "=",
          storeKey
        ).executeTakeFirst()
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toRecord(row))))

    /** Keeps a report's files; writing the same name again replaces it. */
    const saveFiles = (files: ReadonlyArray<{ readonly format: ReportFormat; readonly name: string; readonly body: string }>) =>
      Effect.forEach(
        files,
        (file) =>
          db.use((k) =>
            k.insertInto("report_files").values({ name: file.name, format: file.format, body: file.body }).onConflict((oc) =>
              oc.column("name").doUpdateSet((eb) => ({
                format: eb.ref("excluded.format"),
                body: eb.ref("excluded.body"),
                written_at: eb.ref("excluded.written_at")
              }))
            ).execute()
          ),
        { discard: true }
      )

    /** A kept report file by name. */
    const file = (name: string) =>
      db.use((k) => k.selectFrom("report_files").select(["format", "body"]).where("name", "=", name).executeTakeFirst()).pipe(
        Effect.map(Option.fromNullable)
      )

    return { ordersFor, byReferences, save, saveFiles, file, list, find }
  })
}) {}
