/**
 * The rehearsal report (issue 37), pure: what a rehearsal found, in figures a
 * seller reads before going live (how many orders would be drafted, held and
 * why, skipped), what the POD service would charge against what the buyers
 * paid, per order, per SKU and per day, how they would ship, what the service
 * would warn about, and how long the run's API use takes under the budget.
 * Written as HTML, CSV and JSON like the reconciliation report.
 */
import * as Money from "../domain/Money.js"
import type { RehearsalApiUse, RehearsalRun, RehearsedOrder, RehearsedState, SkuToMap } from "../domain/Rehearsal.js"
import { type ExchangeRateTable, toBase } from "./ExchangeRates.js"
import { marginPercent } from "./MoneyFigures.js"

export interface RehearsalOrderRow extends RehearsedOrder {
  /** paid − POD cost, in their currency (else both in the base currency of `reports.exchangeRates`); null when unknown. */
  readonly margin: Money.Money | null
  readonly marginPercent: string | null
}

export interface ReasonGroup {
  readonly reason: string
  readonly orders: number
  /** The seller's words of the first order held or skipped for it. */
  readonly example: string
  readonly names: ReadonlyArray<string>
}

export interface DayFigures {
  /** The day the orders were placed (UTC), YYYY-MM-DD. */
  readonly day: string
  readonly orders: number
  readonly drafted: number
  readonly held: number
  readonly skipped: number
  /** The quotes of the day's drafted orders, per currency the service priced in. */
  readonly podCost: ReadonlyArray<Money.Money>
  /** What the buyers of the day's drafted orders paid, per currency. */
  readonly paid: ReadonlyArray<Money.Money>
}

export interface SkuFigures {
  readonly sku: string
  readonly title: string
  readonly units: number
  readonly orders: number
  /** The quotes' line totals of the SKU, per currency. */
  readonly podCost: ReadonlyArray<Money.Money>
}

export interface RehearsalReport {
  readonly kind: "rehearsal"
  readonly title: string
  readonly generatedAt: string
  readonly storeKey: string
  readonly platform: string
  readonly days: number
  readonly from: string
  readonly to: string
  readonly counts: { readonly orders: number; readonly drafted: number; readonly held: number; readonly skipped: number }
  /** The state the pipeline would move each order to first: what a real run is compared with. */
  readonly states: Readonly<Record<RehearsedState, number>>
  readonly held: ReadonlyArray<ReasonGroup>
  readonly skipped: ReadonlyArray<ReasonGroup>
  readonly toMap: ReadonlyArray<SkuToMap>
  readonly money: {
    readonly podCost: ReadonlyArray<Money.Money>
    readonly paid: ReadonlyArray<Money.Money>
    readonly margin: ReadonlyArray<Money.Money>
    readonly quoted: number
    readonly notQuoted: number
  }
  readonly perDay: ReadonlyArray<DayFigures>
  readonly perSku: ReadonlyArray<SkuFigures>
  readonly shipping: ReadonlyArray<{ readonly method: string; readonly orders: number }>
  readonly economyAsStandard: ReadonlyArray<{ readonly name: string; readonly referenceId: string; readonly message: string }>
  readonly warnings: ReadonlyArray<{ readonly name: string; readonly referenceId: string; readonly warning: string }>
  readonly api: RehearsalApiUse
  readonly orders: ReadonlyArray<RehearsalOrderRow>
  readonly unreadable: RehearsalRun["unreadable"]
}

/** Amounts added up per currency, in the order the currencies first appear (amounts in different currencies never mix). */
export const totalsByCurrency = (amounts: Iterable<Money.Money | null>): ReadonlyArray<Money.Money> => {
  const totals = new Map<string, bigint>()
  for (const amount of amounts) {
    if (amount !== null) totals.set(amount.currency, (totals.get(amount.currency) ?? 0n) + amount.totalNanos)
  }
  return [...totals].map(([currency, nanos]) => Money.fromNanos(currency, nanos))
}

const marginOf = (order: RehearsedOrder, rates: ExchangeRateTable | null) => {
  if (order.paid === null || order.podCost === null) return { margin: null, marginPercent: null }
  // In one currency as they are, else both brought to the base currency of reports.exchangeRates.
  const [paid, cost] = order.podCost.currency === order.paid.currency
    ? [order.paid, order.podCost]
    : rates === null
    ? [undefined, undefined]
    : [toBase(rates, order.paid), toBase(rates, order.podCost)]
  if (paid === undefined || cost === undefined) return { margin: null, marginPercent: null }
  const margin = Money.fromNanos(paid.currency, paid.totalNanos - cost.totalNanos)
  return { margin, marginPercent: marginPercent(margin, paid) }
}

