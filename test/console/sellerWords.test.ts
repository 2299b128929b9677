import { describe, expect, it } from "vitest"
import { Cause, Either } from "effect"
import * as Money from "../../src/domain/Money.js"
import { renderFragment } from "../../src/console/Html.js"
import { failureInWords } from "../../src/console/ConsoleRequest.js"
import { moneyPart, podPart, podStatusInWords, trackingLinkOf } from "../../src/console/OrderView.js"
import { sampleOrder } from "../support/orders.js"
import { overviewLive } from "../../src/console/OverviewView.js"
import { queueContent } from "../../src/console/QueueView.js"
import { reportsContent } from "../../src/console/ReportsView.js"
import { sellerWordsOf } from "../../src/console/SellerWords.js"
import { withoutSecrets } from "../../src/console/StoryView.js"

const berlin = sellerWordsOf({ timezone: "Europe/Berlin", storeNames: { "acme-shopify": "Acme Shirts", "beta-woo": "  " } })

describe("the console's words", () => {
  it("shows a moment in the seller's time zone, a day and minute a person reads", () => {
    expect(berlin.time("2026-11-29T05:49:43.786Z")).toBe("29 Nov 2026, 06:49")
    expect(berlin.time(new Date("2026-07-01T22:10:00Z"))).toBe("2 Jul 2026, 00:10")
    expect(sellerWordsOf().time("2026-11-29T05:49:43.786Z")).toBe("29 Nov 2026, 05:49")
    // A zone the runtime does not know shows UTC rather than failing the page.
    expect(sellerWordsOf({ timezone: "Mars/Olympus" }).time("2026-11-29T05:49:43.786Z")).toBe("29 Nov 2026, 05:49")
  })

  it("shows a report's period as dates, not as its file label", () => {
    expect(berlin.period("2026-11-28T23:00:00Z", "2026-11-29T23:00:00Z")).toBe("Sunday 29 November 2026")
    expect(berlin.period("2026-10-31T23:00:00Z", "2026-11-07T23:00:00Z")).toBe("1–7 November 2026")
    expect(sellerWordsOf().period("2026-11-29T00:00:00Z", "2026-11-29T05:46:45Z")).toBe("Sunday 29 November 2026, 00:00–05:46 (UTC)")
  })

  it("names the person who acted, and podsync by the host it runs on", () => {
    expect(berlin.actor("console:anna@acme.example")).toBe("anna@acme.example")
    expect(berlin.actor("vm:12197:c0ffee12")).toBe("podsync on vm")
    expect(berlin.actor("ip-10-0-3-17.eu-central-1.compute.internal:1:0a1b2c3d")).toBe(
      "podsync on ip-10-0-3-17.eu-central-1.compute.internal"
    )
    expect(berlin.actor("pull")).toBe("podsync (pull)")
  })

  it("names a store by reports.storeNames, by its key when unnamed", () => {
    expect(berlin.store("acme-shopify")).toBe("Acme Shirts")
    expect(berlin.store("beta-woo")).toBe("beta-woo")
    expect(berlin.store("gamma-etsy")).toBe("gamma-etsy")
  })

  it("lists the reports by period, store name and time written", () => {
    const page = renderFragment(reportsContent({
      reports: [{
        from: "2026-11-28T23:00:00.000Z",
        to: "2026-11-29T23:00:00.000Z",
        store: "acme-shopify",
        createdAt: "2026-11-30T05:00:12.000Z",
        summary: null
      }],
      csrfToken: "t",
      storeKeys: ["acme-shopify"],
      words: berlin
    }))
    expect(page).toContain("<td>Sunday 29 November 2026</td><td>Acme Shirts</td>")
    expect(page).toContain("30 Nov 2026, 06:00")
    expect(page).toContain('<option value="acme-shopify">Acme Shirts</option>')
  })
})

describe("the overview and the queue in the seller's words", () => {
  it("names stores by reports.storeNames and tells the time in reports.timezone", () => {
    const overview = renderFragment(overviewLive(
      {
        generatedAt: "2026-11-29T05:49:43.786Z",
        orders: [{ storeKey: "acme-shopify", state: "held", count: 2 }],
        held: [],
        attention: [],
        queues: [],
        pulls: [{ storeKey: "acme-shopify", lastPullAt: "2026-11-29T05:49:00.000Z", ageSeconds: 43 }],
        budget: null,
        traffic: null
      } as unknown as Parameters<typeof overviewLive>[0],
      { drift: null, words: berlin }
    ))
    expect(overview).toContain("As of 29 Nov 2026, 06:49 (Europe/Berlin)")
    expect(overview).toContain("<td>Acme Shirts</td>")
    expect(overview).not.toContain("<td>acme-shopify</td>")
    const queue = renderFragment(queueContent({
      orders: [{
        id: 1,
        storeKey: "acme-shopify",
        referenceId: "acme-shopify:5551001",
        name: "#1001",
        state: "failed",
        heldReason: null,
        message: "HTTP 500",
        podDraftId: null,
        podOrderId: null,
        updatedAt: new Date("2026-11-25T10:00:00Z"),
        waitingSince: new Date("2026-11-25T10:00:00Z")
      }] as unknown as Parameters<typeof queueContent>[0]["orders"],
      storeKeys: ["acme-shopify"],
      reasonKeys: ["failed"],
      filter: {},
      nowMs: Date.parse("2026-11-25T12:00:00Z"),
      csrfToken: "csrf",
      actionKey: "key",
      outcomes: [],
      limit: 200,
      links: () => [],
      words: berlin
    }))
    expect(queue).toContain("<td>Acme Shirts</td>")
    expect(queue).toContain('<option value="acme-shopify">Acme Shirts</option>')
  })
})

