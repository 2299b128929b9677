import * as HttpRouter from "@effect/platform/HttpRouter"
import { Clock, DateTime, Effect, Option, Stream } from "effect"
import { isOrderState } from "../domain/OrderState.js"
import type { Money } from "../domain/Money.js"
import { PodClient } from "../pod/PodClient.js"
import type { PodError } from "../pod/PodErrors.js"
import { describePodError, REFERENCE_BATCH } from "../reporting/ReportSources.js"
import { AWAITING_PAYMENT, OrderListRepo, type OrderToPay, PAYMENT_FAILED, type PayKind } from "../repos/OrderListRepo.js"
import { chrome, getPage, query } from "./ConsoleRequest.js"
import { htmlResponse } from "./ConsoleGuard.js"
import { page } from "./Html.js"
import type { OrderLinks } from "./OrderLinks.js"
import { cursorOf, DAY, orderListContent, type OrderListRequest } from "./OrderListView.js"
import { payContent } from "./PayView.js"

/**
 * The console's All orders and What to pay pages (issue 33). All orders reads the database only;
 * What to pay also asks the POD service for the totals of what it lists (100 reference ids a
 * call, as the report does), so the sums are the service's own figures.
 */

const PAGE_SIZE = 50
/** The oldest this many are listed and their totals read: a few list calls per page view. */
const PAY_LIMIT = 300
/** A page that waits longer for the POD service shows its list without totals. */
const TOTALS_TIMEOUT = "10 seconds"

/** The first moment of a YYYY-MM-DD day in `timeZone`, plus `days`. */
const dayStart = (day: string, timeZone: string, days = 0): Date | undefined => {
  const local = DateTime.make(`${day}T00:00:00Z`)
  if (Option.isNone(local)) return undefined
  const zone = DateTime.zoneMakeNamed(timeZone)
  const start = DateTime.unsafeMakeZoned(DateTime.toEpochMillis(DateTime.add(local.value, { days })), {
    timeZone: Option.getOrElse(zone, () => DateTime.zoneUnsafeMakeNamed("UTC")),
    adjustForTimeZone: true
  })
  return DateTime.toDate(start)
}

/** What the POD service says now of a listed row: its total, and whether it still waits (null: paid, checked out or gone since). */
interface AtTheService {
  readonly total: Money | undefined
  readonly kind: PayKind | null
}

/**
 * A draft still waits for checkout unless checked out, deleted or archived; an order waits while
 * the service awaits its payment or refused it. podsync stores the status it last moved an order
 * with, and a POD order paid (or refused) after checkout keeps its state: the service's own status
 * says which it is now.
 */
const draftKind = (status: string | undefined): PayKind | null =>
  status === "VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT" || status === "VENDOR_ORDER_DRAFT_STATUS_DELETED" ||
    status === "VENDOR_ORDER_DRAFT_STATUS_ARCHIVED"
    ? null
    : "checkout"
const orderKind = (status: string | undefined): PayKind | null =>
  status === PAYMENT_FAILED ? "payment_failed" : status === AWAITING_PAYMENT ? "awaiting_payment" : null

