import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, LogLevel } from "effect"
import { renderFragment } from "../../src/console/Html.js"
import { type PayRow, payContent, sumsByCurrency } from "../../src/console/PayView.js"
import { Db } from "../../src/db/Db.js"
import * as Money from "../../src/domain/Money.js"
import { pgliteDatabase } from "../support/database.js"
import { daemonInProcess, scopedStack, until } from "../support/daemonInProcess.js"
import { createOrders, MAPPED_SKUS, podHeaders, post, type Stack } from "../support/pipeline.js"

const eur = (units: number, nanos = 0) => Money.fromNanos("EUR", BigInt(units) * Money.NANOS_PER_UNIT + BigInt(nanos))
const usd = (units: number, nanos = 0) => Money.fromNanos("USD", BigInt(units) * Money.NANOS_PER_UNIT + BigInt(nanos))

const payRow = (id: number, kind: PayRow["kind"], total: Money.Money | null): PayRow => ({
  id,
  storeKey: id % 2 === 0 ? "acme-shopify" : "etsy-atelier",
  referenceId: `${id % 2 === 0 ? "acme-shopify" : "etsy-atelier"}:555000${id}`,
  name: `#100${id}`,
  kind,
  podStatus: null,
  podDraftId: `draft-${id}`,
  podOrderId: kind === "checkout" ? null : `order-${id}`,
  createdAt: new Date(Date.parse("2026-11-28T10:00:00Z") + id * 3_600_000),
  total
})

describe("what to pay, in money", () => {
  it("sums per currency and never adds two currencies together", () => {
    expect(sumsByCurrency([eur(19, 990_000_000), usd(24), null, eur(5, 10_000_000), usd(0, 500_000_000)]).map((m) => Money.format(m)))
      .toEqual(["€25.00", "$24.50"])
  })

  it("shows the failed payments first, each total, a link to the POD service and each section's sums per currency", () => {
    const rows = [
      payRow(1, "checkout", usd(31, 500_000_000)),
      payRow(2, "checkout", eur(19, 990_000_000)),
      payRow(3, "checkout", eur(5)),
      payRow(4, "payment_failed", usd(12)),
      payRow(5, "awaiting_payment", null)
    ]
    const page = renderFragment(payContent({
      rows,
      waiting: 5,
      totalsProblem: null,
      links: (o) => [{ label: "open at the POD service", href: `https://seller.pod.example/orders/${o.podOrderId ?? o.podDraftId}` }],
      nowMs: Date.parse("2026-11-29T10:00:00Z")
    }))
    expect(page.indexOf("Blocked: the payment failed")).toBeLessThan(page.indexOf("Drafts to check out"))
    expect(page).toContain("3, €24.99 + $31.50</span>")
    expect(page).toContain("1, $12.00</span>")
    expect(page).toContain("1, 1 without a known total</span>")
    expect(page).toContain(`href="https://seller.pod.example/orders/order-4"`)
    expect(page).toContain(`href="https://seller.pod.example/orders/draft-1"`)
    expect(page).toContain(`href="/console/order?ref=etsy-atelier%3A5550001"`)
    expect(page).toContain(`<div class="scroll"><table>`)
  })
})

interface AtPod {
  readonly order_id: string
  readonly reference_id: string
  readonly order_total?: { readonly currency_code: string; readonly units: number | string; readonly nanos?: number }
}

const listAtPod = async (stack: Stack, path: string): Promise<ReadonlyArray<AtPod>> => {
  const response = await fetch(`${stack.pod.url}${path}?paging.limit=100`, { headers: podHeaders })
  return ((await response.json()) as { data?: Array<AtPod> }).data ?? []
}

const moneyOf = (wire: AtPod["order_total"]) =>
  Money.format(Money.fromNanos(wire!.currency_code, BigInt(wire!.units) * Money.NANOS_PER_UNIT + BigInt(wire!.nanos ?? 0)))

