import { describe, expect, it } from "@effect/vitest"
import { Effect, LogLevel } from "effect"
import { Db } from "../../src/db/Db.js"
import { pgliteDatabase, postgresDatabase, type TestDatabase } from "../support/database.js"
import { sharedDatabase } from "../support/sharedDatabase.js"
import { daemonInProcess, metric, scopedStack, until } from "../support/daemonInProcess.js"
import { createOrders, getJson, podHeaders, post, type Stack, statusOf } from "../support/pipeline.js"

/**
 * Issue 32, item 1: a new, empty database (a trial database left behind, a lost volume) against the
 * same store and POD account. Orders another database drafted, checked out and partly shipped and
 * fulfilled are taken up: their drafts adopted, their POD orders followed, their packages found in
 * the store; not one second draft at the POD service, not one second fulfilment in the store.
 */

/** Each run's databases, made afresh: PGlite always, PostgreSQL too when TEST_DATABASE_URL is set. */
const kinds: ReadonlyArray<{ readonly name: string; readonly fresh: () => TestDatabase }> = [
  { name: "pglite", fresh: pgliteDatabase },
  ...(process.env.TEST_DATABASE_URL ? [{ name: "postgres", fresh: () => postgresDatabase(process.env.TEST_DATABASE_URL!) }] : [])
]

interface ListedDraft {
  readonly order_id: string
  readonly reference_id: string
  readonly status: string
}

/** Every draft at the POD simulator, through the v3 API. */
const draftsAt = async (stack: Stack): Promise<ReadonlyArray<ListedDraft>> => {
  const out: Array<ListedDraft> = []
  for (let page = 1;; page++) {
    const response = await fetch(`${stack.pod.url}/api/v3/orders/draft?paging.limit=100&paging.page=${page}`, { headers: podHeaders })
    const body = (await response.json()) as { data?: Array<ListedDraft>; paging: { total_page: number } }
    out.push(...(body.data ?? []))
    if (page >= body.paging.total_page) break
  }
  return out
}

const podStats = (stack: Stack) => getJson(`${stack.pod.url}/__sim/stats`)
const shopStats = (stack: Stack) => getJson(`${stack.shopify.url}/__sim/stats`)

/** The POD requests the daemon made of one operation (all lanes, stores and statuses). */
const requestsOf = async (port: number, operation: string) => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  return text.split("\n").filter((l) => l.startsWith("podsync_pod_requests_total{") && l.includes(`operation="${operation}"`))
    .reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0)
}

/** What the order of `referenceId` went through, in its story's words. */
const storyOf = (referenceId: string) =>
  Effect.flatMap(
    Db,
    (db) =>
      db.use((k) =>
        k.selectFrom("order_events").innerJoin("store_orders", "store_orders.id", "order_events.order_id")
          .select(["order_events.reason", "order_events.to_state"]).where("store_orders.reference_id", "=", referenceId)
          .orderBy("order_events.id").execute()
      )
  )

