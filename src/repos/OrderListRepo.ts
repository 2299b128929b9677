import { Effect, Option, Schema } from "effect"
import { type Expression, type SqlBool, sql } from "kysely"
import { Db } from "../db/Db.js"
import { type Money, MoneyFromWire } from "../domain/Money.js"
import type { OrderState } from "../domain/OrderState.js"

/**
 * The console's list of every order (issue 33) and what waits to be paid at the POD service, read
 * from store_orders. Pages are keyset pages over (created_at, id), newest first: a page is found
 * by the last row the reader saw, so orders pulled meanwhile neither repeat nor skip a row, and
 * the 2000th page costs what the first does. The search words come from the migration
 * 2026-12-01T00-00-01_order_search (store_orders.search_words, under a GIN index).
 */

/** Where a page starts: after this row, towards older orders or towards newer ones. */
export interface ListCursor {
  readonly direction: "older" | "newer"
  /** The row's created_at, exact to the microsecond (ISO, UTC). */
  readonly createdAt: string
  readonly id: number
}

export interface OrderListFilter {
  /** Words the order must all have: order number, buyer name or email, SKU, reference id, POD id. */
  readonly search?: string | undefined
  readonly state?: OrderState | undefined
  readonly storeKey?: string | undefined
  /** Pulled at or after. */
  readonly from?: Date | undefined
  /** Pulled before. */
  readonly to?: Date | undefined
  readonly cursor?: ListCursor | undefined
  readonly limit: number
}

export interface ListedOrder {
  readonly id: number
  readonly storeKey: string
  readonly referenceId: string
  readonly name: string | null
  readonly buyer: string | null
  readonly email: string | null
  readonly skus: ReadonlyArray<string>
  readonly state: OrderState
  readonly podStatus: string | null
  readonly podDraftId: string | null
  readonly podOrderId: string | null
  /** What the buyer paid the store, as the store says. */
  readonly total: Money | null
  /** The order's date at the store, as it gave it. */
  readonly placedAt: string | null
  readonly createdAt: Date
  /** createdAt exact to the microsecond, for the next page's cursor. */
  readonly cursorAt: string
}

export interface OrderListPage {
  readonly orders: ReadonlyArray<ListedOrder>
  /** A page of older orders follows the last row. */
  readonly older: boolean
  /** A page of newer orders comes before the first row. */
  readonly newer: boolean
  /** How many orders match, counted up to `COUNT_UP_TO` (more: that number, `countCapped`). */
  readonly matching: number
  readonly countCapped: boolean
}

/** What to pay at the POD service, and what a failed payment blocks. */
/** An order whose would-be request a dry run recorded (`request`: pipeline/DryRunRecords.ts `WouldSend`, as stored). */
export interface WouldSendRow {
  readonly id: number
  readonly storeKey: string
  readonly referenceId: string
  readonly name: string | null
  readonly state: OrderState
  /** What the buyer paid the store. */
  readonly storeTotal: Money | undefined
  readonly recordedAt: Date
  readonly request: unknown
}

/** A POD variant as the catalog cache knows it: its name and its price (undefined: not known). */
export interface CatalogPrice {
  readonly name: string
  readonly price: Money | undefined
}

/**
 * What the console reads of a recorded would-be draft (the POD create body, pipeline/DryRunRecords.ts):
 * its lines, its shipping method and its reference id. Other kinds, and anything else, do not decode.
 */
export const RecordedDraft = Schema.Struct({
  kind: Schema.Literal("draft"),
  body: Schema.Struct({
    data: Schema.Struct({
      reference_id: Schema.optional(Schema.String),
      shipping_method: Schema.optional(Schema.String),
      line_items: Schema.Array(Schema.Struct({
        variant_id: Schema.optional(Schema.String),
        legacy_id: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
        quantity: Schema.Number
      }))
    })
  })
})
export type RecordedDraft = typeof RecordedDraft.Type
export const decodeRecordedDraft = Schema.decodeUnknownOption(RecordedDraft)

/** The POD variant ids a recorded draft body names. */
const variantIdsOf = (request: unknown): ReadonlyArray<string> =>
  Option.match(decodeRecordedDraft(request), {
    onNone: () => [],
    onSome: (d) => d.body.data.line_items.flatMap((l) => (l.variant_id === undefined ? [] : [l.variant_id]))
  })

export type PayKind = "checkout" | "awaiting_payment" | "payment_failed"

export interface OrderToPay {
  readonly id: number
  readonly storeKey: string
  readonly referenceId: string
  readonly name: string | null
  readonly kind: PayKind
  readonly podStatus: string | null
  readonly podDraftId: string | null
  readonly podOrderId: string | null
  readonly createdAt: Date
}

