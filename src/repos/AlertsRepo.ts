import { Effect } from "effect"
import { sql } from "kysely"
import { Db } from "../db/Db.js"
import { ownerSessionLive } from "../db/SessionTie.js"
import { jsonb } from "../db/Jsonb.js"
import type { AlertDeliveryStatus } from "../db/schema.js"
import { now } from "./OrderRows.js"

/**
 * The alert outbox (migrations/2026-11-26T00-00-01_alerts.ts). Alerts of orders are written by
 * OrdersRepo.transitionMany in the statement that moves the order; alerts of conditions by
 * `raiseCondition`/`resolveCondition` in the statement that changes the condition, so an alert
 * exists exactly when its cause was committed, and its unique dedup key keeps it to one. The
 * sender routes alerts to deliveries (one per channel), and sends a channel's deliveries while
 * holding that channel's lease, so replicas never send the same delivery side by side.
 */

/** One alert as the sender reads it. */
export interface OutboxAlert {
  readonly id: number
  readonly kind: string
  readonly storeKey: string | null
  readonly orderId: number | null
  readonly referenceId: string | null
  readonly reason: string | null
  readonly resolved: boolean
  readonly data: Readonly<Record<string, unknown>>
  readonly createdAt: Date
}

/** A pending delivery of an alert on a channel. */
export interface PendingDelivery {
  readonly deliveryId: number
  readonly attempts: number
  readonly nextAttemptAt: Date
  readonly alert: OutboxAlert
}

export interface FailedDelivery {
  readonly channel: string
  readonly kind: string
  readonly reason: string | null
  readonly referenceId: string | null
  readonly attempts: number
  readonly lastError: string | null
  readonly createdAt: Date
}

export interface AlertsSummary {
  readonly pending: number
  readonly sent: number
  readonly failed: ReadonlyArray<FailedDelivery>
}

export interface ActiveCondition {
  readonly key: string
  readonly kind: string
  readonly since: Date
}

const asDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value))
const asRecord = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

type AlertRow = {
  id: number
  kind: string
  store_key: string | null
  order_id: number | null
  reference_id: string | null
  reason: string | null
  resolved: boolean
  data: unknown
  created_at: Date | string
}

const toAlert = (row: AlertRow): OutboxAlert => ({
  id: Number(row.id),
  kind: row.kind,
  storeKey: row.store_key,
  orderId: row.order_id === null ? null : Number(row.order_id),
  referenceId: row.reference_id,
  reason: row.reason,
  resolved: row.resolved,
  data: asRecord(row.data),
  createdAt: asDate(row.created_at)
})

