/**
 * Amounts as plain text for spreadsheets, pure: the currency's own decimals
 * (JPY 0, USD 2, BHD 3, as Intl knows them), rounded half away from zero from
 * the exact amount, no symbol and no grouping, so a spreadsheet reads a number.
 */
import type * as Money from "../domain/Money.js"

/** The currency's minor-unit digits as Intl knows them; 2 for a code Intl refuses. */
export const currencyDigits = (currency: string): number => {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    return 2
  }
}

/** "1234.50" (USD), "1235" (JPY), "-0.01": exact rounding of the nanos, never through a float. */
export const plainAmount = (amount: Money.Money): string => {
  const digits = Math.min(9, Math.max(0, currencyDigits(amount.currency)))
  const step = 10n ** BigInt(9 - digits)
  const negative = amount.totalNanos < 0n
  const magnitude = negative ? -amount.totalNanos : amount.totalNanos
  const minor = magnitude / step + (2n * (magnitude % step) >= step ? 1n : 0n)
  const unit = 10n ** BigInt(digits)
  const whole = (minor / unit).toString()
  const fraction = digits === 0 ? "" : `.${(minor % unit).toString().padStart(digits, "0")}`
  return `${negative && minor !== 0n ? "-" : ""}${whole}${fraction}`
}
