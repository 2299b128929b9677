import { Clock, Data, Effect } from "effect"
import { sql } from "kysely"
import { makeAnsweringBatcher, makeStatementBatcher } from "../budget/StatementBatcher.js"
import { Db, DbError } from "../db/Db.js"

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

/** Whether a delivery's key was new, once its row is committed. */
export type StoredOutcome = "new" | "duplicate"

export interface RecordOptions {
  readonly maxWaiting?: number
  readonly onStored?: (outcome: StoredOutcome) => void
}

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/**
 * How long a delivery key is remembered unless `webhooks.retentionDays` says
 * otherwise: longer than any sender retries (POD timestamps go stale after 5
 * minutes, Shopify retries over 4 hours, Etsy over about a day and a half).
 */
export const INBOX_RETENTION_DAYS = 7

/** Deliveries in one insert; more wait for the next statement. */
const MAX_DELIVERIES_PER_STATEMENT = 500

/**
 * How long "processed" marks gather before their update: nobody waits on them, and at a moderate
 * flow an update per insert would double the statements (PGlite runs them all on one connection).
 */
const PROCESSED_MARKS_GATHER_MS = 200

/** Rows one pruning statement deletes: small enough that a delivery waiting behind it is not held up. */
export const PRUNE_BATCH_ROWS = 1000

/**
 * More deliveries wait for a commit than the inbox takes: the receiver answers 503 with
 * Retry-After instead of queueing without bound.
 */