/** The POD service's word on each listed row (by row id): its draft's, or its order's. */
const podTotalsOf = (rows: ReadonlyArray<OrderToPay>) =>
  Effect.gen(function*() {
    const found = new Map<number, AtTheService>()
    const client = yield* Effect.serviceOption(PodClient)
    if (Option.isNone(client)) return { found, problem: "this process has no POD client" }
    const byStore = new Map<string, Array<OrderToPay>>()
    for (const row of rows) byStore.set(row.storeKey, [...(byStore.get(row.storeKey) ?? []), row])
    for (const [storeKey, ofStore] of byStore) {
      const options = { lane: "normal" as const, storeKey }
      const drafts = ofStore.filter((r) => r.kind === "checkout")
      const orders = ofStore.filter((r) => r.kind !== "checkout")
      for (let i = 0; i < drafts.length; i += REFERENCE_BATCH) {
        const batch = drafts.slice(i, i + REFERENCE_BATCH)
        const query = { filter: { reference_ids: batch.map((r) => r.referenceId) }, paging: { limit: 100 } }
        const listed = yield* Stream.runCollect(client.value.streamDrafts(query, options))
        for (const row of batch) {
          const draft = [...listed].find((d) => d.order_id === row.podDraftId)
          if (draft !== undefined) found.set(row.id, { total: draft.order_total, kind: draftKind(draft.status) })
        }
      }
      for (let i = 0; i < orders.length; i += REFERENCE_BATCH) {
        const batch = orders.slice(i, i + REFERENCE_BATCH)
        const query = { filter: { reference_ids: batch.map((r) => r.referenceId) }, paging: { limit: 100 } }
        const listed = yield* Stream.runCollect(client.value.streamOrders(query, options))
        for (const row of batch) {
          const order = [...listed].find((o) => o.order_id === row.podOrderId)
          if (order !== undefined) found.set(row.id, { total: order.order_total, kind: orderKind(order.order_status) })
        }
      }
    }
    return { found, problem: null }
  }).pipe(
    Effect.timeoutFail({ duration: TOTALS_TIMEOUT, onTimeout: () => "timeout" as const }),
    Effect.catchAll((error: PodError | "timeout") => {
      const problem = error === "timeout" ? `the POD service did not answer within ${TOTALS_TIMEOUT}` : describePodError(error)
      return Effect.as(
        Effect.logWarning("console: the POD service could not be read for what to pay").pipe(Effect.annotateLogs({ problem })),
        { found: new Map<number, AtTheService>(), problem }
      )
    })
  )

export const orderListRoutes = (links: OrderLinks, timeZone: string, storeName?: (storeKey: string) => string) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/console/orders",
      getPage((caller) =>
        Effect.gen(function*() {
          const repo = yield* OrderListRepo
          const state = yield* query("state")
          const from = yield* query("from")
          const to = yield* query("to")
          const request: OrderListRequest = {
            q: yield* query("q"),
            state: state !== undefined && isOrderState(state) ? state : undefined,
            store: yield* query("store"),
            from: from !== undefined && DAY.test(from) ? from : undefined,
            to: to !== undefined && DAY.test(to) ? to : undefined
          }
          const bad = [
            from !== undefined && request.from === undefined ? from : null,
            to !== undefined && request.to === undefined ? to : null
          ]
            .filter((d) => d !== null)
          const cursor = cursorOf("older", yield* query("before")) ?? cursorOf("newer", yield* query("after"))
          const listed = yield* repo.list({
            search: request.q,
            state: request.state,
            storeKey: request.store,
            from: request.from === undefined ? undefined : dayStart(request.from, timeZone),
            // "to" is the last day shown: the list ends where the next day begins.
            to: request.to === undefined ? undefined : dayStart(request.to, timeZone, 1),
            cursor,
            limit: PAGE_SIZE
          })
          const content = orderListContent({
            request,
            page: listed,
            storeKeys: yield* repo.storeKeys,
            timeZone,
            storeName,
            problem: bad.length === 0 ? undefined : `not a date (expected YYYY-MM-DD): ${bad.join(", ")}`
          })
          return htmlResponse(page(yield* chrome(caller, "All orders", "orders"), content))
        })
      )
    ),
    HttpRouter.get(
      "/console/pay",
      getPage((caller) =>
        Effect.gen(function*() {
          const { orders, total } = yield* (yield* OrderListRepo).toPay(PAY_LIMIT)
          const totals = orders.length === 0 ? { found: new Map<number, AtTheService>(), problem: null } : yield* podTotalsOf(orders)
          const rows = orders.flatMap((o) => {
            const now = totals.found.get(o.id)
            if (now === undefined) return [{ ...o, total: null }]
            return now.kind === null ? [] : [{ ...o, kind: now.kind, total: now.total ?? null }]
          })
          const content = payContent({
            rows,
            waiting: total - (orders.length - rows.length),
            totalsProblem: totals.problem,
            storeName,
            links,
            nowMs: yield* Clock.currentTimeMillis
          })
          return htmlResponse(page(yield* chrome(caller, "What to pay", "pay"), content))
        })
      )
    )
  )