export const COUNT_UP_TO = 200
export const AWAITING_PAYMENT = "VENDOR_ORDER_STATUS_AWAITING_PAYMENT"
export const PAYMENT_FAILED = "VENDOR_ORDER_STATUS_PAYMENT_FAILED"

/**
 * The search's words, split on spaces, at most 8 (each narrows the match). The database lowercases
 * them, with the same lower() that made the stored words, so both agree on every letter.
 */
export const searchWordsOf = (search: string | undefined): ReadonlyArray<string> =>
  (search ?? "").split(/\s+/).filter((w) => w !== "").slice(0, 8)

const decodeTotal = Schema.decodeUnknownOption(MoneyFromWire)

const asDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value))

/** created_at as ISO text with its microseconds (a JS Date keeps milliseconds only: a cursor from it would skip rows). */
const exactCreatedAt = sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

interface ListRow {
  id: number | string
  store_key: string
  reference_id: string
  state: OrderState
  pod_status: string | null
  pod_draft_id: string | null
  pod_order_id: string | null
  created_at: Date | string
  cursor_at: string
  name: string | null
  buyer: string | null
  email: string | null
  placed_at: string | null
  total: unknown
  skus: unknown
}

const listedOf = (r: ListRow): ListedOrder => ({
  id: Number(r.id),
  storeKey: r.store_key,
  referenceId: r.reference_id,
  name: r.name,
  buyer: r.buyer,
  email: r.email,
  skus: Array.isArray(r.skus) ? r.skus.filter((s): s is string => typeof s === "string" && s !== "") : [],
  state: r.state,
  podStatus: r.pod_status,
  podDraftId: r.pod_draft_id,
  podOrderId: r.pod_order_id,
  total: r.total === null || r.total === undefined ? null : Option.getOrNull(decodeTotal(r.total)),
  placedAt: r.placed_at,
  createdAt: asDate(r.created_at),
  cursorAt: r.cursor_at
})

const payKindOf = (state: OrderState, podStatus: string | null): PayKind =>
  podStatus === PAYMENT_FAILED ? "payment_failed" : podStatus === AWAITING_PAYMENT ? "awaiting_payment" : state === "drafted"
    ? "checkout"
    : "awaiting_payment"