export class InboxBusyError extends Data.TaggedError("InboxBusyError")<{
  readonly waiting: number
  readonly limit: number
}> {
  override get message() {
    return `${this.waiting} webhook deliveries are waiting to be stored (at most ${this.limit}); the sender should retry`
  }
}

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

    // Group commit: the deliveries that arrive together share one insert, so one commit (an
    // insert outside a transaction is its own). Each submitter learns whether its key was new
    // once that commit is done: an answer given after it survives a crash. Two deliveries of one
    // key in the same statement: the first is the one stored, the other is its duplicate.
    const inserts = makeAnsweringBatcher<NewDelivery & { readonly at: Date }, "new" | "duplicate">(async (deliveries) => {
      const keyOf = (d: NewDelivery) => JSON.stringify([d.source, d.deliveryId])
      const firsts = new Map<string, NewDelivery & { readonly at: Date }>()
      for (const delivery of deliveries) if (!firsts.has(keyOf(delivery))) firsts.set(keyOf(delivery), delivery)
      const rows = await db.kysely.insertInto("webhook_inbox").values([...firsts.values()].map((delivery) => ({
        source: delivery.source,
        delivery_id: delivery.deliveryId,
        topic: delivery.topic ?? null,
        received_at: delivery.at,
        // Sent as text and cast, so any JSON value (a bare string, an array) is stored alike on pg and PGlite.
        payload: sql<object>`(${JSON.stringify(storableJson(delivery.payload))}::text)::jsonb`
      }))).onConflict((oc) => oc.columns(["source", "delivery_id"]).doNothing()).returning(["source", "delivery_id"]).execute()
      const stored = new Set(rows.map((row) => keyOf({ source: row.source, deliveryId: row.delivery_id, payload: null })))
      return deliveries.map((delivery) =>
        firsts.get(keyOf(delivery)) === delivery && stored.has(keyOf(delivery)) ? "new" as const : "duplicate" as const
      )
    }, { maxItems: MAX_DELIVERIES_PER_STATEMENT })

    // One update per source, its delivery ids in an IN list: an index scan of the inbox's unique key.
    // A list of (source, delivery id) pairs instead kept PGlite's one connection busy for minutes
    // (the daemon stopped answering) once marks gathered by the hundred.
    const processed = makeStatementBatcher<{ readonly source: string; readonly deliveryId: string; readonly at: Date }>(
      async (marks) => {
        const at = new Date(Math.max(...marks.map((mark) => mark.at.getTime())))
        for (const source of new Set(marks.map((mark) => mark.source))) {
          await db.kysely.updateTable("webhook_inbox").set({ processed_at: at })
            .where("source", "=", source)
            .where("delivery_id", "in", marks.filter((mark) => mark.source === source).map((mark) => mark.deliveryId))
            .execute()
        }
      },
      { maxItems: MAX_DELIVERIES_PER_STATEMENT, gatherMs: PROCESSED_MARKS_GATHER_MS }
    )

    /** The statement's promise, rejected with a DbError naming `operation` when it fails. */
    const failingAs = <A>(operation: string, promise: Promise<A>): Promise<A> =>
      promise.catch((cause: unknown) => Promise.reject(new DbError({ operation, cause })))

    /** Such a promise as an effect. */
    const awaited = <A>(promise: () => Promise<A>) => Effect.tryPromise({ try: promise, catch: (error) => error as DbError })

    /**
     * Stores the delivery unless its key is already there: "new" the first time, "duplicate"
     * after; either answer comes once the row is committed. Not part of a caller's transaction:
     * it shares a statement with the deliveries that arrived with it. With `maxWaiting`, a
     * delivery that finds that many already waiting is refused (InboxBusyError) and not stored.
     * `onStored` is called on the commit, whether or not anyone still waits for the answer.
     * For a caller outside Effect (the webhook receiver, on node's request listener): the
     * refusal, or the commit's promise (rejected with a DbError when the statement fails).
     */
    const submit = (delivery: NewDelivery, at: Date, options: RecordOptions = {}): InboxBusyError | Promise<StoredOutcome> => {
      const waiting = inserts.waiting()
      if (options.maxWaiting !== undefined && waiting >= options.maxWaiting) {
        return new InboxBusyError({ waiting, limit: options.maxWaiting })
      }
      const stored = inserts.submit({ ...delivery, at })
      if (options.onStored !== undefined) stored.then(options.onStored, () => undefined)
      return failingAs("insert", stored)
    }

    /** `submit` as an effect. */
    const record = (delivery: NewDelivery, options: RecordOptions = {}) =>
      Effect.flatMap(now, (at): Effect.Effect<StoredOutcome, InboxBusyError | DbError> => {
        const stored = submit(delivery, at, options)
        return stored instanceof InboxBusyError ? Effect.fail(stored) : awaited(() => stored)
      })

    /** Deliveries submitted and not yet committed. */
    const waiting = Effect.sync(() => inserts.waiting())

    /**
     * Notes that the pipeline was told about the delivery (gathered with others into one update);
     * for a caller outside Effect, which need not wait for it: the receiver does not, so that a
     * burst does not hold a fiber per delivery for the update's gathering time.
     */
    const submitProcessed = (source: string, deliveryId: string, at: Date): Promise<void> =>
      failingAs("update", processed.submit({ source, deliveryId, at }))

    /** `submitProcessed` as an effect, done when the update is. */
    const markProcessed = (source: string, deliveryId: string) =>
      Effect.flatMap(now, (at) => awaited(() => submitProcessed(source, deliveryId, at)))

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

    /** One batch of the oldest deliveries received before `before`: how many were deleted. */
    const pruneBatch = (before: Date, rows: number) =>
      db.use((k) =>
        k.deleteFrom("webhook_inbox").where(
          "id",
          "in",
          (eb) => eb.selectFrom("webhook_inbox").select("id").where("received_at", "<", before).orderBy("received_at").limit(rows)
        ).executeTakeFirst()
      ).pipe(Effect.map((result) => Number(result.numDeletedRows)))

    /**
     * Forgets deliveries received before `before`, `batchRows` at a time: each batch is a
     * statement of its own, so deliveries arriving meanwhile are stored between batches instead
     * of waiting for the whole prune (PGlite has one connection). A key only has to be remembered
     * while its sender may still retry, so days are plenty. Answers how many were deleted.
     */
    const pruneReceivedBefore = (before: Date, batchRows: number = PRUNE_BATCH_ROWS) =>
      Effect.iterate({ deleted: 0, last: batchRows }, {
        while: ({ last }) => last >= batchRows,
        body: ({ deleted }) =>
          Effect.map(Effect.zipLeft(pruneBatch(before, batchRows), Effect.yieldNow()), (n) => ({ deleted: deleted + n, last: n }))
      }).pipe(Effect.map(({ deleted }) => deleted))

    /** Forgets deliveries older than `retentionDays` (housekeeping on the catalog schedule). */
    const pruneExpired = (retentionDays: number = INBOX_RETENTION_DAYS, batchRows: number = PRUNE_BATCH_ROWS) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => pruneReceivedBefore(new Date(now - retentionDays * 86_400_000), batchRows)
      )

    return { submit, record, waiting, submitProcessed, markProcessed, entries, countBySource, pruneReceivedBefore, pruneExpired }
  })
}) {}
