import { describe, expect, it } from "vitest"
import * as Money from "../../src/domain/Money.js"
import { buildReport } from "../../src/reports/ReportBuilder.js"
import type { MarginFigures } from "../../src/reports/ReportOutput.js"
import { scenarioInput, scenarioOrders } from "./scenario.js"

const amounts = (m: MarginFigures) => ({
  revenue: String(m.revenue),
  podCost: String(m.podCost),
  margin: String(m.margin),
  marginPercent: m.marginPercent
})

describe("the reconciliation report of a seeded day", () => {
  const report = buildReport(scenarioInput())

  it("counts the flow per store and overall, with p50/p95 step times from the order history", () => {
    const acme = report.perStore.find((s) => s.storeKey === "acme")!.flow
    expect(acme).toEqual({
      storeOrdersCreated: 12,
      pulled: 11,
      held: 3,
      drafted: 5,
      checkedOut: 3,
      inProduction: 2,
      shipped: 1,
      fulfilled: 1,
      cancelled: 2,
      timings: {
        // 5, 10, 15, 20, 30 minutes
        pullToDraft: { count: 5, p50Seconds: 900, p95Seconds: 1800 },
        draftToShipped: { count: 1, p50Seconds: 13_800, p95Seconds: 13_800 },
        shippedToFulfilled: { count: 1, p50Seconds: 1800, p95Seconds: 1800 }
      }
    })
    const beta = report.perStore.find((s) => s.storeKey === "beta")!.flow
    // beta:2001 went from checked out to shipped between two polls: it passed production all the same.
    expect(beta).toMatchObject({
      storeOrdersCreated: 2,
      pulled: 2,
      held: 0,
      drafted: 2,
      checkedOut: 1,
      inProduction: 1,
      shipped: 1,
      fulfilled: 1,
      cancelled: 0
    })
    expect(report.overall.flow).toEqual({
      storeOrdersCreated: 14,
      pulled: 13,
      held: 3,
      drafted: 7,
      checkedOut: 4,
      inProduction: 3,
      shipped: 2,
      fulfilled: 2,
      cancelled: 2,
      timings: {
        pullToDraft: { count: 7, p50Seconds: 1200, p95Seconds: 2400 },
        draftToShipped: { count: 2, p50Seconds: 13_800, p95Seconds: 15_600 },
        shippedToFulfilled: { count: 2, p50Seconds: 1200, p95Seconds: 1800 }
      }
    })
  })

  it("lists who needs a person: held by reason with the oldest age, failed with the service's error, cancel_pending, on hold, drafts not checked out", () => {
    const people = report.needsAPerson
    expect(people.held.map((g) => ({ store: g.storeKey, reason: g.reason, count: g.count, oldest: g.oldestAgeHours, ids: g.referenceIds })))
      .toEqual([
        { store: "acme", reason: "unmatched", count: 2, oldest: 26, ids: ["acme:1004", "acme:1005"] },
        { store: "acme", reason: "unpaid", count: 1, oldest: 19, ids: ["acme:1006"] }
      ])
    expect(people.held[0]!.orders[0]!.detail).toBe("no mapping row for SKU POSTER-A3")
    expect(people.failed).toEqual([
      expect.objectContaining({ referenceId: "acme:1007", ageHours: 23.9, detail: "PodBadRequestError: data.address.zip_code: invalid" })
    ])
    expect(people.cancelPending.map((i) => [i.referenceId, i.ageHours])).toEqual([["acme:1010", 18]])
    expect(people.podOnHold.map((i) => [i.referenceId, i.ageHours])).toEqual([["acme:1011", 16]])
    // beta:2002 was drafted 23.7 hours before the report: not yet late.
    expect(people.notCheckedOut.map((i) => [i.referenceId, i.ageHours])).toEqual([["acme:1003", 26.5]])
    expect(report.overall.needsAPerson).toBe(7)
    expect(report.perStore.map((s) => [s.storeKey, s.needsAPerson, s.findings])).toEqual([["acme", 7, 6], ["beta", 0, 1]])
  })

  it("says when a box's tracking could not be shown to the buyer: the store took one box and not the other", () => {
    const orders = scenarioOrders.map((o) =>
      o.referenceId !== "acme:1001" ? o : {
        ...o,
        shipments: [...o.shipments, { ...o.shipments[0]!, trackingNo: "1Z001B", pushState: "rejected" as const }]
      }
    )
    const found = buildReport(scenarioInput({ orders })).drift.findings.filter((f) => f.kind === "package_not_shown")
    expect(found).toEqual([
      expect.objectContaining({
        referenceId: "acme:1001",
        summary: "2 boxes shipped for store order #1001; the buyer is not shown tracking 1Z001B",
        action: "add tracking 1Z001B to store order #1001 by hand; podsync explain acme:1001 says why the store did not take it"
      })
    ])
    expect(buildReport(scenarioInput()).drift.findings.filter((f) => f.kind === "package_not_shown")).toEqual([])
  })

  it("finds the drift against the APIs, each with evidence and an action", () => {
    expect(report.drift.complete).toBe(true)
    expect(report.drift.findings.map((f) => [f.kind, f.referenceId])).toEqual([
      ["missing_draft", "acme:1008"],
      ["missing_draft", "acme:1012"],
      ["orphan_at_pod", "acme:999999"],
      ["duplicate_at_pod", "acme:1003"],
      ["shipped_not_fulfilled", "acme:1002"],
      ["cancelled_but_active_at_pod", "acme:1010"],
      ["status_mismatch", "beta:2002"]
    ])
    const byKind = Object.fromEntries(
      report.drift.findings.map((f) => [f.kind === "missing_draft" ? `${f.kind}:${f.referenceId}` : f.kind, f])
    )
    expect(byKind["missing_draft:acme:1012"]!.summary).toContain("podsync never pulled it")
    expect(byKind["missing_draft:acme:1012"]!.action).toContain("podsync pull --store acme")
    expect(byKind["orphan_at_pod"]!.evidence).toMatchObject({ store: "the store has no such order", drafts: [{ id: "D-99" }] })
    expect(byKind["duplicate_at_pod"]!.evidence).toMatchObject({ followedDraft: "D-3a", drafts: [{ id: "D-3a" }, { id: "D-3b" }] })
    expect(byKind["duplicate_at_pod"]!.action).toBe(
      "delete draft D-3b at the POD service before anyone checks it out (podsync follows draft D-3a)"
    )
    expect(byKind["shipped_not_fulfilled"]!.evidence).toMatchObject({
      pod: { id: "O-2", status: "shipped", trackingNo: "1Z002" },
      store: { fulfillmentStatus: "unfulfilled" },
      unfulfilledLines: ["TEE-BLK-M × 1"],
      podsync: { state: "in_production" }
    })
    expect(byKind["shipped_not_fulfilled"]!.action).toContain(
      "podsync has not seen the shipment yet (in_production): run podsync reconcile"
    )
    expect(byKind["cancelled_but_active_at_pod"]!.action).toBe("delete draft D-10 at the POD service")
    expect(byKind["status_mismatch"]!.summary).toBe("podsync has beta:2002 as drafted, but at the POD service order O-22 is in production")
    expect(byKind["status_mismatch"]!.action).toContain("podsync is behind the POD service")
  })

  it("puts POD cost against store revenue exactly, per store and per SKU (allocated by quantity), never across currencies", () => {
    const [acme, beta] = report.money.stores
    expect(acme).toMatchObject({ storeKey: "acme", currency: "USD", orders: 3 })
    expect(amounts(acme!)).toEqual({ revenue: "83 USD", podCost: "42.5 USD", margin: "40.5 USD", marginPercent: "48.8" })
    expect(acme!.bySku.map((s) => ({ sku: s.sku, units: s.units, ...amounts(s) }))).toEqual([
      { sku: "CAP-RED", units: 1, revenue: "18 USD", podCost: "9 USD", margin: "9 USD", marginPercent: "50.0" },
      { sku: "MUG-11OZ", units: 1, revenue: "13.33 USD", podCost: "7.17 USD", margin: "6.16 USD", marginPercent: "46.2" },
      { sku: "TEE-BLK-M", units: 3, revenue: "51.67 USD", podCost: "26.33 USD", margin: "25.34 USD", marginPercent: "49.0" }
    ])
    expect(amounts(beta!)).toEqual({ revenue: "52 EUR", podCost: "24.25 EUR", margin: "27.75 EUR", marginPercent: "53.4" })
    expect(beta!.bySku.map((s) => [s.sku, s.units, String(s.revenue), String(s.podCost)])).toEqual([
      ["CAP-BLU", 2, "14.67 EUR", "6.67 EUR"],
      ["HOODIE-GRY-L", 2, "37.33 EUR", "17.58 EUR"]
    ])
    expect(report.overall.money.map((m) => [m.currency, m.orders, String(m.margin)])).toEqual([["EUR", 2, "27.75 EUR"], [
      "USD",
      3,
      "40.5 USD"
    ]])
    expect(report.money.excluded).toEqual([])
  })

  it("says what it could not check when an API could not be read, and still reports the rest", () => {
    const degraded = buildReport(scenarioInput({ pod: { drafts: [], orders: [], error: "drafts.list Transport (connect: refused)" } }))
    expect(degraded.drift.complete).toBe(false)
    expect(degraded.drift.findings).toEqual([])
    expect(degraded.notes.at(-1)).toContain("the POD service (drafts.list Transport (connect: refused)) could not be read")
    expect(degraded.overall.flow.pulled).toBe(13)
    expect(degraded.overall.needsAPerson).toBe(7)
  })

  it("covers one store when asked, leaving POD records of the other stores to their own report", () => {
    const beta = buildReport(scenarioInput({ stores: [scenarioInput().stores[1]!], store: "beta" }))
    expect(beta.store).toBe("beta")
    expect(beta.overall.flow.pulled).toBe(2)
    expect(beta.drift.findings.map((f) => f.referenceId)).toEqual(["beta:2002"])
    expect(beta.money.stores.map((s) => s.storeKey)).toEqual(["beta"])
  })

  it("leaves out of the margins what cannot be compared, and says why", () => {
    const input = scenarioInput()
    const usdCost = input.pod.orders.map((
      o
    ) => (o.order_id === "O-22" ? { ...o, order_total: Money.fromNanos("USD", 10_000_000_000n) } : o))
    const report = buildReport({ ...input, pod: { ...input.pod, orders: usdCost } })
    expect(report.money.excluded).toEqual([{
      storeKey: "beta",
      referenceId: "beta:2002",
      reason: "amounts in EUR and USD: no margin without an exchange rate"
    }])
    expect(String(report.money.stores.find((s) => s.storeKey === "beta")!.revenue)).toBe("30 EUR")
  })

  it("keeps listing an older order that still waits for its draft, every day until it gets one", () => {
    const stuck = scenarioOrders.find((o) => o.referenceId === "acme:1008")!
    const old = {
      ...stuck,
      id: 99,
      storeOrderId: "0900",
      referenceId: "acme:0900",
      order: { ...stuck.order, storeOrderId: "0900", createdAt: "2026-11-17T08:00:00.000Z" },
      events: stuck.events.map((e) => ({ ...e, at: e.at - 3 * 86_400_000 }))
    }
    const report = buildReport(scenarioInput({ orders: [...scenarioOrders, old] }))
    expect(report.drift.findings.filter((f) => f.kind === "missing_draft").map((f) => f.referenceId)).toEqual([
      "acme:0900",
      "acme:1008",
      "acme:1012"
    ])
    // It is not part of the period's flow.
    expect(report.overall.flow.pulled).toBe(13)
  })

  it("lists the drafts of the period the POD service warned about, with its words, and no others", () => {
    const drafted = scenarioOrders.filter((o) => o.events.some((e) => e.to === "drafted"))
    const warned = drafted[0]!
    const noted = {
      ...warned,
      events: warned.events.map((e) =>
        e.to === "drafted"
          ? { ...e, reason: "draft created; the POD service warns: line_items[0]: variant GM0002010011 (UTS01-FOREST-S) is at risk" }
          : e
      )
    }
    const report = buildReport(scenarioInput({ orders: scenarioOrders.map((o) => (o.id === warned.id ? noted : o)) }))
    expect(report.podWarnings.map((w) => [w.referenceId, w.detail])).toEqual([
      [warned.referenceId, "the POD service warns: line_items[0]: variant GM0002010011 (UTS01-FOREST-S) is at risk"]
    ])
    expect(buildReport(scenarioInput()).podWarnings).toEqual([])
  })
})
