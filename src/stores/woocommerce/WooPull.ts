/**
 * The incremental pull as a stream of pages (see WooCursor.ts for why it neither skips nor repeats).
 * A page is fetched only when the consumer asks for it, so the consumer stores a page and persists
 * `page.cursor` before the next request leaves. The walk's upper bound is frozen from the Clock when
 * a new walk starts.
 */
import { Clock, Effect, Either, Option, Stream } from "effect"
import { type NormalizedOrder, orderVersionKey } from "../../domain/NormalizedOrder.js"
import type { StoreCursor } from "../../domain/StoreTypes.js"
import type { PulledPage, PullOptions, UnreadableOrder } from "../StoreConnector.js"
import type { StoreError } from "../StoreErrors.js"
import { afterPage, pageQuery, startWalk, type WalkPosition } from "./WooCursor.js"
import { gmtTimestamp, normalizeWooOrder } from "./WooNormalize.js"
import type { WooOrderReader } from "./WooOrders.js"

export interface PullSettings {
  readonly storeKey: string
  readonly pageSize: number
  readonly overlapSeconds: number
}

interface ReadRow {
  readonly updatedAt: string | undefined
  readonly key: string | undefined
  readonly order: NormalizedOrder | undefined
  readonly unreadable: UnreadableOrder | undefined
}

/** Best-effort identity of a row we could not read, so it is reported once per version. */
const identityOf = (row: unknown): { id: string | undefined; updatedAt: string | undefined } => {
  if (typeof row !== "object" || row === null) return { id: undefined, updatedAt: undefined }
  const record = row as Record<string, unknown>
  const id = record["id"]
  const modified = record["date_modified_gmt"]
  return {
    id: typeof id === "number" || typeof id === "string" ? String(id) : undefined,
    updatedAt: typeof modified === "string" ? gmtTimestamp(modified) : undefined
  }
}

const readRow = (settings: PullSettings, reader: WooOrderReader, row: unknown): Effect.Effect<ReadRow, StoreError> =>
  Effect.map(reader.complete(row), (result) => {
    const { id, updatedAt } = identityOf(row)
    const key = id !== undefined && updatedAt !== undefined ? `${id}@${updatedAt}` : undefined
    const unreadable = (problem: string, raw: unknown): ReadRow => ({ updatedAt, key, order: undefined, unreadable: { storeOrderId: id, raw, problem } })
    if (Either.isLeft(result)) return unreadable(result.left, row)
    return Either.match(normalizeWooOrder(settings.storeKey, result.right.order, result.right.raw), {
      onLeft: (problem) => unreadable(problem, result.right.raw),
      onRight: (order) => ({ updatedAt: order.updatedAt, key: orderVersionKey(order), order, unreadable: undefined })
    })
  })

const fetchPage = (
  settings: PullSettings,
  reader: WooOrderReader,
  position: WalkPosition
): Effect.Effect<{ page: PulledPage; next: WalkPosition }, StoreError> =>
  Effect.gen(function* () {
    const listed = yield* reader.page(pageQuery(position), settings.pageSize)
    // A version handed out before (the overlap re-read) is known by its id and date alone: it is neither
    // decoded nor completed (refund details) again.
    const rows = yield* Effect.forEach(listed.rows, (row) => {
      const { id, updatedAt } = identityOf(row)
      return id !== undefined && updatedAt !== undefined && position.seen.has(`${id}@${updatedAt}`)
        ? Effect.succeed<ReadRow>({ updatedAt, key: `${id}@${updatedAt}`, order: undefined, unreadable: undefined })
        : readRow(settings, reader, row)
    })
    const handedOut = new Set<string>()
    const orders: Array<NormalizedOrder> = []
    const unreadable: Array<UnreadableOrder> = []
    for (const row of rows) {
      if (row.key !== undefined && (position.seen.has(row.key) || handedOut.has(row.key))) continue
      if (row.key !== undefined) handedOut.add(row.key)
      if (row.order !== undefined) orders.push(row.order)
      if (row.unreadable !== undefined) unreadable.push(row.unreadable)
    }
    const after = afterPage(
      position,
      {
        modified: rows.flatMap((row) => (row.updatedAt === undefined ? [] : [row.updatedAt])),
        handedOut: [...handedOut],
        rowCount: listed.rows.length,
        pageSize: settings.pageSize,
        total: listed.total,
        totalPages: listed.totalPages
      },
      settings.overlapSeconds
    )
    return { page: { orders, unreadable, cursor: after.cursor, done: after.done }, next: after.position }
  })

export const pullWooOrders = (
  settings: PullSettings,
  reader: WooOrderReader,
  cursor: StoreCursor | null,
  options?: PullOptions
): Stream.Stream<PulledPage, StoreError> =>
  Stream.unwrap(
    Effect.map(Clock.currentTimeMillis, (now) =>
      Stream.unfoldEffect(
        Option.some(startWalk(cursor, options?.since, settings.overlapSeconds, now)),
        (state: Option.Option<WalkPosition>) =>
          Option.match(state, {
            onNone: () => Effect.succeedNone,
            onSome: (position) =>
              Effect.map(fetchPage(settings, reader, position), ({ page, next }) =>
                Option.some([page, page.done ? Option.none<WalkPosition>() : Option.some(next)] as const)
              )
          })
      )
    )
  )
