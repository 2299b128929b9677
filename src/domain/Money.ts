/**
 * Money: an exact amount in one currency.
 *
 * Held as one bigint count of nanos (10^-9 units), so arithmetic is exact and
 * no float ever touches an amount. The wire form of the POD service
 * (`{ currency_code, units, nanos }`, `units` as a number or a string) is
 * decoded and encoded by `MoneyFromWire`; the spec's sign rule (positive units
 * need nanos >= 0, negative units need nanos <= 0) is enforced on the way in
 * and always holds on the way out, because the split is by truncation.
 *
 * Operations over two amounts fail with `CurrencyMismatchError` when the
 * currencies differ: USD and EUR never add up silently.
 */
import { Data, Either, ParseResult, Schema } from "effect"

export const NANOS_PER_UNIT = 1_000_000_000n
const MAX_NANOS_PART = 999_999_999

/** ISO 4217 alphabetic code: three upper-case letters. */
export const CurrencyCode = Schema.String.pipe(
  Schema.pattern(/^[A-Z]{3}$/),
  Schema.annotations({ identifier: "CurrencyCode", description: "ISO 4217 code, three upper-case letters" })
)

export class Money extends Schema.Class<Money>("Money")({
  currency: CurrencyCode,
  /** The whole amount in nanos: units * 10^9 + nanos. */
  totalNanos: Schema.BigIntFromSelf
}) {
  /** Whole units, truncated toward zero (the wire `units`). */
  get units(): bigint {
    return this.totalNanos / NANOS_PER_UNIT
  }
  /** The fractional part in nanos, same sign as the amount (the wire `nanos`). */
  get nanos(): number {
    return Number(this.totalNanos % NANOS_PER_UNIT)
  }
  /** JSON (logs, snapshots, reports) shows the exact decimal: bigint has no JSON form. */
  toJSON(): { readonly currency: string; readonly amount: string } {
    return { currency: this.currency, amount: toDecimalString(this) }
  }
  override toString(): string {
    return `${toDecimalString(this)} ${this.currency}`
  }
}

export class CurrencyMismatchError extends Data.TaggedError("CurrencyMismatchError")<{
  readonly expected: string
  readonly actual: string
}> {
  override get message(): string {
    return `cannot combine ${this.actual} with ${this.expected}: amounts in different currencies never mix`
  }
}

export class InvalidMoneyError extends Data.TaggedError("InvalidMoneyError")<{
  readonly reason: string
}> {
  override get message(): string {
    return `invalid money amount: ${this.reason}`
  }
}

const INTEGER_TEXT = /^[+-]?\d+$/

const toBigIntUnits = (units: bigint | number | string): Either.Either<bigint, InvalidMoneyError> => {
  if (typeof units === "bigint") return Either.right(units)
  if (typeof units === "number") {
    return Number.isSafeInteger(units)
      ? Either.right(BigInt(units))
      : Either.left(new InvalidMoneyError({ reason: `units ${units} is not a safe integer` }))
  }
  const text = units.trim()
  return INTEGER_TEXT.test(text)
    ? Either.right(BigInt(text))
    : Either.left(new InvalidMoneyError({ reason: `units "${units}" is not an integer` }))
}

/**
 * Builds an amount from the wire parts, enforcing the nanos range and the sign
 * rule of the spec (zero units allow either sign of nanos).
 */
export const make = (
  currency: string,
  units: bigint | number | string,
  nanos: number = 0
): Either.Either<Money, InvalidMoneyError> =>
  Either.flatMap(toBigIntUnits(units), (wholeUnits) => {
    if (!/^[A-Z]{3}$/.test(currency)) {
      return Either.left(new InvalidMoneyError({ reason: `currency "${currency}" is not an ISO 4217 code` }))
    }
    if (!Number.isInteger(nanos) || Math.abs(nanos) > MAX_NANOS_PART) {
      return Either.left(new InvalidMoneyError({ reason: `nanos ${nanos} is outside -999999999..999999999` }))
    }
    if ((wholeUnits > 0n && nanos < 0) || (wholeUnits < 0n && nanos > 0)) {
      return Either.left(
        new InvalidMoneyError({ reason: `sign of nanos (${nanos}) disagrees with sign of units (${wholeUnits})` })
      )
    }
    return Either.right(new Money({ currency, totalNanos: wholeUnits * NANOS_PER_UNIT + BigInt(nanos) }))
  })

export const fromNanos = (currency: string, totalNanos: bigint): Money => new Money({ currency, totalNanos })

export const zero = (currency: string): Money => fromNanos(currency, 0n)

const sameCurrency = (a: Money, b: Money): Either.Either<void, CurrencyMismatchError> =>
  a.currency === b.currency
    ? Either.void
    : Either.left(new CurrencyMismatchError({ expected: a.currency, actual: b.currency }))

export const add = (a: Money, b: Money): Either.Either<Money, CurrencyMismatchError> =>
  Either.map(sameCurrency(a, b), () => fromNanos(a.currency, a.totalNanos + b.totalNanos))

export const subtract = (a: Money, b: Money): Either.Either<Money, CurrencyMismatchError> =>
  Either.map(sameCurrency(a, b), () => fromNanos(a.currency, a.totalNanos - b.totalNanos))

export const negate = (a: Money): Money => fromNanos(a.currency, -a.totalNanos)

