/**
 * The money of the daily reports, per day and per week, per store and currency, pure: what the
 * console's overview shows. Each day's figures are the reconciliation report's own (its
 * `report.money.stores`, kept in the report's summary); a week adds up its days with the
 * report's own `overallOf`, one currency at a time. Two currencies are never added together.
 */
import { Either } from "effect"
import * as Money from "../domain/Money.js"
import { overallOf } from "./MoneyFigures.js"
import type { CurrencyMoney, StoreMoney } from "./ReportOutput.js"
import type { ReportSummary } from "./ReportSummary.js"

/** One day's or week's money: per store (each currency apart), and every store's per currency (the POD spend). */
export interface PeriodMoney {
  /** The day ("2026-11-20") or the Monday its week begins. */
  readonly start: string
  readonly days: number
  readonly stores: ReadonlyArray<StoreMoney>
  readonly total: ReadonlyArray<CurrencyMoney>
}

export interface MoneyByPeriod {
  readonly days: ReadonlyArray<PeriodMoney>
  readonly weeks: ReadonlyArray<PeriodMoney>
  /** When the newest daily report was written (its figures are as of then). */
  readonly asOf: string | null
}

const DAY_LABEL = /^\d{4}-\d{2}-\d{2}$/

const amount = (currency: string, text: string) => Either.getOrUndefined(Money.fromDecimalString(currency, text))

/** A day's store figures, from its summary: the per-store margins, or (older summaries) the per-currency ones as "every store". */
const storesOf = (summary: ReportSummary): ReadonlyArray<StoreMoney> =>
  (summary.marginsByStore ?? summary.margins.map((m) => ({ storeKey: "", ...m }))).flatMap((m) => {
    const revenue = amount(m.currency, m.revenue)
    const podCost = amount(m.currency, m.podCost)
    const margin = amount(m.currency, m.margin)
    return revenue === undefined || podCost === undefined || margin === undefined ? [] : [{
      storeKey: m.storeKey,
      currency: m.currency,
      orders: m.orders,
      revenue,
      podCost,
      margin,
      marginPercent: m.marginPercent,
      bySku: []
    }]
  })

/** The Monday of the ISO week a day ("2026-11-20") is in. */
export const weekOf = (day: string): string => {
  const date = new Date(`${day}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7))
  return date.toISOString().slice(0, 10)
}

/** The days' figures added up: per store (with `overallOf`, per currency), and over every store. */
const periodOf = (start: string, days: ReadonlyArray<ReadonlyArray<StoreMoney>>): PeriodMoney => {
  const all = days.flat()
  const storeKeys = [...new Set(all.map((s) => s.storeKey))].sort()
  const stores = storeKeys.flatMap((storeKey) =>
    overallOf(all.filter((s) => s.storeKey === storeKey)).map((c): StoreMoney => ({ storeKey, ...c, bySku: [] }))
  )
  return { start, days: days.length, stores, total: overallOf(all) }
}

/**
 * The last `dayCount` daily reports of every store (one local day each), and the last
 * `weekCount` weeks they fall in, newest first. A report of one store, or of a longer
 * period, is not a day of every store: left out.
 */
export const moneyByPeriod = (
  reports: ReadonlyArray<{ readonly store: string | null; readonly summary: ReportSummary | null }>,
  dayCount = 7,
  weekCount = 4
): MoneyByPeriod => {
  const daily = new Map<string, ReportSummary>()
  for (const r of reports) {
    const summary = r.summary
    if (r.store !== null || summary === null || summary.store !== null || !DAY_LABEL.test(summary.label)) continue
    const known = daily.get(summary.label)
    if (known === undefined || known.generatedAt < summary.generatedAt) daily.set(summary.label, summary)
  }
  const newestFirst = [...daily.entries()].sort(([a], [b]) => b.localeCompare(a))
  const weeks = new Map<string, Array<ReadonlyArray<StoreMoney>>>()
  for (const [label, summary] of newestFirst) {
    const week = weekOf(label)
    if (!weeks.has(week) && weeks.size >= weekCount) continue
    weeks.set(week, [...(weeks.get(week) ?? []), storesOf(summary)])
  }
  return {
    days: newestFirst.slice(0, dayCount).map(([label, summary]) => periodOf(label, [storesOf(summary)])),
    weeks: [...weeks.entries()].map(([start, days]) => periodOf(start, days)),
    asOf: [...daily.values()].map((s) => s.generatedAt).sort().reverse()[0] ?? null
  }
}
