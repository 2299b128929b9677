import { Effect } from "effect"
import { sql } from "kysely"
import { Db } from "../db/Db.js"
import { AWAITING_STORE_PAYMENT, NEEDS_A_PERSON, type OrderState } from "../domain/OrderState.js"
import { now } from "./OrderRows.js"

/** One order in front of a person, as the console lists it. */
export interface WaitingOrder {
  readonly id: number
  readonly storeKey: string
  readonly referenceId: string
  readonly name: string | null
  readonly state: OrderState
  readonly heldReason: string | null
  /** What the pipeline said when it held it, or the message of its last error. */
  readonly message: string | null
  readonly podDraftId: string | null
  readonly podOrderId: string | null
  /** When it reached its state: the version an action on it is checked against. */
  readonly updatedAt: Date
  /**
   * When it began to wait in its state: its move into it from another state. A move within the
   * state (a re-plan that holds it again, a patched draft) changes `updatedAt`, not this.
   */
  readonly waitingSince: Date
}

export interface WaitingFilter {
  readonly storeKey?: string | undefined
  /** Only these states (and, for held or pod_on_hold, this reason). */
  readonly state?: OrderState | undefined
  readonly heldReason?: string | undefined
  /** Drafts that have waited since before this are "not checked out in time". */
  readonly draftedBefore: Date
  /** In-doubt orders that have waited since before this are stuck (they normally resolve in seconds). */
  readonly inDoubtBefore: Date
  readonly limit: number
}

/** A person's move of one order, applied only if the order is still as the person saw it. */
export interface PersonMoveRow {
  readonly id: number
  readonly from: OrderState
  /** The order's `updatedAt` when the person saw it. */
  readonly seenAt: Date
  readonly to: OrderState
  readonly actor: string
  readonly reason: string
  /** Identifies the submission: a second one with the same key acts no more. */
  readonly actionKey: string
  readonly dueNow: boolean
  readonly held?: { readonly code: string; readonly details: unknown }
  readonly data: unknown
}

export type MoveOutcome =
  | { readonly id: number; readonly outcome: "moved" | "already_done" }
  | { readonly id: number; readonly outcome: "changed"; readonly state: OrderState | null; readonly updatedAt: Date | null }

/** When the order entered its present state from another one (its row's change time if no event says). */
const waitingSince = sql<Date | string>`coalesce((
  select max(e.at) from order_events as e
  where e.order_id = store_orders.id and e.to_state = store_orders.state and e.from_state is distinct from e.to_state
), store_orders.updated_at)`

/** Why the order is in its state, as the last move into it said ("on hold at the POD service: …"). */
const stateReason = sql<string | null>`(
  select e.reason from order_events as e
  where e.order_id = store_orders.id and e.to_state = store_orders.state
  order by e.at desc, e.id desc limit 1
)`

const asDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value))

/** The console's queue of orders that need a person, and the moves a person makes on them. */
/** What the queue shows of an order (and an action's page of what it acted on). */
const WAITING_COLUMNS = [
  "id",
  "store_key",
  "reference_id",
  "state",
  "held_reason",
  "pod_draft_id",
  "pod_order_id",
  "updated_at",
  sql<string | null>`normalized->>'name'`.as("name"),
  sql<string | null>`coalesce(held_details->>'message', last_error->>'message', ${stateReason})`.as("message"),
  waitingSince.as("waiting_since")
] as const

/** A row of WAITING_COLUMNS as the queue shows it. */
const waitingOrderOf = (r: {
  readonly id: number
  readonly store_key: string
  readonly reference_id: string
  readonly name: string | null
  readonly state: OrderState
  readonly held_reason: string | null
  readonly message: string | null
  readonly pod_draft_id: string | null
  readonly pod_order_id: string | null
  readonly updated_at: Date | string
  readonly waiting_since: Date | string
}): WaitingOrder => ({
  id: Number(r.id),
  storeKey: r.store_key,
  referenceId: r.reference_id,
  name: r.name,
  state: r.state,
  heldReason: r.held_reason,
  message: r.message,
  podDraftId: r.pod_draft_id,
  podOrderId: r.pod_order_id,
  updatedAt: asDate(r.updated_at),
  waitingSince: asDate(r.waiting_since)
})