export class OrderListRepo extends Effect.Service<OrderListRepo>()("podsync/OrderListRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    /** The filter's conditions, cursor aside. */
    const conditions = (filter: OrderListFilter): ReadonlyArray<Expression<SqlBool>> => {
      const words = searchWordsOf(filter.search)
      return [
        ...(words.length === 0 ? [] : [
          sql<SqlBool>`search_words @> array[${sql.join(words.map((w) => sql`lower(${w}::text)`))}]`
        ]),
        ...(filter.state === undefined ? [] : [sql<SqlBool>`state = ${filter.state}`]),
        ...(filter.storeKey === undefined ? [] : [sql<SqlBool>`store_key = ${filter.storeKey}`]),
        ...(filter.from === undefined ? [] : [sql<SqlBool>`created_at >= ${filter.from.toISOString()}::timestamptz`]),
        ...(filter.to === undefined ? [] : [sql<SqlBool>`created_at < ${filter.to.toISOString()}::timestamptz`])
      ]
    }

    const list = (filter: OrderListFilter) =>
      db.use(async (k) => {
        const where = conditions(filter)
        const cursor = filter.cursor
        const newer = cursor?.direction === "newer"
        const page = cursor === undefined ? [] : [
          newer
            ? sql<SqlBool>`(created_at, id) > (${cursor.createdAt}::timestamptz, ${cursor.id})`
            : sql<SqlBool>`(created_at, id) < (${cursor.createdAt}::timestamptz, ${cursor.id})`
        ]
        const all = [...where, ...page]
        const whereSql = all.length === 0 ? sql`` : sql`where ${sql.join(all, sql` and `)}`
        const order = newer ? sql`order by created_at asc, id asc` : sql`order by created_at desc, id desc`
        const rows = await sql<ListRow>`
          select id, store_key, reference_id, state, pod_status, pod_draft_id, pod_order_id, created_at,
            ${exactCreatedAt} as cursor_at,
            normalized->>'name' as name, normalized#>>'{shipTo,name}' as buyer, normalized->>'email' as email,
            normalized->>'createdAt' as placed_at, normalized->'total' as total,
            jsonb_path_query_array(normalized, '$.lines[*].sku') as skus
          from store_orders ${whereSql} ${order} limit ${filter.limit + 1}`.execute(k)
        const countWhere = where.length === 0 ? sql`` : sql`where ${sql.join(where, sql` and `)}`
        const counted = await sql<{ n: number | string }>`
          select count(*) as n from (select 1 from store_orders ${countWhere} limit ${COUNT_UP_TO + 1}) as matched`.execute(k)
        const more = rows.rows.length > filter.limit
        const shown = rows.rows.slice(0, filter.limit).map(listedOf)
        const matching = Number(counted.rows[0]?.n ?? 0)
        return {
          orders: newer ? shown.reverse() : shown,
          older: newer ? true : more,
          newer: newer ? more : cursor !== undefined,
          matching: Math.min(matching, COUNT_UP_TO),
          countCapped: matching > COUNT_UP_TO
        } satisfies OrderListPage
      })

    /**
     * Drafts not checked out and POD orders waiting for payment or refused it, oldest first, up to
     * `limit`; and how many there are in all.
     */
    const toPay = (limit: number) =>
      db.use(async (k) => {
        const toPayWhere = sql`where state = 'drafted' or pod_status in (${AWAITING_PAYMENT}, ${PAYMENT_FAILED})`
        const rows = await sql<
          Pick<
            ListRow,
            "id" | "store_key" | "reference_id" | "state" | "pod_status" | "pod_draft_id" | "pod_order_id" | "created_at" | "name"
          >
        >`
          select id, store_key, reference_id, state, pod_status, pod_draft_id, pod_order_id, created_at, normalized->>'name' as name
          from store_orders ${toPayWhere} order by created_at, id limit ${limit}`.execute(k)
        const counted = await sql<{ n: number | string }>`select count(*) as n from store_orders ${toPayWhere}`.execute(k)
        return {
          orders: rows.rows.map((r): OrderToPay => ({
            id: Number(r.id),
            storeKey: r.store_key,
            referenceId: r.reference_id,
            name: r.name,
            kind: payKindOf(r.state, r.pod_status),
            podStatus: r.pod_status,
            podDraftId: r.pod_draft_id,
            podOrderId: r.pod_order_id,
            createdAt: asDate(r.created_at)
          })),
          total: Number(counted.rows[0]?.n ?? 0)
        }
      })

    /** The store keys orders were stored under (the filter's choices). */
    const storeKeys = db.use((k) =>
      sql<{ store_key: string }>`
        with recursive keys as (
          (select store_key from store_orders order by store_key limit 1)
          union all
          select (select s.store_key from store_orders s where s.store_key > keys.store_key order by s.store_key limit 1)
          from keys where keys.store_key is not null
        )
        select store_key from keys where store_key is not null`.execute(k)
    ).pipe(Effect.map((r) => r.rows.map((row) => row.store_key)))

    /**
     * What a dry run recorded it would send (OrdersRepo.recordDryRun), newest first, up to `limit`; how many
     * there are in all; and the catalog's name and price of every POD variant the would-be drafts name.
     */
    const wouldSend = (limit: number) =>
      db.use(async (k) => {
        const rows = await sql<{
          id: number | string
          store_key: string
          reference_id: string
          state: OrderState
          name: string | null
          total: unknown
          dry_run_at: Date | string
          dry_run_request: unknown
        }>`
          select id, store_key, reference_id, state, normalized->>'name' as name, normalized->'total' as total, dry_run_at, dry_run_request
          from store_orders where dry_run_at is not null order by dry_run_at desc, id desc limit ${limit}`.execute(k)
        const counted = await sql<{ n: number | string }>`select count(*) as n from store_orders where dry_run_at is not null`.execute(k)
        const variantIds = [...new Set(rows.rows.flatMap((r) => variantIdsOf(r.dry_run_request)))]
        const variants = variantIds.length === 0 ? [] : await k.selectFrom("catalog_variants")
          .select(["variant_id", "product_name", "name", "price"]).where("variant_id", "in", variantIds).execute()
        return {
          orders: rows.rows.map((r): WouldSendRow => ({
            id: Number(r.id),
            storeKey: r.store_key,
            referenceId: r.reference_id,
            name: r.name,
            state: r.state,
            storeTotal: Option.getOrUndefined(decodeTotal(r.total)),
            recordedAt: asDate(r.dry_run_at),
            request: r.dry_run_request
          })),
          total: Number(counted.rows[0]?.n ?? 0),
          variants: new Map(variants.map((v) => [v.variant_id, {
            name: [v.product_name, v.name].filter((part) => part !== null && part !== "").join(" "),
            price: v.price === null ? undefined : Option.getOrUndefined(decodeTotal(v.price))
          }])) as ReadonlyMap<string, CatalogPrice>
        }
      })

    return { list, toPay, storeKeys, wouldSend }
  })
}) {}
