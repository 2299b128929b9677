import { Either, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Money from "../../src/domain/Money.js"

const currency = fc.constantFrom("USD", "EUR", "JPY", "GBP")
// Up to ±10^15 units: far beyond 2^53 nanos, so a float anywhere would show.
const totalNanos = fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n })
const usd = totalNanos.map((n) => Money.fromNanos("USD", n))
const anyMoney = fc.tuple(currency, totalNanos).map(([c, n]) => Money.fromNanos(c, n))

const right = <A, E>(either: Either.Either<A, E>): A => Either.getOrThrow(either)

const signRuleHolds = (wire: { readonly units?: number | string | undefined; readonly nanos?: number | undefined }): boolean => {
  const units = BigInt(wire.units ?? 0)
  const nanos = wire.nanos ?? 0
  return (units > 0n ? nanos >= 0 : true) && (units < 0n ? nanos <= 0 : true) && Math.abs(nanos) <= 999_999_999
}

describe("Money", () => {
  it("adds exactly where floats would not (0.1 + 0.2 = 0.3)", () => {
    const a = right(Money.make("USD", 0, 100_000_000))
    const b = right(Money.make("USD", 0, 200_000_000))
    expect(Money.toDecimalString(right(Money.add(a, b)))).toBe("0.3")
  })

  it("sum is associative and commutative", () => {
    fc.assert(
      fc.property(usd, usd, usd, (a, b, c) => {
        const left = right(Money.add(right(Money.add(a, b)), c))
        const rightAssoc = right(Money.add(a, right(Money.add(b, c))))
        expect(Money.equals(left, rightAssoc)).toBe(true)
        expect(Money.equals(right(Money.add(a, b)), right(Money.add(b, a)))).toBe(true)
      })
    )
  })

  it("sum of a list does not depend on its order, and the empty sum is zero", () => {
    fc.assert(
      fc.property(fc.array(usd, { maxLength: 20 }), (amounts) => {
        const forward = right(Money.sum("USD", amounts))
        const backward = right(Money.sum("USD", [...amounts].reverse()))
        expect(Money.equals(forward, backward)).toBe(true)
      })
    )
    expect(Money.isZero(right(Money.sum("USD", [])))).toBe(true)
  })

  it("multiply by a quantity equals the repeated sum", () => {
    fc.assert(
      fc.property(usd, fc.integer({ min: 0, max: 60 }), (price, quantity) => {
        const repeated = right(Money.sum("USD", Array.from({ length: quantity }, () => price)))
        expect(Money.equals(Money.multiply(price, quantity), repeated)).toBe(true)
        expect(Money.equals(Money.multiply(price, BigInt(quantity)), repeated)).toBe(true)
      })
    )
  })

  it("refuses a fractional quantity", () => {
    expect(() => Money.multiply(Money.zero("USD"), 1.5)).toThrow(RangeError)
  })

  it("the sign rule always holds in the wire form of any amount, including results of arithmetic", () => {
    fc.assert(
      fc.property(usd, usd, fc.integer({ min: -1000, max: 1000 }), (a, b, q) => {
        for (const m of [a, b, right(Money.add(a, b)), right(Money.subtract(a, b)), Money.multiply(a, q), Money.negate(b)]) {
          expect(signRuleHolds(Money.toWire(m))).toBe(true)
        }
      })
    )
  })

  it("make rejects nanos whose sign disagrees with units, and out-of-range nanos", () => {
    expect(Either.isLeft(Money.make("USD", 1, -5))).toBe(true)
    expect(Either.isLeft(Money.make("USD", -1, 5))).toBe(true)
    expect(Either.isLeft(Money.make("USD", 0, 1_000_000_000))).toBe(true)
    expect(Either.isLeft(Money.make("USD", 1.5, 0))).toBe(true)
    expect(Either.isLeft(Money.make("usd", 1, 0))).toBe(true)
    // zero units allow either sign
    expect(Money.toDecimalString(right(Money.make("USD", 0, -5)))).toBe("-0.000000005")
    expect(Money.toDecimalString(right(Money.make("USD", "-3", -250_000_000)))).toBe("-3.25")
  })

  it("units may be given as a number or a string, beyond 2^53 as a string", () => {
    const big = right(Money.make("USD", "123456789012345678901", 1))
    expect(big.units).toBe(123456789012345678901n)
    expect(Money.toWire(big)).toEqual({ currency_code: "USD", units: "123456789012345678901", nanos: 1 })
    expect(Money.toWire(right(Money.make("USD", " 42 ", 0)))).toEqual({ currency_code: "USD", units: 42, nanos: 0 })
  })

  it("round-trips the wire form through the schema, units as number or string", () => {
    const decode = Schema.decodeUnknownSync(Money.MoneyFromWire)
    const encode = Schema.encodeSync(Money.MoneyFromWire)
    fc.assert(
      fc.property(anyMoney, fc.boolean(), (m, unitsAsString) => {
        const wire = encode(m)
        expect(signRuleHolds(wire)).toBe(true)
        const sent = unitsAsString ? { ...wire, units: String(wire.units) } : wire
        expect(Money.equals(decode(sent), m)).toBe(true)
      })
    )
  })

  it("the schema refuses a wire amount that breaks the sign rule", () => {
    const decode = Schema.decodeUnknownEither(Money.MoneyFromWire)
    expect(Either.isLeft(decode({ currency_code: "USD", units: "2", nanos: -1 }))).toBe(true)
    expect(Either.isLeft(decode({ currency_code: "USD", units: "2.5", nanos: 0 }))).toBe(true)
    expect(Either.isRight(decode({ currency_code: "USD", units: 2 }))).toBe(true)
  })

  it("compare is a total order consistent with subtraction", () => {
    fc.assert(
      fc.property(usd, usd, usd, (a, b, c) => {
        const ab = right(Money.compare(a, b))
        const ba = right(Money.compare(b, a))
        expect(ab + ba).toBe(0) // antisymmetric
        expect(ab === 0).toBe(Money.equals(a, b))
        expect(right(Money.compare(a, a))).toBe(0) // reflexive
        if (ab <= 0 && right(Money.compare(b, c)) <= 0) expect(right(Money.compare(a, c))).toBeLessThanOrEqual(0) // transitive
        const diff = right(Money.subtract(a, b))
        expect(ab).toBe(Money.isNegative(diff) ? -1 : Money.isZero(diff) ? 0 : 1)
      })
    )
  })

  it("never mixes currencies", () => {
    const usdAmount = right(Money.make("USD", 1, 0))
    const eurAmount = right(Money.make("EUR", 1, 0))
    const mismatch = Money.add(usdAmount, eurAmount)
    expect(Either.isLeft(mismatch)).toBe(true)
    if (Either.isLeft(mismatch)) {
      expect(mismatch.left).toBeInstanceOf(Money.CurrencyMismatchError)
      expect(mismatch.left.message).toContain("EUR")
    }
    expect(Either.isLeft(Money.compare(usdAmount, eurAmount))).toBe(true)
    expect(Either.isLeft(Money.sum("USD", [usdAmount, eurAmount]))).toBe(true)
    expect(Either.isLeft(Money.subtract(eurAmount, usdAmount))).toBe(true)
  })

  it("decimal text round-trips exactly", () => {
    fc.assert(
      fc.property(anyMoney, (m) => {
        const text = Money.toDecimalString(m)
        expect(text).toMatch(/^-?\d+(\.\d{1,9})?$/)
        expect(Money.equals(right(Money.fromDecimalString(m.currency, text)), m)).toBe(true)
      })
    )
    expect(Either.isLeft(Money.fromDecimalString("USD", "1.0000000001"))).toBe(true)
    expect(Either.isLeft(Money.fromDecimalString("USD", "1e3"))).toBe(true)
  })

  it("formats for display, rounding half away from zero to the currency's minor unit", () => {
    expect(Money.format(right(Money.fromDecimalString("USD", "1234.5")))).toBe("$1,234.50")
    expect(Money.format(right(Money.fromDecimalString("USD", "0.005")))).toBe("$0.01")
    expect(Money.format(right(Money.fromDecimalString("USD", "-0.005")))).toBe("-$0.01")
    expect(Money.format(right(Money.fromDecimalString("JPY", "1234.5")))).toBe("¥1,235")
    expect(Money.format(right(Money.fromDecimalString("EUR", "1234.5")), "de-DE")).toBe("1.234,50\u00a0€")
    // beyond float precision the digits are still exact
    expect(Money.format(right(Money.fromDecimalString("USD", "12345678901234567.125")))).toBe("$12,345,678,901,234,567.13")
  })

  it("formatted cents agree with the exact amount for any amount with at most two decimals", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }), (cents) => {
        const m = Money.fromNanos("USD", cents * 10_000_000n)
        const digits = Money.format(m).replace(/[^0-9]/g, "")
        const magnitude = cents < 0n ? -cents : cents
        expect(digits).toBe(magnitude.toString().padStart(3, "0"))
        expect(Money.format(m).startsWith("-")).toBe(cents < 0n)
      })
    )
  })
})
