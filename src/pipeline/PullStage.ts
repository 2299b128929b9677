import { Clock, Effect, Option, Stream } from "effect"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import { CursorsRepo } from "../repos/CursorsRepo.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { StoreConnectors } from "../stores/StoreConnector.js"
import { storeOrderVersions } from "./OrderChanges.js"

/** How far back the very first pull of a store reaches (older orders are assumed handled before podsync). */
export const FIRST_PULL_DAYS = 3

export interface PullResult {
  readonly storeKey: string
  readonly pages: number
  readonly inserted: number
  readonly changed: number
  readonly unreadable: number
}

/**
 * Pulls a store's new and changed orders into store_orders. Each page is
 * stored in one transaction and only then is the cursor saved, so a crash
 * repeats at most a page (the upsert makes that harmless).
 */
/**
 * Reads the orders a store's webhooks named, one by one (a read of one order
 * is far cheaper than a pull of the whole overlap window), and stores them as
 * a page. Answers false when an order could not be read or was not found:
 * the caller then pulls the whole store. The cursor is not moved; the next
 * pull meets these versions again as unchanged.
 */
export const pullNamedOrders = (storeKey: string, storeOrderIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const connector = (yield* StoreConnectors).get(storeKey)
    if (connector === undefined) return false
    const read = yield* Effect.forEach(storeOrderIds, (id) => connector.getOrder(id), { concurrency: 4 }).pipe(Effect.either)
    if (read._tag === "Left" || read.right.some(Option.isNone)) return false
    const page = read.right.flatMap((order) => Option.toArray(order))
    yield* storeOrderVersions(storeKey, page)
    return true
  }).pipe(Effect.annotateLogs({ store: storeKey }), Effect.withSpan("pipeline.pullNamed"))

/** Orders held because the store withheld their data, read again after a pull: at most this many a pull. */
export const WITHHELD_REREADS = 50

/** The held reason of an order whose data the store withheld (DraftPlan's HoldCode). */
const WITHHELD = "withheld_by_store"

const withheldOf = (order: NormalizedOrder) => JSON.stringify(order.withheld ?? [])

/**
 * Orders held because the store withheld their data (the app lacked a scope, or the buyer's
 * details) come back whole only once the seller gives the app that access, which does not change
 * the orders: nothing else would read them again. After each pull one is read; if the store still
 * withholds the same, nothing more is asked (one read a pull); if not, the others are read too, up
 * to WITHHELD_REREADS, and every version that comes back fuller is stored, which re-plans it.
 */
export const rereadWithheld = (storeKey: string) =>
  Effect.gen(function*() {
    const connector = (yield* StoreConnectors).get(storeKey)
    const repo = yield* OrdersRepo
    if (connector === undefined) return 0
    const [probe, ...rest] = yield* repo.heldFor(storeKey, WITHHELD, WITHHELD_REREADS)
    if (probe === undefined) return 0
    const first = yield* connector.getOrder(probe.storeOrderId)
    const unchanged = Option.match(first, {
      onNone: () => true,
      onSome: (order) => order.updatedAt === probe.order.updatedAt && withheldOf(order) === withheldOf(probe.order)
    })
    if (unchanged) return 0
    const others = yield* Effect.forEach(rest, (stored) => connector.getOrder(stored.storeOrderId), { concurrency: 4 })
    const read = [first, ...others].flatMap((order) => Option.toArray(order))
    const stored = yield* storeOrderVersions(storeKey, read)
    if (stored.changed > 0) {
      yield* Effect.logInfo(`${stored.changed} held order(s) read again: the store now gives what it withheld`)
    }
    return stored.changed
  }).pipe(Effect.withSpan("pipeline.rereadWithheld"))

export const pullStore = (storeKey: string) =>
  Effect.gen(function*() {
    const connector = (yield* StoreConnectors).get(storeKey)
    if (connector === undefined) return yield* Effect.dieMessage(`no connector for store ${storeKey}`)
    const cursors = yield* CursorsRepo
    const cursor = yield* cursors.get(storeKey)
    const since = new Date((yield* Clock.currentTimeMillis) - FIRST_PULL_DAYS * 86_400_000).toISOString()
    const totals = { storeKey, pages: 0, inserted: 0, changed: 0, unreadable: 0 }
    yield* connector.pull(Option.getOrNull(cursor), { since }).pipe(
      Stream.runForEach((page) =>
        Effect.gen(function*() {
          totals.pages++
          // A page that hands out nothing (the overlap re-read of versions already stored) stores nothing, and its
          // cursor need not be saved either: a crash before the next save repeats a few such pages, never skips one.
          if (page.orders.length === 0 && page.unreadable.length === 0 && !page.done) return
          const stored = yield* storeOrderVersions(storeKey, page.orders, cursors.save(storeKey, page.cursor))
          totals.inserted += stored.inserted
          totals.changed += stored.changed
          for (const bad of page.unreadable) {
            totals.unreadable++
            // Kept in the log with its raw payload: nothing the store sent is silently dropped.
            yield* Effect.logError("a store order could not be read; it is skipped until the store sends a readable version").pipe(
              Effect.annotateLogs({
                store: storeKey,
                storeOrderId: bad.storeOrderId ?? "unknown",
                problem: bad.problem,
                raw: JSON.stringify(bad.raw).slice(0, 4000)
              })
            )
          }
        })
      )
    )
    if (totals.inserted + totals.changed > 0) {
      yield* Effect.logInfo("pulled store orders").pipe(Effect.annotateLogs({ ...totals }))
    }
    // A failed re-read is said and left to the next pull: the pull itself stored what it read.
    yield* rereadWithheld(storeKey).pipe(
      Effect.catchAll((error) => Effect.logWarning(`reading again the orders the store withheld data of failed: ${error.message}`))
    )
    return totals satisfies PullResult
  }).pipe(Effect.annotateLogs({ store: storeKey }), Effect.withSpan("pipeline.pull"))
