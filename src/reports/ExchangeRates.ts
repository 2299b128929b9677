/**
 * The exchange-rate table of `reports.exchangeRates`, pure: amounts in several
 * currencies brought to one base currency so that a margin can cover every
 * order. Rates are exact decimals (one unit of the currency in the base
 * currency); conversion is exact to the nano, rounded half away from zero.
 */
import * as Money from "../domain/Money.js"

export interface ExchangeRateTable {
  /** The currency every amount is brought to. */
  readonly base: string
  /** One unit of each currency in the base currency, as exact decimal text ("1.08"). */
  readonly rates: Readonly<Record<string, string>>
}

const RATE_TEXT = /^(\d+)(?:\.(\d{1,9}))?$/

/** A rate as nanos of the base currency per unit; undefined when the text is not a positive decimal with at most nine decimals. */
export const rateNanos = (text: string): bigint | undefined => {
  const match = RATE_TEXT.exec(text.trim())
  if (match === null) return undefined
  const [, whole = "0", fraction = ""] = match
  const nanos = BigInt(whole) * Money.NANOS_PER_UNIT + BigInt(fraction.padEnd(9, "0"))
  return nanos > 0n ? nanos : undefined
}

/** `amount` in the base currency, or undefined when the table has no rate for its currency. */
export const toBase = (table: ExchangeRateTable, amount: Money.Money): Money.Money | undefined => {
  if (amount.currency === table.base) return amount
  const rate = rateNanos(table.rates[amount.currency] ?? "")
  if (rate === undefined) return undefined
  const product = amount.totalNanos * rate
  const sign = product < 0n ? -1n : 1n
  const magnitude = sign * product
  const rounded = (magnitude + Money.NANOS_PER_UNIT / 2n) / Money.NANOS_PER_UNIT
  return Money.fromNanos(table.base, sign * rounded)
}
