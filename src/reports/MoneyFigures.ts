/**
 * Store revenue against POD cost, exact (Money, never floats), pure.
 *
 * Scope: the orders pulled in the period that the POD service has as orders
 * (checked out, not cancelled there). Revenue is the store order's total as
 * the store reports it now (after refunds); cost is the sum of the POD
 * orders' `order_total` for its reference id (a duplicate checked out is a
 * real cost too). Store lines carry no unit prices, so per-SKU figures
 * split each order's revenue and cost across its POD lines by quantity.
 *
 * With an exchange-rate table (`reports.exchangeRates`) every order's amounts
 * are also brought to its base currency, so one margin covers the orders of
 * every currency the table has a rate for; the others are counted and named.
 */
import { Array as Arr, Either } from "effect"
import * as Money from "../domain/Money.js"
import type { OrderListItem as Order } from "../pod/schemas/Orders.js"
import { pulledIn } from "./FlowFigures.js"
import { type ExchangeRateTable, toBase } from "./ExchangeRates.js"
import { isActiveOrder, type PodRecords } from "./PodRecords.js"
import type { ReportOrder, ReportPeriod } from "./ReportInput.js"
import type { BaseCurrencyMoney, CurrencyMoney, MarginFigures, MoneySection, OrderMoney, SkuMargin, StoreMoney } from "./ReportOutput.js"

const CENT = 10_000_000n

const plus = (a: Money.Money, b: Money.Money): Money.Money => Either.getOrThrowWith(Money.add(a, b), (e) => e)
const minus = (a: Money.Money, b: Money.Money): Money.Money => Either.getOrThrowWith(Money.subtract(a, b), (e) => e)

/**
 * Splits `amount` by whole-number weights so that the parts add up to it
 * exactly: in whole cents when the amount is in whole cents, the leftover
 * cents going to the largest remainders (the earlier part on a tie).
 */
export const allocate = (amount: Money.Money, weights: ReadonlyArray<number>): ReadonlyArray<Money.Money> => {
  if (weights.length === 0) return []
  const positive = weights.map((w) => BigInt(Math.max(0, Math.trunc(w))))
  const safe = positive.some((w) => w > 0n) ? positive : positive.map(() => 1n)
  const total = safe.reduce((a, b) => a + b, 0n)
  const step = amount.totalNanos % CENT === 0n ? CENT : 1n
  const sign = amount.totalNanos < 0n ? -1n : 1n
  const units = (sign * amount.totalNanos) / step
  const shares = safe.map((w) => (units * w) / total)
  const order = safe.map((w, index) => ({ index, remainder: (units * w) % total }))
    .sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1))
  // The units left over (fewer than the parts) go one each to the first parts in that order.
  const left = units - shares.reduce((a, b) => a + b, 0n)
  const topped = new Set(order.slice(0, Number(left)).map(({ index }) => index))
  return shares.map((s, index) => Money.fromNanos(amount.currency, sign * (topped.has(index) ? s + 1n : s) * step))
}

/** margin ÷ revenue in percent with one decimal, rounded half away from zero. */
export const marginPercent = (margin: Money.Money, revenue: Money.Money): string | null => {
  if (revenue.totalNanos === 0n) return null
  const numerator = margin.totalNanos * 1000n
  let tenths = numerator / revenue.totalNanos
  const remainder = numerator % revenue.totalNanos
  const abs = (n: bigint) => (n < 0n ? -n : n)
  if (2n * abs(remainder) >= abs(revenue.totalNanos)) tenths += (numerator < 0n) === (revenue.totalNanos < 0n) ? 1n : -1n
  const negative = tenths < 0n
  const magnitude = abs(tenths)
  return `${negative ? "-" : ""}${magnitude / 10n}.${magnitude % 10n}`
}

const figures = (revenue: Money.Money, podCost: Money.Money): MarginFigures => {
  const margin = minus(revenue, podCost)
  return { revenue, podCost, margin, marginPercent: marginPercent(margin, revenue) }
}

interface PodLine {
  readonly sku: string
  readonly title: string
  readonly quantity: number
}

