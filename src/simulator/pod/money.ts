// Money on the wire: `{ currency_code, units, nanos }`. Internally every amount is
// an integer number of cents. The spec lets `units` travel as an integer or as a
// string; the simulator emits both, deterministically per record and seed.
import type { Json } from "./wire.js"
import { hashString } from "./random.js"

export interface MoneyWire {
  readonly currency_code: string
  readonly units: number | string
  readonly nanos: number
}

export const moneyFromCents = (cents: number, unitsAsString: boolean, currency = "USD"): MoneyWire => {
  const units = Math.trunc(cents / 100)
  const nanos = (cents - units * 100) * 10_000_000
  return { currency_code: currency, units: unitsAsString ? String(units) : units, nanos }
}

/** Whether records with this key emit `units` as a string under this seed. */
export const unitsAsStringFor = (seed: number, key: string): boolean => ((hashString(key) + seed) & 1) === 1

/** A Money writer bound to one record, so all amounts of a record share a form. */
export const moneyWriter = (seed: number, key: string): (cents: number) => Json => {
  const asText = unitsAsStringFor(seed, key)
  return (cents) => ({ ...moneyFromCents(cents, asText) })
}

/** Reads a Money value sent by a client; returns the issue when it breaks the spec's rules. */
export const readMoney = (value: unknown): { readonly cents: number } | { readonly issue: string } => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { issue: "must be a Money object" }
  const record = value as Record<string, unknown>
  const currency = record["currency_code"]
  if (typeof currency !== "string" || !/^[A-Z]{3}$/.test(currency)) return { issue: "currency_code must be ISO 4217" }
  const rawUnits = record["units"] ?? 0
  const units = typeof rawUnits === "string" && /^-?\d+$/.test(rawUnits) ? Number(rawUnits) : rawUnits
  if (typeof units !== "number" || !Number.isInteger(units)) return { issue: "units must be an integer" }
  const nanos = record["nanos"] ?? 0
  if (typeof nanos !== "number" || !Number.isInteger(nanos) || nanos < -999_999_999 || nanos > 999_999_999) {
    return { issue: "nanos must be an integer in -999999999..999999999" }
  }
  if ((units > 0 && nanos < 0) || (units < 0 && nanos > 0)) return { issue: "nanos sign must agree with units" }
  return { cents: units * 100 + Math.round(nanos / 10_000_000) }
}
