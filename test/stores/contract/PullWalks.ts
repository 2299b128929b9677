/** Reading a connector's pull the way the pipeline does, and what the contract cases compare it with. */
import { expect } from "@effect/vitest"
import { Effect, Ref, Stream } from "effect"
import type { NormalizedOrder } from "../../../src/domain/NormalizedOrder.js"
import type { StoreCursor } from "../../../src/domain/StoreTypes.js"
import type { PulledPage, StoreConnector } from "../../../src/stores/StoreConnector.js"

/** Every order version handed out, in order. */
export const versionsOf = (pages: ReadonlyArray<PulledPage>, form: (version: string) => string = (v) => v) =>
  pages.flatMap((page) => page.orders.map((o) => `${o.storeOrderId}@${form(o.updatedAt)}`))

/** Pulls one walk to its end, letting `between` act after each page is "stored". */
export const pullAll = (
  connector: StoreConnector,
  cursor: StoreCursor | null,
  between: (page: PulledPage, index: number) => Effect.Effect<void> = () => Effect.void
) =>
  Effect.gen(function*() {
    const pages = yield* Ref.make<Array<PulledPage>>([])
    yield* connector.pull(cursor).pipe(
      Stream.runForEach((page) =>
        Effect.gen(function*() {
          const index = (yield* Ref.get(pages)).length
          yield* Ref.update(pages, (all) => [...all, page])
          yield* between(page, index)
        })
      )
    )
    return yield* Ref.get(pages)
  })

/** The newest version of each order handed out, by store order id. */
export const latestOrders = (orders: ReadonlyArray<NormalizedOrder>) => {
  const latest = new Map<string, NormalizedOrder>()
  for (const o of orders) {
    const seen = latest.get(o.storeOrderId)
    if (seen === undefined || Date.parse(o.updatedAt) > Date.parse(seen.updatedAt)) latest.set(o.storeOrderId, o)
  }
  return latest
}

/** The newest `updatedAt` handed out for each order, written as `form` writes it (as the connector does, by default). */
export const latestById = (orders: ReadonlyArray<NormalizedOrder>, form: (iso: string) => string = (iso) => iso) =>
  new Map([...latestOrders(orders)].map(([id, o]) => [id, form(o.updatedAt)]))

/** No order version was handed out twice over `pages`; answers the newest version of each order handed out, as `latestById`. */
export const handedOutOnce = (pages: ReadonlyArray<PulledPage>, form?: (iso: string) => string) => {
  const versions = versionsOf(pages)
  expect(new Set(versions).size).toBe(versions.length)
  return latestById(pages.flatMap((p) => p.orders), form)
}

/** A walk of five pages or more, each but the last saying there is more; the last ends the walk. Answers the last page. */
export const pagedToTheEnd = (pages: ReadonlyArray<PulledPage>) => {
  expect(pages.length).toBeGreaterThanOrEqual(5)
  expect(pages.slice(0, -1).every((p) => !p.done && p.cursor.continuation !== undefined)).toBe(true)
  const last = pages[pages.length - 1]!
  expect(last.done).toBe(true)
  expect(last.cursor.continuation).toBeUndefined()
  return last
}