export class AlertsRepo extends Effect.Service<AlertsRepo>()("podsync/AlertsRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    /**
     * Raises a condition unless it is raised already; the alert is written in the same statement.
     * Answers whether this call raised it (of replicas seeing the same condition, one does).
     */
    const raiseCondition = (condition: {
      readonly key: string
      readonly kind: string
      readonly storeKey?: string
      readonly data: Readonly<Record<string, unknown>>
    }) =>
      Effect.gen(function*() {
        const at = yield* now
        const { rows } = yield* db.use((k) =>
          sql<{ id: number }>`
            with raised as (
              insert into alert_conditions (key, kind, active, since, data)
              values (${condition.key}, ${condition.kind}, true, ${at}::timestamptz, ${JSON.stringify(condition.data)}::jsonb)
              on conflict (key) do update set active = true, kind = excluded.kind, since = excluded.since, data = excluded.data
                where alert_conditions.active = false
              returning key, kind, since, data
            )
            insert into alert_outbox (dedup_key, kind, store_key, reason, resolved, data, created_at)
            select 'condition:' || key || ':raised:' || (extract(epoch from since) * 1000)::bigint, kind, ${condition.storeKey ?? null},
              key, false, data, since
            from raised
            on conflict (dedup_key) do nothing
            returning id`.execute(k)
        )
        return rows.length > 0
      })

    /** Resolves a raised condition; the "resolved" alert is written in the same statement. Answers whether this call resolved it. */
    const resolveCondition = (key: string, storeKey?: string) =>
      Effect.gen(function*() {
        const at = yield* now
        const { rows } = yield* db.use((k) =>
          sql<{ id: number }>`
            with cleared as (
              update alert_conditions set active = false, since = ${at}::timestamptz
              where key = ${key} and active
              returning key, kind, since, (data || jsonb_build_object('raisedAt', (select since from alert_conditions where key = ${key}))) as data
            )
            insert into alert_outbox (dedup_key, kind, store_key, reason, resolved, data, created_at)
            select 'condition:' || key || ':resolved:' || (extract(epoch from since) * 1000)::bigint, kind, ${storeKey ?? null},
              key, true, data, since
            from cleared
            on conflict (dedup_key) do nothing
            returning id`.execute(k)
        )
        return rows.length > 0
      })

    const activeConditions = db.use((k) =>
      k.selectFrom("alert_conditions").select(["key", "kind", "since"]).where("active", "=", true).orderBy("key").execute()
    ).pipe(Effect.map((rows): ReadonlyArray<ActiveCondition> => rows.map((r) => ({ key: r.key, kind: r.kind, since: asDate(r.since) }))))

    /**
     * Makes the deliveries of up to `limit` unrouted alerts (`route` names each alert's channels;
     * none: the alert is routed nowhere) and marks them routed, in one transaction. Replicas routing
     * at once take different alerts (SKIP LOCKED). Answers how many alerts were routed.
     */
    const routeUnrouted = (route: (alert: OutboxAlert) => ReadonlyArray<string>, limit = 200) =>
      db.transaction(Effect.gen(function*() {
        const at = yield* now
        const rows = yield* db.use((k) =>
          k.selectFrom("alert_outbox")
            .select(["id", "kind", "store_key", "order_id", "reference_id", "reason", "resolved", "data", "created_at"])
            .where("routed_at", "is", null).orderBy("id").limit(limit).forUpdate().skipLocked().execute()
        )
        if (rows.length === 0) return 0
        const alerts = rows.map((r) => toAlert(r as AlertRow))
        const deliveries = alerts.flatMap((alert) =>
          [...new Set(route(alert))].map((channel) => ({
            alert_id: alert.id,
            channel,
            status: "pending" as const,
            next_attempt_at: alert.createdAt
          }))
        )
        if (deliveries.length > 0) {
          yield* db.use((k) =>
            k.insertInto("alert_deliveries").values(deliveries).onConflict((c) => c.columns(["alert_id", "channel"]).doNothing()).execute()
          )
        }
        yield* db.use((k) => k.updateTable("alert_outbox").set({ routed_at: at }).where("id", "in", alerts.map((a) => a.id)).execute())
        return alerts.length
      }))

    /**
     * Takes a channel's lease for `leaseMs` if it is free, expired or already ours; answers when
     * the channel last sent (for the digest), or undefined when another replica holds it. `tied`:
     * this replica's session holds its lock (SessionTie), and the lease says so. A tied lease whose
     * holder's session has ended (the process killed mid-send) is cut to `graceMs` from when that is
     * first seen, the time its last send may still be at work at the receiver, instead of kept to
     * its whole length.
     */
    const takeChannel = (channel: string, owner: string, leaseMs: number, tied = false, graceMs = 0) =>
      Effect.gen(function*() {
        const at = yield* now
        const until = new Date(at.getTime() + leaseMs)
        // Only PostgreSQL ties leases (OrdersRepo.claim's rule): the embedded database is spared the look.
        if (db.dialect === "postgres") {
          const graceEnd = new Date(at.getTime() + Math.max(0, graceMs) - 1)
          yield* db.use((k) =>
            k.updateTable("alert_channels")
              .set({ lease_session: false, lease_expires_at: sql<Date>`least(lease_expires_at, ${graceEnd})` })
              .where("channel", "=", channel).where("lease_session", "=", true).where("lease_owner", "is not", null)
              .where("lease_owner", "!=", owner).where((w) => w.not(ownerSessionLive("lease_owner")))
              .execute()
          )
        }
        const row = yield* db.use((k) =>
          k.insertInto("alert_channels").values({ channel, lease_owner: owner, lease_expires_at: until, lease_session: tied })
            .onConflict((c) =>
              c.column("channel").doUpdateSet({ lease_owner: owner, lease_expires_at: until, lease_session: tied }).where((w) =>
                w.or([
                  w("alert_channels.lease_owner", "is", null),
                  w("alert_channels.lease_expires_at", "<=", at),
                  w("alert_channels.lease_owner", "=", owner)
                ])
              )
            )
            .returning("last_sent_at").executeTakeFirst()
        )
        return row === undefined ? undefined : { lastSentAt: row.last_sent_at === null ? null : asDate(row.last_sent_at) }
      })

    const released = { lease_owner: null, lease_expires_at: null, lease_session: false } as const

    const releaseChannel = (channel: string, owner: string) =>
      db.use((k) => k.updateTable("alert_channels").set(released).where("channel", "=", channel).where("lease_owner", "=", owner).execute())
        .pipe(Effect.asVoid)

    /** Gives back every channel lease: only for a database this process holds alone, where any lease is a dead predecessor's. */
    const releaseAllChannels = db.use((k) => k.updateTable("alert_channels").set(released).where("lease_owner", "is not", null).execute())
      .pipe(Effect.asVoid)

    /** The channel's pending deliveries, oldest first (due or waiting for a retry). */
    const pendingOn = (channel: string, limit = 500) =>
      db.use((k) =>
        k.selectFrom("alert_deliveries as d").innerJoin("alert_outbox as a", "a.id", "d.alert_id")
          .select([
            "d.id as delivery_id",
            "d.attempts",
            "d.next_attempt_at",
            "a.id",
            "a.kind",
            "a.store_key",
            "a.order_id",
            "a.reference_id",
            "a.reason",
            "a.resolved",
            "a.data",
            "a.created_at"
          ])
          .where("d.channel", "=", channel).where("d.status", "=", "pending").orderBy("d.id").limit(limit).execute()
      ).pipe(Effect.map((rows): ReadonlyArray<PendingDelivery> =>
        rows.map((r) => ({
          deliveryId: Number(r.delivery_id),
          attempts: r.attempts,
          nextAttemptAt: asDate(r.next_attempt_at),
          alert: toAlert(r as AlertRow)
        }))
      ))

    /** Marks deliveries sent in one message, and the channel's last send (the digest counts from it), in one transaction. */
    const markSent = (channel: string, deliveryIds: ReadonlyArray<number>, messageId: string) =>
      db.transaction(Effect.gen(function*() {
        const at = yield* now
        if (deliveryIds.length > 0) {
          yield* db.use((k) =>
            k.updateTable("alert_deliveries").set((eb) => ({
              status: "sent" as AlertDeliveryStatus,
              sent_at: at,
              message_id: messageId,
              attempts: eb("attempts", "+", 1),
              last_error: null
            }))
              .where("id", "in", [...deliveryIds]).where("status", "=", "pending").execute()
          )
        }
        yield* db.use((k) => k.updateTable("alert_channels").set({ last_sent_at: at }).where("channel", "=", channel).execute())
      }))

    /** Records a failed attempt: due again at `retryAt`, or failed for good when it is null. */
    const markAttemptFailed = (deliveryIds: ReadonlyArray<number>, error: string, retryAt: Date | null) =>
      deliveryIds.length === 0 ? Effect.void : db.use((k) =>
        k.updateTable("alert_deliveries").set((eb) => ({
          attempts: eb("attempts", "+", 1),
          last_error: error,
          ...(retryAt === null ? { status: "failed" as AlertDeliveryStatus } : { next_attempt_at: retryAt })
        })).where("id", "in", [...deliveryIds]).where("status", "=", "pending").execute()
      ).pipe(Effect.asVoid)

    /** Pending and sent counts, and the deliveries that failed for good (newest first), for /status and the report. */
    const summary = Effect.gen(function*() {
      const counts = yield* db.use((k) =>
        k.selectFrom("alert_deliveries").select(["status", sql<number>`count(*)::int`.as("n")]).groupBy("status").execute()
      )
      const failed = yield* db.use((k) =>
        k.selectFrom("alert_deliveries as d").innerJoin("alert_outbox as a", "a.id", "d.alert_id")
          .select(["d.channel", "a.kind", "a.reason", "a.reference_id", "d.attempts", "d.last_error", "a.created_at"])
          .where("d.status", "=", "failed").orderBy("d.id", "desc").limit(50).execute()
      )
      const count = (status: AlertDeliveryStatus) => Number(counts.find((c) => c.status === status)?.n ?? 0)
      return {
        pending: count("pending"),
        sent: count("sent"),
        failed: failed.map((f): FailedDelivery => ({
          channel: f.channel,
          kind: f.kind,
          reason: f.reason,
          referenceId: f.reference_id,
          attempts: f.attempts,
          lastError: f.last_error,
          createdAt: asDate(f.created_at)
        }))
      } satisfies AlertsSummary as AlertsSummary
    })

    /**
     * Forgets alerts older than `before` that are done: every delivery sent or failed, or routed
     * nowhere, or never routed (no sender runs: the daemon has no alert channels). Answers how many.
     */
    const pruneBefore = (before: Date) =>
      db.use((k) =>
        k.deleteFrom("alert_outbox").where("created_at", "<", before)
          .where((w) =>
            w.not(w.exists(
              w.selectFrom("alert_deliveries as d").select("d.id").whereRef("d.alert_id", "=", "alert_outbox.id").where(
                "d.status",
                "=",
                "pending"
              )
            ))
          )
          .executeTakeFirst()
      ).pipe(Effect.map((r) => Number(r.numDeletedRows)))

    /** Alerts the sender has not routed yet (written moments ago, or no sender runs). */
    const unroutedCount = db.use((k) =>
      k.selectFrom("alert_outbox").select(sql<number>`count(*)::int`.as("n")).where("routed_at", "is", null).executeTakeFirstOrThrow()
    ).pipe(Effect.map((row) => Number(row.n)))

    /** Alerts sent on at least one channel, counted by kind and reason (an alert sent on two channels counts once). */
    const sentByTopic = db.use((k) =>
      k.selectFrom("alert_outbox as a").select(["a.kind", "a.reason", sql<number>`count(*)::int`.as("n")])
        .where((w) =>
          w.exists(w.selectFrom("alert_deliveries as d").select("d.id").whereRef("d.alert_id", "=", "a.id").where("d.status", "=", "sent"))
        )
        .groupBy(["a.kind", "a.reason"]).execute()
    ).pipe(Effect.map((rows) => rows.map((r) => ({ kind: r.kind, reason: r.reason, count: Number(r.n) }))))

    /** When an order last moved (the newest event; by id, which the table is indexed on). */
    /**
     * Drafts not checked out since `cutoff` (drafted before it, still drafted): one alert per draft,
     * in one statement, however often it is asked. Answers how many were new.
     */
    const alertDraftsNotCheckedOut = (cutoff: Date) =>
      Effect.gen(function*() {
        const at = yield* now
        const { rows } = yield* db.use((k) =>
          sql<{ id: number }>`
            insert into alert_outbox (dedup_key, kind, store_key, order_id, reference_id, reason, data, created_at)
            select 'order:' || o.id || ':not_checked_out:' || coalesce(o.pod_draft_id, ''), 'order.not_checked_out', o.store_key, o.id,
              o.reference_id, null,
              jsonb_build_object('name', o.normalized ->> 'name', 'state', o.state,
                'message', 'draft ' || coalesce(o.pod_draft_id, '(id not recorded)')
                  || ' is not checked out: check it out (pay for it) at the POD service, or delete it'),
              ${at}::timestamptz
            from store_orders o
            where o.state = 'drafted'
              and (select max(e.at) from order_events e where e.order_id = o.id and e.to_state = 'drafted') < ${cutoff}::timestamptz
            on conflict (dedup_key) do nothing
            returning id`.execute(k)
        )
        return rows.length
      })

    /**
     * Records alerts that are neither an order's nor a condition's (a day's report): each once by
     * its dedup key, however often it is recorded. Call it in the transaction of what causes them.
     */
    const recordOnce = (alerts: ReadonlyArray<{ readonly dedupKey: string; readonly kind: string; readonly data: object }>) =>
      alerts.length === 0 ? Effect.succeed(0) : Effect.gen(function*() {
        const at = yield* now
        const inserted = yield* db.use((k) =>
          k.insertInto("alert_outbox")
            .values(alerts.map((a) => ({ dedup_key: a.dedupKey, kind: a.kind, data: jsonb(a.data), created_at: at })))
            .onConflict((c) => c.column("dedup_key").doNothing()).returning("id").execute()
        )
        return inserted.length
      })

    const lastOrderMoveAt = db.use((k) => k.selectFrom("order_events").select("at").orderBy("id", "desc").limit(1).executeTakeFirst())
      .pipe(Effect.map((row) => (row === undefined ? null : asDate(row.at))))

    return {
      alertDraftsNotCheckedOut,
      recordOnce,
      lastOrderMoveAt,
      raiseCondition,
      resolveCondition,
      activeConditions,
      routeUnrouted,
      takeChannel,
      releaseChannel,
      releaseAllChannels,
      pendingOn,
      markSent,
      markAttemptFailed,
      summary,
      unroutedCount,
      pruneBefore,
      sentByTopic
    }
  })
}) {}
