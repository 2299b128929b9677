import { Clock, Effect } from "effect"
import { sql } from "kysely"
import { Db } from "../db/Db.js"

/**
 * Every webhook we accepted, in both directions (store and POD), unique on
 * (source, delivery id): a retry or a duplicate of a delivery is recognised
 * by its key and not acted on twice (ARCHITECTURE.md, "Idempotency").
 * `source` is the store key, or "pod"; the delivery id is the connector's
 * dedup key, or the POD nonce.
 */
export interface InboxEntry {
  readonly id: number
  readonly source: string
  readonly deliveryId: string
  readonly topic: string | null
  readonly receivedAt: Date
  readonly payload: unknown
  readonly processedAt: Date | null
}

export interface NewDelivery {
  readonly source: string
  readonly deliveryId: string
  readonly topic?: string | undefined
  /** The parsed body; anything JSON can hold. */
  readonly payload: unknown
}

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/**
 * How long a delivery key is remembered: longer than any sender retries (POD
 * timestamps go stale after 5 minutes, Shopify retries over 4 hours, Etsy over
 * about a day and a half).
 */
export const INBOX_RETENTION_DAYS = 7

/**
 * PostgreSQL's jsonb refuses the NUL character; a signed body may carry one.
 * It becomes U+FFFD so the delivery is still kept. `undefined` (a body that
 * was not JSON) is stored as null.
 */
export const storableJson = (value: unknown): unknown => {
  if (value === undefined || value === null) return null
  if (typeof value === "string") return value.replaceAll("\u0000", "\uFFFD")
  if (Array.isArray(value)) return value.map(storableJson)
  if (typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key.replaceAll("\u0000", "\uFFFD"), storableJson(v)]))
  }
  return value
}

export class WebhookInboxRepo extends Effect.Service<WebhookInboxRepo>()("podsync/WebhookInboxRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    /** Stores the delivery unless its key is already there: "new" the first time, "duplicate" after. */
    const record = (delivery: NewDelivery) =>
      Effect.gen(function*() {
        const at = yield* now
        const inserted = yield* db.use((k) =>
          k.insertInto("webhook_inbox").values({
            source: delivery.source,
            delivery_id: delivery.deliveryId,
            topic: delivery.topic ?? null,
            received_at: at,
            // Sent as text and cast, so any JSON value (a bare string, an array) is stored alike on pg and PGlite.
            payload: sql<object>`(${JSON.stringify(storableJson(delivery.payload))}::text)::jsonb`
          }).onConflict((oc) => oc.columns(["source", "delivery_id"]).doNothing()).returning("id").executeTakeFirst()
        )
        return inserted === undefined ? ("duplicate" as const) : ("new" as const)
      })

    /** Notes that the pipeline was told about the delivery. */
    const markProcessed = (source: string, deliveryId: string) =>
      Effect.gen(function*() {
        const at = yield* now
        yield* db.use((k) =>
          k.updateTable("webhook_inbox").set({ processed_at: at })
            .where("source", "=", source).where("delivery_id", "=", deliveryId).execute()
        )
      })

    /** A source's deliveries, oldest first. */
    const entries = (source: string) =>
      db.use((k) => k.selectFrom("webhook_inbox").selectAll().where("source", "=", source).orderBy("id").execute()).pipe(
        Effect.map((rows): ReadonlyArray<InboxEntry> =>
          rows.map((r) => ({
            id: Number(r.id),
            source: r.source,
            deliveryId: r.delivery_id,
            topic: r.topic,
            receivedAt: r.received_at,
            payload: r.payload,
            processedAt: r.processed_at
          }))
        )
      )

    /** How many deliveries each source has (all sources when none is named). */
    const countBySource = db.use((k) =>
      k.selectFrom("webhook_inbox").select(["source", sql<number>`count(*)::int`.as("n")]).groupBy("source").execute()
    ).pipe(Effect.map((rows) => Object.fromEntries(rows.map((r) => [r.source, Number(r.n)])) as Record<string, number>))

    /**
     * Forgets deliveries received before `before`. A key only has to be
     * remembered while its sender may still retry (POD timestamps go stale
     * after 5 minutes, Shopify retries for 4 hours), so days are plenty.
     */
    const pruneReceivedBefore = (before: Date) =>
      db.use((k) => k.deleteFrom("webhook_inbox").where("received_at", "<", before).executeTakeFirst()).pipe(
        Effect.map((result) => Number(result.numDeletedRows))
      )

    /** Forgets deliveries older than INBOX_RETENTION_DAYS (housekeeping on the catalog schedule). */
    const pruneExpired = Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => pruneReceivedBefore(new Date(now - INBOX_RETENTION_DAYS * 86_400_000))
    )

    return { record, markProcessed, entries, countBySource, pruneReceivedBefore, pruneExpired }
  })
}) {}