/** The order's POD lines: the store lines podsync drafted, else the POD order's own lines. */
const podLinesOf = (order: ReportOrder, podOrders: ReadonlyArray<Order>): ReadonlyArray<PodLine> => {
  const planned = order.plannedLines.flatMap((planned) => {
    const line = order.order.lines.find((l) => l.lineId === planned.lineId)
    if (line === undefined || planned.quantity <= 0) return []
    const sku = line.sku ?? (line.variantId !== undefined ? `variant ${line.variantId}` : line.title)
    return [{ sku, title: line.variantTitle ? `${line.title} / ${line.variantTitle}` : line.title, quantity: planned.quantity }]
  })
  if (planned.length > 0) return planned
  const fromPod = podOrders.flatMap((o) => o.line_items ?? []).flatMap((item) => {
    const sku = item.variant?.sku || item.variant?.variant_id || undefined
    return sku === undefined || (item.quantity ?? 0) <= 0
      ? []
      : [{ sku, title: item.variant?.variant_name || item.product_name || sku, quantity: item.quantity ?? 0 }]
  })
  return fromPod.length > 0 ? fromPod : [{ sku: "(unknown SKU)", title: "(lines unknown)", quantity: 1 }]
}

type Outcome =
  | { readonly _tag: "Included"; readonly revenue: Money.Money; readonly cost: Money.Money; readonly lines: ReadonlyArray<PodLine> }
  | { readonly _tag: "Excluded"; readonly kind: "no_total" | "currencies"; readonly reason: string }

/** The sum of amounts when they share one currency. */
const sumOf = (amounts: ReadonlyArray<Money.Money>): Money.Money | undefined => {
  const [first] = amounts
  return first === undefined ? undefined : Either.getOrUndefined(Money.sum(first.currency, amounts))
}

const assess = (order: ReportOrder, podOrders: ReadonlyArray<Order>): Outcome => {
  const revenue = order.order.total
  if (revenue === undefined) return { _tag: "Excluded", kind: "no_total", reason: "the store gave no order total" }
  const costs = podOrders.flatMap((o) => (o.order_total === undefined ? [] : [o.order_total]))
  if (costs.length < podOrders.length) {
    return {
      _tag: "Excluded",
      kind: "no_total",
      reason: `the POD service gave no order total for ${
        podOrders.filter((o) => o.order_total === undefined).map((o) => o.order_id).join(", ")
      }`
    }
  }
  const currencies = new Set([revenue.currency, ...costs.map((c) => c.currency)])
  if (currencies.size > 1) {
    return {
      _tag: "Excluded",
      kind: "currencies",
      reason: `amounts in ${[...currencies].join(" and ")}: no margin without an exchange rate`
    }
  }
  const cost = costs.reduce((sum: Money.Money, c) => plus(sum, c), Money.zero(revenue.currency))
  return { _tag: "Included", revenue, cost, lines: podLinesOf(order, podOrders) }
}

/** The order's figures in the base currency: every amount converted, or the currencies without a rate. */
const inBaseOf = (
  rates: ExchangeRateTable | null,
  revenue: Money.Money | undefined,
  podOrders: ReadonlyArray<Order>
): { readonly inBase: MarginFigures | null; readonly noRateFor: ReadonlyArray<string> } => {
  const costs = podOrders.map((o) => o.order_total)
  if (rates === null || revenue === undefined || costs.some((c) => c === undefined)) return { inBase: null, noRateFor: [] }
  const converted = [revenue, ...costs.flatMap((c) => (c === undefined ? [] : [c]))].map((amount) => ({
    amount,
    inBase: toBase(rates, amount)
  }))
  const noRateFor = [...new Set(converted.filter((c) => c.inBase === undefined).map((c) => c.amount.currency))].sort()
  const [revenueInBase, ...costsInBase] = converted.flatMap((c) => (c.inBase === undefined ? [] : [c.inBase]))
  if (noRateFor.length > 0 || revenueInBase === undefined) return { inBase: null, noRateFor }
  return { inBase: figures(revenueInBase, costsInBase.reduce((sum, c) => plus(sum, c), Money.zero(rates.base))), noRateFor }
}

