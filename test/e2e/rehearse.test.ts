// A go-live rehearsal end to end (issue 37): 30 days of a Shopify store's orders, put in at the
// simulator with the days they were placed, rehearsed over real HTTP (nothing created at the POD
// service, nothing written at the store), then run for real by the daemon: the same counts per
// state, and each draft's total equal to the quote the rehearsal got for it.
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import pg from "pg"
import { Effect, Logger, LogLevel } from "effect"
import { describe, expect, it } from "vitest"
import { rehearseHere } from "../../src/cli/rehearse.js"
import { loadConfig } from "../../src/config/loadConfig.js"
import type { RehearsalReport } from "../../src/reports/RehearsalReport.js"
import { daemonInProcess, until } from "../support/daemonInProcess.js"
import { pgliteDatabase } from "../support/database.js"
import {
  draftTotalAt,
  freePort,
  getJson,
  MAPPED_SKUS,
  post,
  sharedStack,
  type Stack,
  statusOf,
  writeDaemonConfig
} from "../support/pipeline.js"

const DAY = 86_400_000
const ORDERS = 24

const address = (i: number) =>
  i % 5 === 0
    ? {
      firstName: "Lena",
      lastName: "Schäfer-Oberhausen",
      address1: "Kastanienallee 12",
      city: "Berlin",
      zip: "10435",
      countryCodeV2: "DE"
    }
    : {
      firstName: "Ada",
      lastName: "Lovelace",
      address1: `${10 + i} Analytical Way`,
      city: "Los Angeles",
      province: "California",
      provinceCode: "CA",
      zip: "90012",
      countryCodeV2: "US"
    }

/** One order of the store's month: mostly mapped and paid, with the other kinds a real month has. */
const putIn = async (stack: Stack, i: number, now: number) => {
  const kind = i % 8
  const sku = kind === 0 ? "UNMAPPED-HOODIE-L" : kind === 3 ? "GIFT-WRAP" : MAPPED_SKUS[i % MAPPED_SKUS.length]!
  const order = await post(`${stack.shopify.url}/__sim/orders`, {
    placedAt: new Date(now - (i + 0.5) * (30 / ORDERS) * DAY).toISOString(),
    financialStatus: kind === 1 ? "PENDING" : "PAID",
    currencyCode: "EUR",
    shippingAddress: { address2: null, company: null, phone: "+1 406 555 0100", ...address(i) },
    lineItems: [{
      sku,
      title: kind === 0 ? "Podsync Hoodie" : "Podsync Tee",
      variantTitle: kind === 0 ? "Heather Grey / L" : undefined,
      quantity: 1 + (i % 3),
      price: "24.00",
      customAttributes: [{ key: "design_front", value: `https://cdn.example.com/d/${i}.png` }]
    }]
  })
  if (kind === 2) await post(`${stack.shopify.url}/__sim/orders/${order.legacyResourceId}/cancel`, { reason: "CUSTOMER" })
  return String(order.legacyResourceId)
}

