import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { admin, connectTo, type SimReceipt, startSimulator } from "./harness.js"
import type { RunningEtsySimulator } from "../../../src/simulator/etsy/index.js"
import { answersNoneForAnUnknownOrder, type PullDriver, resumesAfterACrash, startsAtSince } from "../contract/PullContract.js"
import { handedOutOnce, latestById, pagedToTheEnd, pullAll, versionsOf } from "../contract/PullWalks.js"

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.000Z$/, "Z")

/** Final `updatedAt` of every receipt the filter selects, by receipt id. */
const simVersions = (sim: { url: string }, keep: (r: SimReceipt) => boolean = () => true) =>
  Effect.map(
    admin<{ receipts: Array<SimReceipt & { is_paid: boolean }> }>(sim, "GET", "receipts"),
    ({ receipts }) => new Map(receipts.filter(keep).map((r) => [String(r.receipt_id), iso(r.updated_timestamp)]))
  )

const driver: PullDriver<RunningEtsySimulator> = {
  test: it.scopedLive,
  start: startSimulator,
  resource: "receipts",
  noteField: "message_from_buyer",
  connect: connectTo,
  beforeWalk: () => Effect.void,
  beforeEdit: () => Effect.void,
  walksToCatchUp: 1,
  simVersions: (sim) => simVersions(sim)
}

describe("Etsy incremental pull", () => {
  startsAtSince(driver, ({ nowSeconds }) => iso(nowSeconds))
  answersNoneForAnUnknownOrder(driver)
  resumesAfterACrash(driver)

  it.scopedLive("walks many pages while receipts are edited mid-walk, losing and duplicating nothing", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      // 45 receipts created in the same second: one long tie of update_timestamp, paged by offset.
      const { ids } = yield* admin<{ ids: Array<number> }>(sim, "POST", "receipts/bulk", { count: 45 })
      const connector = yield* connectTo(sim, { pageSize: 10, receiptFilter: "all" })

      const pages = yield* pullAll(connector, null, (page, index) =>
        Effect.gen(function*() {
          if (index === 0) {
            // A receipt already handed out changes: it moves to the end and shifts the rest back by one.
            yield* admin(sim, "PATCH", `receipts/${page.orders[0]!.storeOrderId}`, { message_from_buyer: "edited after it was pulled" })
            // A receipt not reached yet changes: it must come once, as its new version.
            yield* admin(sim, "PATCH", `receipts/${ids[30]}`, { message_from_buyer: "edited before it was reached" })
          }
          if (index === 1) {
            yield* admin(sim, "POST", `receipts/${ids[40]}/cancel`, {})
            yield* admin(sim, "POST", "receipts", {})
            yield* admin(sim, "POST", `receipts/${ids[12]}/refund`, { amount_cents: 500 })
            yield* admin(sim, "POST", `receipts/${ids[3]}/ship`, { tracking_code: "9400111", carrier_name: "usps" })
          }
        }))
      const final = yield* simVersions(sim)
      expect(final.size).toBe(46)
      expect(handedOutOnce(pages)).toEqual(final)
      const last = pagedToTheEnd(pages)
      expect(last.cursor.watermark).toBe([...final.values()].sort().pop())
      expect(pages.flatMap((p) => p.orders).filter((o) => o.storeOrderId === String(ids[40])).pop()).toMatchObject({
        cancelled: true,
        financialStatus: "refunded"
      })

      // The next pull re-reads the overlap but hands out nothing already handed out.
      const again = yield* pullAll(connector, last.cursor)
      expect(versionsOf(again)).toEqual([])

      // Then one change: exactly that version comes.
      const edited = yield* admin<SimReceipt>(sim, "PATCH", `receipts/${ids[5]}`, { message_from_buyer: "one more change" })
      const third = yield* pullAll(connector, again[again.length - 1]!.cursor)
      expect(versionsOf(third)).toEqual([`${ids[5]}@${iso(edited.updated_timestamp)}`])
    }))

  it.scopedLive("keeps up with a shop that edits receipts after every page it answers", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator({ seed: 7 })
      yield* admin(sim, "POST", "receipts/bulk", { count: 30 })
      yield* admin(sim, "POST", "clock/advance", { seconds: 5 })
      yield* admin(sim, "POST", "receipts/bulk", { count: 30 })
      yield* admin(sim, "POST", "churn", { perListQuery: 2 })
      const connector = yield* connectTo(sim, { pageSize: 10 })
      const pages = yield* pullAll(connector, null)
      yield* admin(sim, "POST", "churn", { perListQuery: 0 })
      const pulled = handedOutOnce(pages)
      // Every receipt, and every version that existed when the walk last read past it, came.
      const final = yield* simVersions(sim)
      expect([...final.keys()].every((id) => pulled.has(id))).toBe(true)
      // Versions changed by the last answered query are left for the next walk, which finds them.
      const next = yield* pullAll(connector, pages[pages.length - 1]!.cursor)
      expect(latestById([...pages, ...next].flatMap((p) => p.orders))).toEqual(final)
    }))

  it.scopedLive("asks only for paid, unshipped receipts by default, and still sees a paid receipt cancelled", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const paid = yield* admin<SimReceipt>(sim, "POST", "receipts", {})
      const unpaid = yield* admin<SimReceipt>(sim, "POST", "receipts", { status: "payment processing" })
      const shipped = yield* admin<SimReceipt>(sim, "POST", "receipts", {})
      yield* admin(sim, "POST", `receipts/${shipped.receipt_id}/ship`, { tracking_code: "1Z999", carrier_name: "ups" })
      const connector = yield* connectTo(sim)
      const first = yield* pullAll(connector, null)
      expect(first.flatMap((p) => p.orders.map((o) => o.storeOrderId))).toEqual([String(paid.receipt_id)])

      yield* admin(sim, "POST", `receipts/${paid.receipt_id}/cancel`, {})
      yield* admin(sim, "POST", `receipts/${unpaid.receipt_id}/pay`, {})
      const second = (yield* pullAll(connector, first[first.length - 1]!.cursor)).flatMap((p) => p.orders)
      expect(second.map((o) => [o.storeOrderId, o.cancelled, o.financialStatus])).toEqual([
        [String(paid.receipt_id), true, "refunded"],
        [String(unpaid.receipt_id), false, "paid"]
      ])
    }))

  it.scopedLive("still progresses through a tie with the smallest page (a page of 1 is raised to 2)", () =>
    Effect.gen(function*() {
      const sim = yield* startSimulator()
      const { ids } = yield* admin<{ ids: Array<number> }>(sim, "POST", "receipts/bulk", { count: 7 })
      const connector = yield* connectTo(sim, { pageSize: 1 })
      const pages = yield* pullAll(connector, null)
      expect(pages.flatMap((p) => p.orders.map((o) => Number(o.storeOrderId)))).toEqual(ids)
    }))
})
