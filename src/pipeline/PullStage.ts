import { Clock, Effect, Option, Stream } from "effect"
import { CursorsRepo } from "../repos/CursorsRepo.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { StoreConnectors } from "../stores/StoreConnector.js"
import { Db } from "../db/Db.js"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import { hasDraft } from "../domain/OrderState.js"
import * as ReferenceId from "../domain/ReferenceId.js"
import { patchDraftLines } from "./DraftEdits.js"
import { changeMatters, storeChangeAfterDraft } from "./MatchStage.js"

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
/** After the page is stored (no HTTP inside its transaction): react to orders that changed after their draft. */
export const reactToChangeAfterDraft = (id: number, previous: NormalizedOrder) =>
  Effect.gen(function*() {
    const orders = yield* OrdersRepo
    const stored = yield* orders.byId(id)
    const change = yield* storeChangeAfterDraft(stored, previous, "pull")
    if (change === "lines_changed" && stored.state === "drafted") {
      yield* patchDraftLines(stored, "pull").pipe(
        Effect.catchAll((error) => orders.note(id, "pull", `the lines changed in the store after the draft; updating the draft failed (${error._tag}): check the POD draft by hand`))
      )
    } else if (change === "address_changed" || change === "lines_changed") {
      const what = change === "address_changed" ? "shipping address" : "line items"
      yield* orders.note(id, "pull", `the ${what} changed in the store after the POD draft was made (${stored.state}): the POD service cannot change it through the API, fix it there by hand`, { change })
    }
  })

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
    const orders = yield* OrdersRepo
    const db = yield* Db
    const read = yield* Effect.forEach(storeOrderIds, (id) => connector.getOrder(id), { concurrency: 4 }).pipe(Effect.either)
    if (read._tag === "Left" || read.right.some(Option.isNone)) return false
    const page = read.right.flatMap((order) => Option.toArray(order))
    const changedAfterDraft: Array<[number, NormalizedOrder]> = []
    yield* db.transaction(Effect.gen(function*() {
      const outcomes = yield* orders.storePage(
        storeKey,
        page.map((order) => ({ order, referenceId: ReferenceId.keyOf(storeKey, order.storeOrderId) })),
        changeMatters
      )
      for (const result of outcomes.values()) {
        if (result.outcome === "changed" && hasDraft(result.state)) changedAfterDraft.push([result.id, result.previous])
      }
    }))
    for (const [id, previous] of changedAfterDraft) yield* reactToChangeAfterDraft(id, previous)
    return true
  }).pipe(Effect.annotateLogs({ store: storeKey }), Effect.withSpan("pipeline.pullNamed"))

export const pullStore = (storeKey: string) =>
  Effect.gen(function*() {
    const connector = (yield* StoreConnectors).get(storeKey)
    if (connector === undefined) return yield* Effect.dieMessage(`no connector for store ${storeKey}`)
    const orders = yield* OrdersRepo
    const cursors = yield* CursorsRepo
    const db = yield* Db
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
          const changedAfterDraft: Array<[number, NormalizedOrder]> = []
          yield* db.transaction(Effect.gen(function*() {
            const outcomes = yield* orders.storePage(
              storeKey,
              page.orders.map((order) => ({ order, referenceId: ReferenceId.keyOf(storeKey, order.storeOrderId) })),
              changeMatters
            )
            for (const result of outcomes.values()) {
              if (result.outcome === "inserted") totals.inserted++
              if (result.outcome === "changed") {
                totals.changed++
                if (hasDraft(result.state)) changedAfterDraft.push([result.id, result.previous])
              }
            }
            yield* cursors.save(storeKey, page.cursor)
          }))
          for (const [id, previous] of changedAfterDraft) yield* reactToChangeAfterDraft(id, previous)
          for (const bad of page.unreadable) {
            totals.unreadable++
            // Kept in the log with its raw payload: nothing the store sent is silently dropped.
            yield* Effect.logError("a store order could not be read; it is skipped until the store sends a readable version").pipe(
              Effect.annotateLogs({ store: storeKey, storeOrderId: bad.storeOrderId ?? "unknown", problem: bad.problem, raw: JSON.stringify(bad.raw).slice(0, 4000) })
            )
          }
        })
      )
    )
    if (totals.inserted + totals.changed > 0) {
      yield* Effect.logInfo("pulled store orders").pipe(Effect.annotateLogs({ ...totals }))
    }
    return totals satisfies PullResult
  }).pipe(Effect.annotateLogs({ store: storeKey }), Effect.withSpan("pipeline.pull"))