const groups = (orders: ReadonlyArray<RehearsedOrder>): ReadonlyArray<ReasonGroup> => {
  const byReason = new Map<string, Array<RehearsedOrder>>()
  for (const order of orders) byReason.set(order.reason, [...(byReason.get(order.reason) ?? []), order])
  return [...byReason].map(([reason, list]) => ({
    reason,
    orders: list.length,
    example: list[0]?.message ?? "",
    names: list.map((o) => o.name)
  })).sort((a, b) => b.orders - a.orders || a.reason.localeCompare(b.reason))
}

const count = <A>(items: ReadonlyArray<A>, keep: (a: A) => boolean) => items.filter(keep).length

export const buildRehearsalReport = (run: RehearsalRun, generatedAt: string, rates: ExchangeRateTable | null): RehearsalReport => {
  const orders = run.orders.map((o): RehearsalOrderRow => ({ ...o, ...marginOf(o, rates) }))
  const drafted = orders.filter((o) => o.outcome === "drafted")
  const days = new Map<string, Array<RehearsalOrderRow>>()
  for (const order of orders) {
    const day = order.createdAt.slice(0, 10)
    days.set(day, [...(days.get(day) ?? []), order])
  }
  const skus = new Map<string, { sku: string; title: string; units: number; orders: Set<string>; costs: Array<Money.Money | null> }>()
  for (const order of drafted) {
    for (const line of order.lines) {
      const seen = skus.get(line.sku) ?? { sku: line.sku, title: line.title, units: 0, orders: new Set<string>(), costs: [] }
      seen.units += line.quantity
      seen.orders.add(order.storeOrderId)
      seen.costs.push(line.podCost)
      skus.set(line.sku, seen)
    }
  }
  const methods = new Map<string, number>()
  for (const order of drafted) methods.set(order.shippingMethod ?? "", (methods.get(order.shippingMethod ?? "") ?? 0) + 1)
  const states: Record<RehearsedState, number> = { drafted: 0, held: 0, cancelled: 0, not_pod: 0 }
  for (const order of orders) states[order.state]++
  return {
    kind: "rehearsal",
    title: `Rehearsal of ${run.storeKey}: the last ${run.days} day${run.days === 1 ? "" : "s"} of orders`,
    generatedAt,
    storeKey: run.storeKey,
    platform: run.platform,
    days: run.days,
    from: run.from,
    to: run.to,
    counts: {
      orders: orders.length,
      drafted: drafted.length,
      held: count(orders, (o) => o.outcome === "held"),
      skipped: count(orders, (o) => o.outcome === "skipped")
    },
    states,
    held: groups(orders.filter((o) => o.outcome === "held")),
    skipped: groups(orders.filter((o) => o.outcome === "skipped")),
    toMap: run.toMap,
    money: {
      podCost: totalsByCurrency(drafted.map((o) => o.podCost)),
      paid: totalsByCurrency(drafted.map((o) => (o.podCost === null ? null : o.paid))),
      margin: totalsByCurrency(drafted.map((o) => o.margin)),
      quoted: count(drafted, (o) => o.podCost !== null),
      notQuoted: count(drafted, (o) => o.podCost === null)
    },
    perDay: [...days].sort(([a], [b]) => a.localeCompare(b)).map(([day, list]): DayFigures => ({
      day,
      orders: list.length,
      drafted: count(list, (o) => o.outcome === "drafted"),
      held: count(list, (o) => o.outcome === "held"),
      skipped: count(list, (o) => o.outcome === "skipped"),
      podCost: totalsByCurrency(list.map((o) => o.podCost)),
      paid: totalsByCurrency(list.filter((o) => o.outcome === "drafted").map((o) => o.paid))
    })),
    perSku: [...skus.values()].sort((a, b) => b.units - a.units || a.sku.localeCompare(b.sku)).map((s) => ({
      sku: s.sku,
      title: s.title,
      units: s.units,
      orders: s.orders.size,
      podCost: totalsByCurrency(s.costs)
    })),
    shipping: [...methods].map(([method, n]) => ({ method, orders: n })).sort((a, b) => b.orders - a.orders),
    economyAsStandard: drafted.filter((o) => o.economyAsStandard).map((o) => ({
      name: o.name,
      referenceId: o.referenceId,
      message: o.message
    })),
    warnings: drafted.flatMap((o) => o.warnings.map((warning) => ({ name: o.name, referenceId: o.referenceId, warning }))),
    api: run.api,
    orders,
    unreadable: run.unreadable
  }
}

/** The report's file stem under reports.dir: one per store and day it was run (a rerun replaces it). */
export const rehearsalStem = (storeKey: string, generatedAt: string) => `report-rehearsal-${storeKey}-${generatedAt.slice(0, 10)}`