describe("the console's All orders and What to pay pages, against a daemon", () => {
  it.scopedLive(
    "lists and finds the daemon's orders, and what waits to be paid with the POD service's totals",
    () =>
      Effect.gen(function*() {
        const stack = yield* scopedStack()
        const buyers = [
          {
            firstName: "Maria-Antonietta",
            lastName: "Castellano de la Vega y Fuentes",
            email: "maria.castellano@example.es",
            currencyCode: "EUR"
          },
          { firstName: "Jean", lastName: "Dupont", email: "jean.dupont@example.fr", currencyCode: "USD" },
          { firstName: "Anna", lastName: "Schmidt", email: "anna.schmidt@example.de", currencyCode: "EUR" }
        ]
        const ids: Array<string> = []
        for (const [i, buyer] of buyers.entries()) {
          const [id] = yield* Effect.promise(() =>
            createOrders(stack, 1, {
              email: buyer.email,
              currencyCode: buyer.currencyCode,
              shippingAddress: { firstName: buyer.firstName, lastName: buyer.lastName },
              lineItems: [{ sku: MAPPED_SKUS[i]!, title: "Podsync Tee", quantity: 1 + i, price: "24.00" }]
            })
          )
          ids.push(id!)
        }
        const { db, port } = yield* daemonInProcess(stack, pgliteDatabase().layer, { logLevel: LogLevel.Error })
        const base = `http://127.0.0.1:${port}`
        const get = (path: string) =>
          Effect.promise(async () => {
            const response = await fetch(`${base}${path}`)
            return { status: response.status, body: await response.text() }
          })
        const rows = () =>
          Effect.promise(() =>
            Context.get(db, Db).kysely.selectFrom("store_orders").select(["reference_id", "state", "pod_draft_id", "pod_status"])
              .orderBy("id").execute()
          )
        yield* until("3 drafted", async () => (await Effect.runPromise(rows())).filter((r) => r.state === "drafted").length === 3, 120_000)
        const drafted = yield* rows()
        const [maria, jean, anna] = drafted

        // Jean's draft is checked out and waits for payment; Anna's is checked out and its payment fails.
        const checkedOut = yield* Effect.promise(() =>
          post(`${stack.pod.url}/__sim/drafts/${jean!.pod_draft_id}/checkout`, { paid: false })
        )
        const failed = yield* Effect.promise(() => post(`${stack.pod.url}/__sim/drafts/${anna!.pod_draft_id}/checkout`, { paid: false }))
        yield* Effect.promise(() => post(`${stack.pod.url}/__sim/orders/${failed.order_id}/advance`, { to: "PAYMENT_FAILED" }))
        yield* until(
          "2 checked out",
          async () => (await Effect.runPromise(rows())).filter((r) => r.state === "checked_out").length === 2,
          60_000
        )

        const pay = yield* get("/console/pay")
        expect(pay.status).toBe(200)
        const draftsAtPod = yield* Effect.promise(() => listAtPod(stack, "/api/v3/orders/draft"))
        const ordersAtPod = yield* Effect.promise(() => listAtPod(stack, "/api/v3/orders"))
        const mariaDraft = draftsAtPod.find((d) => d.order_id === maria!.pod_draft_id)
        const jeanOrder = ordersAtPod.find((o) => o.order_id === checkedOut.order_id)
        const annaOrder = ordersAtPod.find((o) => o.order_id === failed.order_id)
        const section = (kind: string) => pay.body.split(`data-testid="pay-${kind}"`)[1]?.split("</section>")[0] ?? ""
        expect(section("payment_failed")).toContain(`demo-shopify%3A${ids[2]}`)
        expect(section("payment_failed")).toContain(moneyOf(annaOrder?.order_total))
        expect(section("awaiting_payment")).toContain(`demo-shopify%3A${ids[1]}`)
        expect(section("awaiting_payment")).toContain(moneyOf(jeanOrder?.order_total))
        expect(section("checkout")).toContain(`demo-shopify%3A${ids[0]}`)
        expect(section("checkout")).toContain(`1, ${moneyOf(mariaDraft?.order_total)}</span>`)
        expect(pay.body.indexOf("pay-payment_failed")).toBeLessThan(pay.body.indexOf("pay-checkout"))
        expect(pay.body).toContain(`href="/console/pay" class="current" aria-current="page">What to pay</a>`)

        // All orders: every one, newest first, each linking to its page; found by what a seller types.
        const all = yield* get("/console/orders")
        expect(all.status).toBe(200)
        expect(all.body).toContain("3 orders")
        expect(all.body.indexOf(`demo-shopify%3A${ids[2]}`)).toBeLessThan(all.body.indexOf(`demo-shopify%3A${ids[0]}`))
        const found = (q: string) =>
          Effect.map(
            get(`/console/orders?${q}`),
            (r) => ids.filter((id) => r.body.includes(`href="/console/order?ref=demo-shopify%3A${id}"`))
          )
        expect(yield* found("q=Castellano+de+la+Vega")).toEqual([ids[0]])
        expect(yield* found("q=JEAN.DUPONT%40example.fr")).toEqual([ids[1]])
        expect(yield* found(`q=${MAPPED_SKUS[2]}`)).toEqual([ids[2]])
        expect(yield* found(`q=${encodeURIComponent(anna!.reference_id)}`)).toEqual([ids[2]])
        expect(yield* found(`q=${jean!.pod_draft_id}`)).toEqual([ids[1]])
        expect(yield* found(`q=${failed.order_id}`)).toEqual([ids[2]])
        expect(yield* found("state=checked_out")).toEqual([ids[1], ids[2]])
        expect(yield* found("store=demo-shopify&state=drafted")).toEqual([ids[0]])
        expect(yield* found("from=2000-01-01&to=2000-01-31")).toEqual([])
        const notADate = yield* get("/console/orders?from=yesterday")
        expect(notADate.body).toContain("not a date (expected YYYY-MM-DD): yesterday")
      }),
    240_000
  )
})