describe.each(kinds)("a new empty database ($name)", (kind) => {
  // Each test runs a daemon on one database, then another on a second, empty one. Both are built once for
  // the block and emptied as a daemon starts on them: empty tables and sequences back at their start are
  // all podsync can tell of a new database (the second daemon finds nothing of the first's, as before).
  const [first, second] = [sharedDatabase(kind.fresh()), sharedDatabase(kind.fresh())]
  it.scopedLive(
    "takes up 50 orders drafted, checked out and shipped through another: 0 second drafts, 0 second fulfilments, and pushes what shipped since",
    () =>
      Effect.gen(function*() {
        const stack = yield* scopedStack()
        const ids = yield* Effect.promise(() => createOrders(stack, 50))
        const references = ids.map((id) => `demo-shopify:${id}`)

        // The first database drafts all 50; 20 are checked out at the POD service, 10 of those shipped and fulfilled in the store.
        const stillToShip: Array<string> = []
        yield* Effect.scoped(Effect.gen(function*() {
          const { port } = yield* daemonInProcess(stack, first.layer, { logLevel: LogLevel.Error })
          yield* until("all 50 drafted", async () => Object.keys((await podStats(stack)).draftsByReferenceId).length === 50, 90_000)
          const drafts = yield* Effect.promise(() => draftsAt(stack))
          const checkedOut: Array<string> = []
          for (const draft of drafts.slice(0, 20)) {
            checkedOut.push(
              (yield* Effect.promise(() => post(`${stack.pod.url}/__sim/drafts/${draft.order_id}/checkout`, { paid: true }))).order_id
            )
          }
          for (const order of checkedOut.slice(0, 10)) yield* Effect.promise(() => post(`${stack.pod.url}/__sim/orders/${order}/ship`, {}))
          stillToShip.push(...checkedOut.slice(10, 15))
          yield* until("10 fulfilled", async () => (await statusOf(port)).fulfilled === 10, 90_000).pipe(
            Effect.tapDefect(() => Effect.promise(async () => console.error("first status", JSON.stringify(await statusOf(port)))))
          )
          expect(Object.keys((yield* Effect.promise(() => shopStats(stack))).fulfillmentsByOrder)).toHaveLength(10)
        }))

        // The daemon stopped; 5 more ship meanwhile (the store does not show them yet). Then a new, empty
        // database against the same store and POD account.
        for (const order of stillToShip) yield* Effect.promise(() => post(`${stack.pod.url}/__sim/orders/${order}/ship`, {}))
        const { port, db } = yield* daemonInProcess(stack, second.layer, { logLevel: LogLevel.Error })
        let last = {}
        yield* until(
          "the 50 orders taken up",
          async () => {
            const s = await statusOf(port)
            last = s
            return s.not_pod === 10 && s.checked_out === 5 && s.fulfilled === 5 && s.drafted === 30
          },
          90_000
        ).pipe(Effect.tapDefect(() => Effect.sync(() => console.error("last status", JSON.stringify(last)))))
        // The 10 the store shows fulfilled have nothing left to ship: left alone, never looked up nor pushed again.
        // The 5 shipped meanwhile are followed to shipped and pushed, once.
        expect(yield* Effect.promise(() => statusOf(port))).toEqual({ drafted: 30, checked_out: 5, fulfilled: 5, not_pod: 10 })

        const pod = yield* Effect.promise(() => podStats(stack))
        expect(pod.draftsByReferenceId).toEqual(Object.fromEntries(references.map((r) => [r, 1])))
        expect(pod.duplicateReferenceIds).toEqual([])
        const shop = yield* Effect.promise(() => shopStats(stack))
        expect(Object.values(shop.fulfillmentsByOrder)).toEqual(Array(15).fill(1))
        expect(Object.values(shop.notificationsByOrder)).toEqual(Array(15).fill(1))

        // The 50 orders are looked up together, a call of each kind for all that are due within the 3 s
        // gather (one call when the pull stores them quickly; on a loaded machine the gather may close
        // before the pull has stored all 50, so a second or third), never an order at a time; no draft posted.
        const lookUps = yield* Effect.promise(() => requestsOf(port, "drafts.lookUp"))
        expect(lookUps).toBeGreaterThanOrEqual(1)
        expect(lookUps).toBeLessThanOrEqual(3)
        expect(yield* Effect.promise(() => requestsOf(port, "orders.lookUp"))).toBe(lookUps)
        expect(yield* Effect.promise(() => requestsOf(port, "drafts.create"))).toBe(0)
        expect(yield* Effect.promise(() => metric(port, /^podsync_pod_rate_limited_total/))).toBeUndefined()

        // Each story says so, in the seller's words.
        const drafts = yield* Effect.promise(() => draftsAt(stack))
        const stories = yield* Effect.forEach(drafts, (d) => Effect.map(storyOf(d.reference_id), (events) => ({ d, events }))).pipe(
          Effect.provide(db)
        )
        const ending = (state: string) => stories.filter(({ events }) => events.at(-1)?.to_state === state)
        const [adopted, followed, fulfilled] = [ending("drafted"), [...ending("checked_out"), ...ending("fulfilled")], ending("not_pod")]
        expect([adopted.length, followed.length, fulfilled.length]).toEqual([30, 10, 10])
        for (const { d, events } of adopted) {
          expect(events.map((e) => e.reason)).toContain(
            `found at the POD service: adopted draft ${d.order_id}, made before for this order; no new draft is made`
          )
        }
        for (const { d, events } of followed) {
          expect(
            events.some((e) => e.reason?.startsWith(`found at the POD service: draft ${d.order_id} was already checked out as POD order`))
          )
            .toBe(true)
        }
        for (const { events } of fulfilled) expect(events.map((e) => e.reason).slice(1)).toEqual(["nothing left to ship"])
      }),
    240_000
  )

  it.scopedLive(
    "does not adopt a draft deleted or archived at the POD service: a new draft is made for its order",
    () =>
      Effect.gen(function*() {
        const stack = yield* scopedStack()
        const ids = yield* Effect.promise(() => createOrders(stack, 4))
        yield* Effect.scoped(Effect.gen(function*() {
          yield* daemonInProcess(stack, first.layer, { logLevel: LogLevel.Error })
          yield* until("all 4 drafted", async () => Object.keys((await podStats(stack)).draftsByReferenceId).length === 4, 60_000)
        }))
        const before = yield* Effect.promise(() => draftsAt(stack))
        const byReference = new Map(before.map((d) => [d.reference_id, d.order_id]))
        const [deleted, archived] = [byReference.get(`demo-shopify:${ids[0]}`)!, byReference.get(`demo-shopify:${ids[1]}`)!]
        yield* Effect.promise(() => post(`${stack.pod.url}/__sim/drafts/${deleted}/status`, { status: "DELETED" }))
        yield* Effect.promise(() => post(`${stack.pod.url}/__sim/drafts/${archived}/status`, { status: "ARCHIVED" }))

        const { port, db } = yield* daemonInProcess(stack, second.layer, { logLevel: LogLevel.Error })
        yield* until("4 drafted", async () => (await statusOf(port)).drafted === 4, 60_000)
        const pod = yield* Effect.promise(() => podStats(stack))
        // A new draft for each of the two orders, none for the other two.
        expect(pod.draftsByReferenceId).toEqual({
          [`demo-shopify:${ids[0]}`]: 2,
          [`demo-shopify:${ids[1]}`]: 2,
          [`demo-shopify:${ids[2]}`]: 1,
          [`demo-shopify:${ids[3]}`]: 1
        })
        const story = yield* storyOf(`demo-shopify:${ids[0]}`).pipe(Effect.provide(db))
        expect(story.map((e) => e.reason)).toContain(
          `found at the POD service: draft ${deleted} deleted or archived there, not this order's; a new draft is made`
        )
        const after = yield* Effect.promise(() => draftsAt(stack))
        const live = after.filter((d) => d.reference_id === `demo-shopify:${ids[0]}` && d.order_id !== deleted)
        expect(live).toHaveLength(1)
      }),
    180_000
  )
})