export class AttentionRepo extends Effect.Service<AttentionRepo>()("podsync/AttentionRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    /**
     * Longest waiting first: what waits longest is what a person should see first. An order the
     * store has not been paid for waits for the buyer, not a person: listed only when asked for.
     */
    const waiting = (filter: WaitingFilter) =>
      db.use((k) => {
        let q = k.selectFrom("store_orders")
          .select(WAITING_COLUMNS)
          .where((w) =>
            w.or([
              w("state", "in", [...NEEDS_A_PERSON]),
              w.and([w("state", "=", "drafted"), w("updated_at", "<", filter.draftedBefore)]),
              w.and([w("state", "=", "in_doubt"), w("updated_at", "<", filter.inDoubtBefore)])
            ])
          )
        if (filter.storeKey !== undefined) q = q.where("store_key", "=", filter.storeKey)
        if (filter.state !== undefined) q = q.where("state", "=", filter.state)
        if (filter.heldReason !== undefined) q = q.where("held_reason", "=", filter.heldReason)
        if (filter.heldReason !== AWAITING_STORE_PAYMENT) {
          q = q.where((w) => w.or([w("state", "<>", "held"), w("held_reason", "is", null), w("held_reason", "<>", AWAITING_STORE_PAYMENT)]))
        }
        return q.orderBy(waitingSince).orderBy("id").limit(filter.limit).execute()
      }).pipe(Effect.map((rows) => rows.map(waitingOrderOf)))

    /**
     * Applies each move in one statement (updates and their order_events rows), only to an order
     * still in `from` at the version `seenAt` and not yet moved by the same `actionKey`; then says
     * of each order what happened: moved, already done by that key, or changed meanwhile (with
     * what it is now).
     */
    const applyMoves = (moves: ReadonlyArray<PersonMoveRow>) =>
      Effect.gen(function*() {
        if (moves.length === 0) return [] as ReadonlyArray<MoveOutcome>
        const at = yield* now
        const input = moves.map((m) => ({
          id: m.id,
          from_state: m.from,
          seen_at: m.seenAt.toISOString(),
          to_state: m.to,
          actor: m.actor,
          reason: m.reason,
          action_key: m.actionKey,
          data: { ...(m.data as object), actionKey: m.actionKey, before: { state: m.from, updatedAt: m.seenAt.toISOString() } },
          set_held: m.held !== undefined || m.to !== "held",
          held_reason: m.held?.code ?? null,
          held_details: m.held?.details ?? null,
          due_now: m.dueNow
        }))
        const moved = yield* db.use((k) =>
          sql<{ id: number | string }>`
            with input as (
              select * from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as x(
                id bigint, from_state text, seen_at timestamptz, to_state text, actor text, reason text, action_key text,
                data jsonb, set_held boolean, held_reason text, held_details jsonb, due_now boolean)
            ), moved as (
              update store_orders as s set
                state = x.to_state, updated_at = ${at}::timestamptz,
                held_reason = case when x.set_held then x.held_reason else s.held_reason end,
                held_details = case when x.set_held then x.held_details else s.held_details end,
                next_attempt_at = case when x.due_now then ${at}::timestamptz else s.next_attempt_at end
              from input as x
              where s.id = x.id and s.state = x.from_state
                and date_trunc('milliseconds', s.updated_at) = x.seen_at
                and not exists (
                  select 1 from order_events as e where e.order_id = s.id and e.data->>'actionKey' = x.action_key)
              returning s.id, x.actor, x.from_state, x.to_state, x.reason, x.data
            ), logged as (
              insert into order_events (order_id, at, actor, from_state, to_state, reason, data)
              select id, ${at}::timestamptz, actor, from_state, to_state, reason, data from moved
            )
            select id from moved`.execute(k)
        )
        const movedIds = new Set(moved.rows.map((r) => Number(r.id)))
        const others = moves.filter((m) => !movedIds.has(m.id))
        const now_ = others.length === 0 ?
          [] :
          yield* db.use((k) =>
            sql<{ id: number | string; state: OrderState; updated_at: Date | string; done: boolean }>`
            select s.id, s.state, s.updated_at, exists (
              select 1 from order_events as e where e.order_id = s.id and e.data->>'actionKey' = x.action_key) as done
            from store_orders as s
            join jsonb_to_recordset(${JSON.stringify(others.map((m) => ({ id: m.id, action_key: m.actionKey })))}::jsonb)
              as x(id bigint, action_key text) on s.id = x.id`.execute(k)
          ).pipe(Effect.map((r) => r.rows))
        const current = new Map(now_.map((r) => [Number(r.id), r]))
        return moves.map((m): MoveOutcome => {
          if (movedIds.has(m.id)) return { id: m.id, outcome: "moved" }
          const row = current.get(m.id)
          if (row?.done === true) return { id: m.id, outcome: "already_done" }
          return { id: m.id, outcome: "changed", state: row?.state ?? null, updatedAt: row ? asDate(row.updated_at) : null }
        })
      })

    /** The orders with these ids, as the queue shows them (an action's page reads what it acts on). */
    const byIds = (ids: ReadonlyArray<number>) =>
      ids.length === 0 ? Effect.succeed([] as ReadonlyArray<WaitingOrder>) : db.use((k) =>
        k.selectFrom("store_orders")
          .select(WAITING_COLUMNS)
          .where("id", "in", [...ids])
          .execute()
      ).pipe(Effect.map((rows) => rows.map(waitingOrderOf)))

    /** The lines of a store's orders held for a missing mapping row, by SKU and variant id, with how many orders wait on each. */
    const unmatchedLines = (storeKey: string, limit = 100) =>
      db.use((k) =>
        sql<
          {
            sku: string
            variant_id: string
            product_id: string | null
            title: string | null
            variant_title: string | null
            attribute_names: string | null
            n: number | string
          }
        >`
          select coalesce(line->>'sku', '') as sku, coalesce(line->>'variantId', '') as variant_id,
            min(line->>'productId') as product_id, min(line->>'title') as title, min(line->>'variantTitle') as variant_title,
            string_agg(distinct attr->>'key', chr(10)) as attribute_names, count(distinct o.id) as n
          from store_orders as o cross join lateral jsonb_array_elements(o.normalized->'lines') as line
            left join lateral jsonb_array_elements(coalesce(line->'attributes', '[]'::jsonb)) as attr on true
          where o.state = 'held' and o.held_reason = 'unmatched' and o.store_key = ${storeKey}
          group by 1, 2 order by n desc, sku limit ${limit}`.execute(k)
      ).pipe(Effect.map((r) =>
        r.rows.map((row) => ({
          sku: row.sku,
          variantId: row.variant_id,
          title: row.title,
          // The colour and size a suggestion matches on ("Forest Green / L").
          variantTitle: row.variant_title,
          productId: row.product_id,
          // Where a design can come from: the attributes its line items carry ("design_front").
          attributeNames: (row.attribute_names ?? "").split("\n").filter((name) => name !== ""),
          orders: Number(row.n)
        }))
      ))

    /** A store's orders held for a missing mapping row, each with its lines' SKUs and variant ids (what a row answers). */
    const heldUnmatched = (storeKey: string) =>
      db.use((k) =>
        sql<{ id: number | string; lines: Array<{ sku?: string; variantId?: string }> | null }>`
          select o.id, (select jsonb_agg(jsonb_build_object('sku', line->>'sku', 'variantId', line->>'variantId'))
            from jsonb_array_elements(o.normalized->'lines') as line) as lines
          from store_orders as o
          where o.state = 'held' and o.held_reason = 'unmatched' and o.store_key = ${storeKey}`.execute(k)
      ).pipe(Effect.map((r) =>
        r.rows.map((row) => ({
          id: Number(row.id),
          lines: (row.lines ?? []).map((line) => ({ sku: line.sku ?? undefined, variantId: line.variantId ?? undefined }))
        }))
      ))

    return { waiting, applyMoves, byIds, unmatchedLines, heldUnmatched }
  })
}) {}
