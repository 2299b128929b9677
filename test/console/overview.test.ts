import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { sql } from "kysely"
import { Db } from "../../src/db/Db.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { StatusRepo } from "../../src/repos/StatusRepo.js"
import { testDatabases } from "../support/database.js"
import { sampleOrder } from "../support/orders.js"
import { renderFragment } from "../../src/console/Html.js"
import { overviewLive } from "../../src/console/OverviewView.js"
import type { StatusReport } from "../../src/observability/StatusReport.js"

const report = (alerts: StatusReport["alerts"]): StatusReport => ({
  generatedAt: "2026-11-25T12:00:00.000Z",
  orders: [],
  held: [],
  attention: [],
  queues: [],
  pulls: [],
  budget: null,
  traffic: null,
  ...(alerts === undefined ? {} : { alerts })
})

describe("the console's overview", () => {
  it("shows what the alert channels did, and each alert a channel could not take, with its last error", () => {
    const page = renderFragment(overviewLive(
      report({
        pending: 2,
        sent: 7,
        failed: [{
          channel: "ops",
          kind: "order.held",
          reason: "unmatched",
          referenceId: "acme-shopify:1001",
          attempts: 6,
          lastError: "HTTP 500 from the webhook",
          at: "2026-11-25T11:00:00.000Z"
        }]
      }),
      { drift: null }
    ))
    expect(page).toContain('7 sent, 2 waiting, <span class="bad">1 failed</span>')
    expect(page).toContain("<td>ops</td><td>order.held (unmatched)</td>")
    expect(page).toContain(`href="/console/order?ref=acme-shopify%3A1001"`)
    expect(page).toContain("HTTP 500 from the webhook")
  })

  it("says nothing of alerts where the daemon has no alert channels", () => {
    expect(renderFragment(overviewLive(report(undefined), { drift: null }))).not.toContain("<h2>Alerts</h2>")
  })
})

for (const database of testDatabases()) {
  layer(Layer.provideMerge(Layer.mergeAll(OrdersRepo.Default, StatusRepo.Default), database.layer))(
    `the overview's orders of today and of the last 7 days, on ${database.name}`,
    (it) => {
      it.effect("counts the orders first pulled since a moment, by store and state", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(Date.parse("2026-11-25T12:00:00Z"))
          const orders = yield* OrdersRepo
          const db = yield* Db
          const stored = (storeKey: string, storeOrderId: string, pulledAt: string, held = false) =>
            Effect.gen(function*() {
              const { id } = yield* orders.upsertPulled(sampleOrder({ storeKey, storeOrderId }), `${storeKey}:${storeOrderId}`)
              if (held) yield* orders.transition(id, "pulled", "held", { reason: "unmatched", actor: "worker", nextAttemptAt: null })
              yield* db.use((k) => sql`update store_orders set created_at = ${new Date(pulledAt)} where id = ${id}`.execute(k))
            })
          yield* stored("acme", "1", "2026-11-25T09:00:00Z", true)
          yield* stored("acme", "2", "2026-11-24T23:00:00Z")
          yield* stored("other", "3", "2026-11-20T12:00:00Z")
          yield* stored("other", "4", "2026-11-01T12:00:00Z")
          const status = yield* StatusRepo
          expect(yield* status.ordersPulledSince(new Date("2026-11-25T00:00:00Z"))).toEqual([{ storeKey: "acme", state: "held", count: 1 }])
          expect(yield* status.ordersPulledSince(new Date("2026-11-18T00:00:00Z"))).toEqual([
            { storeKey: "acme", state: "held", count: 1 },
            { storeKey: "acme", state: "pulled", count: 1 },
            { storeKey: "other", state: "pulled", count: 1 }
          ])
          expect((yield* status.ordersByStoreAndState).reduce((n, r) => n + r.count, 0)).toBe(4)
        }))
    }
  )
}

describe("the overview's range", () => {
  it("shows the range's counts, says which range, and keeps it when it updates itself", () => {
    const page = renderFragment(overviewLive(
      { ...report(undefined), orders: [{ storeKey: "acme", state: "fulfilled", count: 900 }] },
      { drift: null, range: "today", recent: [{ storeKey: "acme", state: "held", count: 2 }] }
    ))
    expect(page).toContain(`hx-get="/console/live?range=today"`)
    expect(page).toContain("(pulled today)")
    expect(page).toContain(`<td class="num bad">2</td>`)
    expect(page).not.toContain(`<td class="num">900</td>`)
    expect(page).toContain(`<a href="/console?range=7d">7 days</a>`)
  })
})
