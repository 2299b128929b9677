/**
 * Etsy's driver of the shared overlap walk (OverlapWalk.ts; see EtsyCursor.ts
 * for why it neither skips nor repeats): pages of getShopReceipts keyed by
 * `min_last_modified`, with a tie that shifted under the walk read again.
 */
import { Effect, Either } from "effect"
import { type PullSettings, readOrderVersion, unreadableVersion, type WalkDriver } from "../OverlapWalk.js"
import { StoreUnavailableError } from "../StoreErrors.js"
import { afterPage, isoOfSeconds, pageQuery, readPage, startWalk, type WalkPosition } from "./EtsyCursor.js"
import { normalizeEtsyReceipt } from "./EtsyNormalize.js"
import type { EtsyReceiptReader, FetchedReceipt } from "./EtsyReceipts.js"

/** Re-reads of a tie allowed in a row before the walk gives up for now (receipts moving faster than we page). */
export const MAX_SHIFTS = 5

const identityOf = (receipt: FetchedReceipt) => ({ id: String(receipt.receiptId), updatedAt: isoOfSeconds(receipt.updatedSeconds) })

/** The next page of fresh receipts, reading a shifted tie again from its start. */
const listPage = (settings: PullSettings, reader: EtsyReceiptReader, start: WalkPosition) =>
  Effect.gen(function*() {
    let position = start
    for (let shifts = 0;; shifts++) {
      const results = yield* reader.page(pageQuery(position, settings.pageSize))
      const reading = readPage(position, results, settings.pageSize)
      if (reading._tag === "Read") return { position: reading.position, items: reading.fresh, facts: { done: reading.done } }
      if (shifts >= MAX_SHIFTS) {
        return yield* new StoreUnavailableError({
          storeKey: settings.storeKey,
          operation: "getShopReceipts",
          ambiguous: false,
          detail:
            `receipts kept changing while their page was read (${MAX_SHIFTS} times in a row); the walk resumes from its cursor next time`
        })
      }
      position = reading.position
    }
  })

export const etsyWalk = (
  settings: PullSettings,
  reader: EtsyReceiptReader
): WalkDriver<WalkPosition, FetchedReceipt, { readonly done: boolean }> => ({
  start: (cursor, since) => startWalk(cursor, since, settings.overlapSeconds),
  list: (position) => listPage(settings, reader, position),
  identify: identityOf,
  read: (receipt) => {
    const identity = identityOf(receipt)
    const result = Either.flatMap(receipt.receipt, (decoded) => normalizeEtsyReceipt(settings.storeKey, decoded, receipt.raw))
    // Keyed by the listed version, which is what the walk recognises in a re-read.
    return Effect.succeed(Either.match(result, {
      onLeft: (problem) => unreadableVersion(identity, receipt.raw, problem),
      onRight: (order) => ({ ...readOrderVersion(order), key: `${identity.id}@${identity.updatedAt}` })
    }))
  },
  advance: (position, { facts, handedOut }) => ({
    ...afterPage(position, handedOut, facts.done, settings.overlapSeconds),
    done: facts.done
  })
})