describe("what the order page shows of a payload", () => {
  it("reads money through its JSON form and bigints as digits, so any stored order can be shown; secrets stay hidden", () => {
    const total = Either.getOrThrow(Money.fromDecimalString("EUR", "89.90"))
    const shown = withoutSecrets({ total, at: new Date("2026-11-29T05:49:43.786Z"), nanos: 12n, nested: [{ apiKey: "sk_live_x", total }] })
    expect(JSON.parse(JSON.stringify(shown))).toEqual({
      total: { currency: "EUR", amount: "89.9" },
      at: "2026-11-29T05:49:43.786Z",
      nanos: "12",
      nested: [{ apiKey: "(hidden)", total: { currency: "EUR", amount: "89.9" } }]
    })
  })

  it("words the POD service's statuses and links a package to its carrier when the service gave no link", () => {
    expect(podStatusInWords("VENDOR_ORDER_DRAFT_STATUS_DRAFT")).toBe("draft")
    expect(podStatusInWords("VENDOR_ORDER_PAYMENT_STATUS_PAID")).toBe("paid")
    expect(podStatusInWords(null)).toBe("unknown")
    expect(trackingLinkOf({ trackingNo: "1Z 99", carrier: "UPS Ground", trackingUrl: null })).toBe(
      "https://www.ups.com/track?tracknum=1Z%2099"
    )
    expect(trackingLinkOf({ trackingNo: "X1", carrier: "Royal Mail", trackingUrl: "javascript:alert(1)" })).toBeNull()
    expect(trackingLinkOf({ trackingNo: "X1", carrier: null, trackingUrl: "https://t.example/X1" })).toBe("https://t.example/X1")
  })
})

const usd = (text: string) => Either.getOrThrow(Money.fromDecimalString("USD", text))

describe("cost against price on the order page", () => {
  it("sets the POD order's total against what the buyer paid, with the margin, and says when the two cannot be compared", () => {
    const order = sampleOrder({ currency: "USD", total: usd("48.00") })
    const paid = renderFragment(moneyPart(order, { order: { status: "VENDOR_ORDER_STATUS_PAID", total: usd("19.35") } }))
    expect(paid).toContain("<dt>POD cost (order total)</dt><dd>$19.35</dd>")
    expect(paid).toContain("<dt>Margin</dt><dd>$28.65</dd>")
    const loss = renderFragment(moneyPart(order, { draft: { total: usd("52.10") } }))
    expect(loss).toContain("POD cost (draft total, not yet paid)")
    expect(loss).toContain('<dd class="bad">-$4.10</dd>')
    const eur = renderFragment(moneyPart(sampleOrder({ total: Either.getOrThrow(Money.fromDecimalString("EUR", "40")) }), {
      order: { total: usd("19.35") }
    }))
    expect(eur).toContain("EUR against USD: not comparable here")
  })

  it("shows the POD draft and order with the service's statuses and warnings, and what podsync last saw when the service cannot be read", () => {
    const page = renderFragment(podPart({
      podDraftId: "DRAFT-1",
      podOrderId: "ORDER-1",
      podStatus: "VENDOR_ORDER_STATUS_IN_PRODUCTION",
      warnings: ["the address could not be verified"],
      pod: { error: "orders.get Transport (timeout)" }
    }))
    expect(page).toContain('ORDER-1 <span class="pill">in production</span>')
    expect(page).toContain("the address could not be verified")
    expect(page).toContain("could not be read now (orders.get Transport (timeout))")
  })
})

describe("a console page that fails", () => {
  it("says what failed in a line, with any credentials in an address cut out", () => {
    const said = failureInWords(Cause.die(new Error("connect to postgres://podsync:hunter2@db:5432/podsync refused")))
    expect(said).toBe("Error: connect to postgres://…@db:5432/podsync refused")
    expect(failureInWords(Cause.fail({ _tag: "DbError", message: "x" }))).toBe("DbError")
  })
})