describe("podsync rehearse", () => {
  const stack = sharedStack()

  it("reports the counts the pipeline then produces on the same orders, and quotes equal to the drafts' totals", async () => {
    const now = Date.now()
    const ids: Array<string> = []
    for (let i = 0; i < ORDERS; i++) ids.push(await putIn(stack, i, now))
    const config = await Effect.runPromise(loadConfig(writeDaemonConfig(stack, await freePort(), { name: "rehearse" }), {}))
    const podBefore = await getJson(`${stack.pod.url}/__sim/stats`)
    const shopBefore = await getJson(`${stack.shopify.url}/__sim/stats`)

    const summary = await Effect.runPromise(
      rehearseHere(config, "demo-shopify", 30).pipe(Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))
    )

    // Read only: no draft at the POD service, no write at the store.
    const podAfter = await getJson(`${stack.pod.url}/__sim/stats`)
    expect(podAfter.drafts).toBe(podBefore.drafts)
    expect(podAfter.orders).toBe(podBefore.orders)
    const shopAfter = await getJson(`${stack.shopify.url}/__sim/stats`)
    expect(shopAfter.mutations).toEqual(shopBefore.mutations)
    expect(shopAfter.fulfillmentsByOrder).toEqual(shopBefore.fulfillmentsByOrder)
    expect(shopAfter.tagsByOrder).toEqual(shopBefore.tagsByOrder)

    // The month as the rehearsal saw it: 3 kinds held or skipped of every 8, the rest drafted.
    expect(summary.counts).toEqual({ orders: ORDERS, drafted: 12, held: 3, skipped: 9 })
    expect(summary.held).toEqual([expect.objectContaining({ reason: "unmatched", orders: 3 })])
    expect(Object.fromEntries(summary.skipped.map((g) => [g.reason, g.orders]))).toEqual({ cancelled: 3, unpaid: 3, not_pod: 3 })
    expect(summary.toMap).toEqual([expect.objectContaining({ sku: "UNMAPPED-HOODIE-L", orders: 3 })])
    expect(summary.api.quoteCalls).toBe(12)
    const report = JSON.parse(fs.readFileSync(summary.files.find((f) => f.format === "json")!.path, "utf8")) as RehearsalReport
    expect(report.perDay.reduce((n, d) => n + d.orders, 0)).toBe(ORDERS)
    expect(report.perDay.length).toBeGreaterThan(15)
    expect(fs.readFileSync(summary.files.find((f) => f.format === "html")!.path, "utf8")).toContain("UNMAPPED-HOODIE-L")

    // The pipeline, run for real: the orders are touched (a note) so its first pull, three days back, meets them all.
    for (const id of ids) {
      const res = await fetch(`${stack.shopify.url}/__sim/orders/${id}`, { method: "PATCH", body: JSON.stringify({ note: "go-live" }) })
      expect(res.ok).toBe(true)
    }
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const { port } = yield* daemonInProcess(stack, pgliteDatabase().layer, { logLevel: LogLevel.Warning })
      const settled = (s: Record<string, number>) => Object.values(s).reduce((a, b) => a + b, 0) === ORDERS && !s.pulled && !s.ready
      yield* until("the pipeline to settle every order", () => statusOf(port).then(settled), 60_000)
      const counts = yield* Effect.promise(() => statusOf(port))
      expect(counts).toEqual(Object.fromEntries(Object.entries(report.states).filter(([, n]) => n > 0)))

      // The daemon rehearses too: for the command (POST /rehearse) and from the console, in the background.
      const drafts = (yield* Effect.promise(() => getJson(`${stack.pod.url}/__sim/stats`))).drafts
      const asked = yield* Effect.promise(() => post(`http://127.0.0.1:${port}/rehearse?store=demo-shopify&days=30`))
      expect(asked.summary.counts).toEqual(summary.counts)
      const page = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/console/rehearse`))
      const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? ""
      const csrf = /name="_csrf" value="([^"]+)"/.exec(yield* Effect.promise(() => page.text()))?.[1] ?? ""
      const send = (form: Record<string, string>) =>
        fetch(`http://127.0.0.1:${port}/console/rehearse/run`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: `http://127.0.0.1:${port}` },
          body: new URLSearchParams(form).toString()
        })
      expect((yield* Effect.promise(() => send({ store: "demo-shopify", days: "30" }))).status).toBe(403)
      expect((yield* Effect.promise(() => send({ _csrf: csrf, store: "demo-shopify", days: "30" }))).status).toBe(303)
      yield* until("the console's rehearsal to finish", async () => {
        const text = await (await fetch(`http://127.0.0.1:${port}/console/rehearse`, { headers: { cookie } })).text()
        return text.includes("open the report") && text.includes("UNMAPPED-HOODIE-L")
      }, 30_000)
      expect((yield* Effect.promise(() => getJson(`${stack.pod.url}/__sim/stats`))).drafts).toBe(drafts)
    })))

    // Each draft's total is the quote the rehearsal got for its order.
    for (const order of report.orders.filter((o) => o.outcome === "drafted")) {
      const quoted = order.podCost as unknown as { currency: string; amount: string }
      expect(await draftTotalAt(stack.pod.url, order.referenceId)).toBeCloseTo(Number(quoted.amount), 6)
    }
  }, 120_000)

  // The same rehearsal on PostgreSQL (the command beside a daemon that shares the database): the
  // same counts, and nothing in the pipeline's tables, only the budget's slot log.
  // Only where the real server is (CI sets TEST_DATABASE_URL), as testDatabases() runs PostgreSQL.
  for (const url of process.env.TEST_DATABASE_URL === undefined ? [] : [process.env.TEST_DATABASE_URL]) {
    it("writes nothing into the pipeline's tables on PostgreSQL", async () => {
      const schema = `rehearse_${randomUUID().replaceAll("-", "").slice(0, 12)}`
      const admin = new pg.Client({ connectionString: url })
      await admin.connect()
      try {
        await admin.query(`create schema "${schema}"`)
        const file = writeDaemonConfig(stack, await freePort(), {
          name: "rehearse-pg",
          databaseUrl: `${url}?options=-c%20search_path%3D${schema}`
        })
        const config = await Effect.runPromise(loadConfig(file, {}))
        const summary = await Effect.runPromise(
          rehearseHere(config, "demo-shopify", 30).pipe(Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))
        )
        expect(summary.counts).toEqual({ orders: ORDERS, drafted: 12, held: 3, skipped: 9 })
        const rows = async (table: string) => Number((await admin.query(`select count(*) as n from "${schema}".${table}`)).rows[0].n)
        for (const table of ["store_orders", "order_events", "variant_mappings", "store_cursors", "alert_outbox"]) {
          expect(await rows(table), table).toBe(0)
        }
        expect(await rows("rate_budget_slots")).toBeGreaterThan(0)
      } finally {
        await admin.query(`drop schema if exists "${schema}" cascade`)
        await admin.end()
      }
    }, 120_000)
  }
})