const orderMoneyOf = (
  order: ReportOrder,
  podOrders: ReadonlyArray<Order>,
  outcome: Outcome,
  rates: ExchangeRateTable | null
): OrderMoney => {
  const revenue = order.order.total
  const podCost = podOrders.every((o) => o.order_total !== undefined)
    ? sumOf(podOrders.flatMap((o) => (o.order_total === undefined ? [] : [o.order_total])))
    : undefined
  const native = outcome._tag === "Included" ? figures(outcome.revenue, outcome.cost) : undefined
  return {
    storeKey: order.storeKey,
    referenceId: order.referenceId,
    name: order.order.name,
    podOrderIds: podOrders.map((o) => o.order_id),
    revenue: revenue ?? null,
    podCost: podCost ?? null,
    margin: native?.margin ?? null,
    marginPercent: native?.marginPercent ?? null,
    leftOut: outcome._tag === "Excluded" ? outcome.reason : null,
    ...inBaseOf(rates, revenue, podOrders)
  }
}

interface Accumulator {
  orders: number
  revenue: Money.Money
  cost: Money.Money
  readonly skus: Map<string, { title: string; units: number; revenue: Money.Money; cost: Money.Money }>
}

export const moneySection = (
  period: ReportPeriod,
  orders: ReadonlyArray<ReportOrder>,
  pod: PodRecords,
  rates: ExchangeRateTable | null = null
): MoneySection => {
  const byStore = new Map<string, Accumulator>()
  const excluded: Array<MoneySection["excluded"][number]> = []
  const rows: Array<OrderMoney> = []
  let mixedCurrencies = 0
  for (const order of orders) {
    if (!pulledIn(period, order)) continue
    const podOrders = pod.ordersOf(order.referenceId).filter(isActiveOrder)
    if (podOrders.length === 0) continue
    const outcome = assess(order, podOrders)
    rows.push(orderMoneyOf(order, podOrders, outcome, rates))
    if (outcome._tag === "Excluded") {
      if (outcome.kind === "currencies") mixedCurrencies++
      excluded.push({ storeKey: order.storeKey, referenceId: order.referenceId, reason: outcome.reason })
      continue
    }
    const currency = outcome.revenue.currency
    const key = `${order.storeKey}\u0000${currency}`
    const acc = byStore.get(key) ?? { orders: 0, revenue: Money.zero(currency), cost: Money.zero(currency), skus: new Map() }
    acc.orders++
    acc.revenue = plus(acc.revenue, outcome.revenue)
    acc.cost = plus(acc.cost, outcome.cost)
    const weights = outcome.lines.map((l) => l.quantity)
    const revenueParts = allocate(outcome.revenue, weights)
    const costParts = allocate(outcome.cost, weights)
    // `allocate` gives one part per weight, so one per line.
    for (const [line, [revenuePart, costPart]] of Arr.zip(outcome.lines, Arr.zip(revenueParts, costParts))) {
      const sku = acc.skus.get(line.sku) ?? { title: line.title, units: 0, revenue: Money.zero(currency), cost: Money.zero(currency) }
      sku.units += line.quantity
      sku.revenue = plus(sku.revenue, revenuePart)
      sku.cost = plus(sku.cost, costPart)
      acc.skus.set(line.sku, sku)
    }
    byStore.set(key, acc)
  }

  const stores: Array<StoreMoney> = [...byStore.entries()].map(([key, acc]) => {
    const [storeKey = "", currency = ""] = key.split("\u0000")
    const bySku: Array<SkuMargin> = [...acc.skus.entries()]
      .map(([sku, s]) => ({ sku, title: s.title, units: s.units, ...figures(s.revenue, s.cost) }))
      .sort((a, b) => a.sku.localeCompare(b.sku))
    return { storeKey, currency, orders: acc.orders, ...figures(acc.revenue, acc.cost), bySku }
  }).sort((a, b) => a.storeKey.localeCompare(b.storeKey) || a.currency.localeCompare(b.currency))

  const sorted = rows.sort((a, b) => a.referenceId.localeCompare(b.referenceId))
  const inBase = rates === null ? null : inBaseTotals(rates, sorted)
  return {
    stores,
    overall: overallOf(stores),
    excluded: excluded.sort((a, b) => a.referenceId.localeCompare(b.referenceId)),
    orders: sorted,
    inBase,
    coverage: coverageOf(sorted, inBase, mixedCurrencies)
  }
}