/** Sum of amounts in `currency`; the empty sum is zero. */
export const sum = (currency: string, amounts: Iterable<Money>): Either.Either<Money, CurrencyMismatchError> => {
  let total = 0n
  for (const amount of amounts) {
    if (amount.currency !== currency) {
      return Either.left(new CurrencyMismatchError({ expected: currency, actual: amount.currency }))
    }
    total += amount.totalNanos
  }
  return Either.right(fromNanos(currency, total))
}

/**
 * Amount times a whole quantity (a line's unit price times its quantity).
 * A fractional quantity is a programming error, not a business case: it throws.
 */
export const multiply = (a: Money, quantity: number | bigint): Money => {
  if (typeof quantity === "number" && !Number.isSafeInteger(quantity)) {
    throw new RangeError(`Money.multiply: quantity ${quantity} is not a whole number`)
  }
  return fromNanos(a.currency, a.totalNanos * BigInt(quantity))
}

export const compare = (a: Money, b: Money): Either.Either<-1 | 0 | 1, CurrencyMismatchError> =>
  Either.map(sameCurrency(a, b), () => (a.totalNanos < b.totalNanos ? -1 : a.totalNanos > b.totalNanos ? 1 : 0))

export const equals = (a: Money, b: Money): boolean => a.currency === b.currency && a.totalNanos === b.totalNanos

export const isZero = (a: Money): boolean => a.totalNanos === 0n
export const isNegative = (a: Money): boolean => a.totalNanos < 0n
export const isPositive = (a: Money): boolean => a.totalNanos > 0n

/** Exact decimal text without trailing zeros: "12.5", "-0.000000001", "3". */
export const toDecimalString = (a: Money): string => {
  const negative = a.totalNanos < 0n
  const magnitude = negative ? -a.totalNanos : a.totalNanos
  const whole = (magnitude / NANOS_PER_UNIT).toString()
  const fraction = (magnitude % NANOS_PER_UNIT).toString().padStart(9, "0").replace(/0+$/, "")
  return `${negative ? "-" : ""}${whole}${fraction === "" ? "" : `.${fraction}`}`
}

const DECIMAL_TEXT = /^([+-]?)(\d+)(?:\.(\d{1,9}))?$/

/** Parses exact decimal text ("12.50", "-3", "0.000000001") with at most nine decimals. */
export const fromDecimalString = (currency: string, text: string): Either.Either<Money, InvalidMoneyError> => {
  const match = DECIMAL_TEXT.exec(text.trim())
  if (match === null) {
    return Either.left(new InvalidMoneyError({ reason: `"${text}" is not a decimal with at most 9 decimals` }))
  }
  const [, sign = "", whole = "0", fraction = ""] = match
  const magnitude = BigInt(whole) * NANOS_PER_UNIT + BigInt(fraction.padEnd(9, "0"))
  const totalNanos = sign === "-" ? -magnitude : magnitude
  return /^[A-Z]{3}$/.test(currency)
    ? Either.right(fromNanos(currency, totalNanos))
    : Either.left(new InvalidMoneyError({ reason: `currency "${currency}" is not an ISO 4217 code` }))
}

/**
 * Display text in a locale, rounded half-away-from-zero to the currency's
 * minor unit ("$1,234.50"). The exact decimal goes to Intl as a string, so
 * no precision is lost before rounding.
 */
export const format = (a: Money, locale: string = "en-US"): string =>
  new Intl.NumberFormat(locale, { style: "currency", currency: a.currency }).format(
    // Intl (ES2023) formats a decimal string exactly; lib ES2022's typing only names number | bigint.
    toDecimalString(a) as unknown as number
  )

/** The wire form of the POD service. `units` is a number when exact, else a string. */
export interface MoneyWire {
  readonly currency_code: string
  readonly units: number | string
  readonly nanos: number
}

export const toWire = (a: Money): MoneyWire => {
  const units = a.units
  const asNumber = Number(units)
  return {
    currency_code: a.currency,
    units: Number.isSafeInteger(asNumber) ? asNumber : units.toString(),
    nanos: a.nanos
  }
}

/**
 * Wire form as the spec names it; lenient on `units` (number or string). The
 * service writes protobuf JSON, which leaves zero values out: $0.50 comes as
 * `{ currency_code, nanos }`, $0 as `{ currency_code }`. A missing `units` or
 * `nanos` is 0, and a missing currency is USD, the service's currency unless
 * stated otherwise.
 */
export const MoneyWireSchema = Schema.Struct({
  currency_code: Schema.optional(Schema.String),
  units: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  nanos: Schema.optional(Schema.Number)
})

/** The currency of an amount whose `currency_code` was left out. */
export const DEFAULT_WIRE_CURRENCY = "USD"

/** Decodes the wire form into `Money` (sign rule enforced) and encodes it back. */
export const MoneyFromWire = Schema.transformOrFail(MoneyWireSchema, Schema.typeSchema(Money), {
  strict: true,
  decode: (wire, _options, ast) =>
    Either.match(make(wire.currency_code || DEFAULT_WIRE_CURRENCY, wire.units ?? 0, wire.nanos ?? 0), {
      onLeft: (error) => ParseResult.fail(new ParseResult.Type(ast, wire, error.message)),
      onRight: (money) => ParseResult.succeed(money)
    }),
  encode: (money) => ParseResult.succeed(toWire(money))
}).annotations({ identifier: "Money" })
