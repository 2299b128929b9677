/**
 * The incremental pull as a stream of pages (see EtsyCursor.ts for why it
 * neither skips nor repeats). A page is fetched only when the consumer asks
 * for it, so the consumer stores a page and persists `page.cursor` before the
 * next request leaves.
 */
import { Effect, Either, Option, Stream } from "effect"
import type { NormalizedOrder } from "../../domain/NormalizedOrder.js"
import type { StoreCursor } from "../../domain/StoreTypes.js"
import type { PulledPage, PullOptions, UnreadableOrder } from "../StoreConnector.js"
import { type StoreError, StoreUnavailableError } from "../StoreErrors.js"
import { afterPage, isoOfSeconds, pageQuery, readPage, startWalk, type WalkPosition } from "./EtsyCursor.js"
import { normalizeEtsyReceipt } from "./EtsyNormalize.js"
import type { EtsyReceiptReader, FetchedReceipt } from "./EtsyReceipts.js"

export interface PullSettings {
  readonly storeKey: string
  readonly pageSize: number
  readonly overlapSeconds: number
}

/** Re-reads of a tie allowed in a row before the walk gives up for now (receipts moving faster than we page). */
export const MAX_SHIFTS = 5

const versionKey = (receipt: FetchedReceipt): string => `${receipt.receiptId}@${isoOfSeconds(receipt.updatedSeconds)}`

const normalized = (storeKey: string, receipt: FetchedReceipt): { order?: NormalizedOrder; unreadable?: UnreadableOrder } => {
  const storeOrderId = String(receipt.receiptId)
  const result = Either.flatMap(receipt.receipt, (decoded) => normalizeEtsyReceipt(storeKey, decoded, receipt.raw))
  return Either.match(result, {
    onLeft: (problem) => ({ unreadable: { storeOrderId, raw: receipt.raw, problem } }),
    onRight: (order) => ({ order })
  })
}

const fetchPage = (
  settings: PullSettings,
  reader: EtsyReceiptReader,
  start: WalkPosition
): Effect.Effect<{ page: PulledPage; next: WalkPosition }, StoreError> =>
  Effect.gen(function* () {
    let position = start
    for (let shifts = 0; ; shifts++) {
      const results = yield* reader.page(pageQuery(position, settings.pageSize))
      const reading = readPage(position, results, settings.pageSize)
      if (reading._tag === "Shifted") {
        if (shifts >= MAX_SHIFTS) {
          return yield* new StoreUnavailableError({
            storeKey: settings.storeKey,
            operation: "getShopReceipts",
            ambiguous: false,
            detail: `receipts kept changing while their page was read (${MAX_SHIFTS} times in a row); the walk resumes from its cursor next time`
          })
        }
        position = reading.position
        continue
      }
      const handedOut = new Set<string>()
      const orders: Array<NormalizedOrder> = []
      const unreadable: Array<UnreadableOrder> = []
      for (const receipt of reading.fresh) {
        const key = versionKey(receipt)
        if (position.seen.has(key) || handedOut.has(key)) continue
        handedOut.add(key)
        const { order, unreadable: problem } = normalized(settings.storeKey, receipt)
        if (order !== undefined) orders.push(order)
        if (problem !== undefined) unreadable.push(problem)
      }
      const after = afterPage(reading.position, [...handedOut], reading.done, settings.overlapSeconds)
      return { page: { orders, unreadable, cursor: after.cursor, done: reading.done }, next: after.position }
    }
  })

export const pullEtsyReceipts = (
  settings: PullSettings,
  reader: EtsyReceiptReader,
  cursor: StoreCursor | null,
  options?: PullOptions
): Stream.Stream<PulledPage, StoreError> =>
  Stream.unfoldEffect(
    Option.some(startWalk(cursor, options?.since, settings.overlapSeconds)),
    (state: Option.Option<WalkPosition>) =>
      Option.match(state, {
        onNone: () => Effect.succeedNone,
        onSome: (position) =>
          Effect.map(fetchPage(settings, reader, position), ({ page, next }) =>
            Option.some([page, page.done ? Option.none<WalkPosition>() : Option.some(next)] as const)
          )
      })
  )