/** The orders' figures in the base currency added up, overall and per store. */
const inBaseTotals = (rates: ExchangeRateTable, rows: ReadonlyArray<OrderMoney>): BaseCurrencyMoney => {
  const zero = Money.zero(rates.base)
  const total = (list: ReadonlyArray<OrderMoney>) => {
    const covered = list.flatMap((r) => (r.inBase === null ? [] : [r.inBase]))
    return {
      orders: covered.length,
      ...figures(covered.reduce((sum, f) => plus(sum, f.revenue), zero), covered.reduce((sum, f) => plus(sum, f.podCost), zero))
    }
  }
  const storeKeys = [...new Set(rows.map((r) => r.storeKey))].sort()
  const withoutRate = new Map<string, number>()
  for (const row of rows) {
    if (row.noRateFor.length > 0) withoutRate.set(row.noRateFor.join(" and "), (withoutRate.get(row.noRateFor.join(" and ")) ?? 0) + 1)
  }
  return {
    currency: rates.base,
    rates: rates.rates,
    ...total(rows),
    perStore: storeKeys.map((storeKey) => ({ storeKey, ...total(rows.filter((r) => r.storeKey === storeKey)) })),
    withoutRate: [...withoutRate.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([currency, orders]) => ({ currency, orders }))
  }
}

const ordersWord = (n: number) => `${n} order${n === 1 ? "" : "s"}`
const have = (n: number) => (n === 1 ? "has" : "have")

/** How many orders the margins cover, in the words the report's card uses. */
const coverageOf = (rows: ReadonlyArray<OrderMoney>, inBase: BaseCurrencyMoney | null, mixed: number): MoneySection["coverage"] => {
  const ofOrders = rows.length
  if (ofOrders === 0) return { orders: 0, ofOrders: 0, text: "no order of the period has a POD order yet" }
  if (inBase !== null) {
    const noTotal = rows.filter((r) => r.inBase === null && r.noRateFor.length === 0).length
    const reasons = [
      ...inBase.withoutRate.map((w) => `${w.orders} in ${w.currency} ${have(w.orders)} no rate`),
      ...(noTotal === 0 ? [] : [`${noTotal} ${have(noTotal)} no order total`])
    ]
    return {
      orders: inBase.orders,
      ofOrders,
      text: [`margin covers ${inBase.orders} of ${ordersWord(ofOrders)}`, ...reasons].join("; ")
    }
  }
  const covered = rows.filter((r) => r.leftOut === null)
  const currencies = [...new Set(covered.flatMap((r) => (r.revenue === null ? [] : [r.revenue.currency])))].sort()
  const noTotal = rows.length - covered.length - mixed
  const reasons = [
    ...(currencies.length > 1 ? [`in ${currencies.join(" and ")}, not added up (reports.exchangeRates adds them up)`] : []),
    ...(mixed === 0 ? [] : [`${mixed} ${have(mixed)} amounts in two currencies and no exchange rate`]),
    ...(noTotal === 0 ? [] : [`${noTotal} ${have(noTotal)} no order total`])
  ]
  return {
    orders: covered.length,
    ofOrders,
    text: [`${currencies.length > 1 ? "margins cover" : "margin covers"} ${covered.length} of ${ordersWord(ofOrders)}`, ...reasons].join(
      "; "
    )
  }
}

/** Store figures added up per currency. */
export const overallOf = (stores: ReadonlyArray<StoreMoney>): ReadonlyArray<CurrencyMoney> => {
  const byCurrency = new Map<string, { orders: number; revenue: Money.Money; cost: Money.Money }>()
  for (const store of stores) {
    const acc = byCurrency.get(store.currency) ?? { orders: 0, revenue: Money.zero(store.currency), cost: Money.zero(store.currency) }
    acc.orders += store.orders
    acc.revenue = plus(acc.revenue, store.revenue)
    acc.cost = plus(acc.cost, store.podCost)
    byCurrency.set(store.currency, acc)
  }
  return [...byCurrency.entries()].sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, acc]) => ({ currency, orders: acc.orders, ...figures(acc.revenue, acc.cost) }))
}
