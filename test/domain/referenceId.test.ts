import { Either, Option, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as ReferenceId from "../../src/domain/ReferenceId.js"

// Store keys as the config allows them ([a-z0-9-]+, at most 64); store order ids of any text, `:` and astral characters included.
const storeKey = fc.stringMatching(/^[a-z0-9-]{1,64}$/)
const storeOrderId = fc.string({ unit: "binary", minLength: 1, maxLength: 260 })

describe("ReferenceId", () => {
  it("is <store key>:<store order id> (the contract's spelling)", () => {
    expect(Either.getOrThrow(ReferenceId.make("acme-shopify", "5550001"))).toBe("acme-shopify:5550001")
    expect(ReferenceId.parse("acme-shopify:5550001")).toEqual(Option.some({ storeKey: "acme-shopify", storeOrderId: "5550001" }))
  })

  it("parses back what it makes, splitting at the first `:` (an order id may hold more)", () => {
    fc.assert(
      fc.property(storeKey, storeOrderId, (key, id) => {
        const made = ReferenceId.make(key, id)
        const fits = ReferenceId.lengthOf(key) + 1 + ReferenceId.lengthOf(id) <= ReferenceId.MAX_LENGTH
        expect(Either.isRight(made)).toBe(fits)
        if (Either.isRight(made)) expect(ReferenceId.parse(made.right)).toEqual(Option.some({ storeKey: key, storeOrderId: id }))
        else expect(made.left.problem).toBe("too_long")
      }),
      { numRuns: 500 }
    )
    expect(ReferenceId.parse("shop:a:b")).toEqual(Option.some({ storeKey: "shop", storeOrderId: "a:b" }))
  })

  it("refuses more than 255 characters, counted as the service and PostgreSQL count them (code points)", () => {
    const key = "acme-shopify"
    const fitting = "9".repeat(255 - key.length - 1)
    expect(Either.isRight(ReferenceId.make(key, fitting))).toBe(true)
    const tooLong = ReferenceId.make(key, `${fitting}9`)
    expect(Either.isLeft(tooLong) && tooLong.left.length).toBe(256)
    expect(Either.isLeft(Schema.decodeEither(ReferenceId.ReferenceId)(`${key}:${fitting}9`))).toBe(true)
    // 242 emoji are 484 UTF-16 units but 242 characters: the id fits.
    expect(Either.isRight(ReferenceId.make(key, "🎁".repeat(242)))).toBe(true)
  })

  it("refuses what is not one of ours in form", () => {
    for (const text of ["", "acme", "acme:", ":1001", "Acme:1001", "shopify_12345", "a b:1"]) {
      expect(ReferenceId.parse(text)).toEqual(Option.none())
    }
    expect(Either.isLeft(ReferenceId.make("acme:x", "1"))).toBe(true)
    expect(Either.isLeft(ReferenceId.make("acme", ""))).toBe(true)
  })

  it("knows an order by its reference id, or by a stand-in that fits the column when that is too long", () => {
    fc.assert(
      fc.property(storeKey, storeOrderId, (key, id) => {
        const stored = ReferenceId.keyOf(key, id)
        expect(ReferenceId.lengthOf(stored)).toBeLessThanOrEqual(ReferenceId.MAX_LENGTH)
        const made = ReferenceId.make(key, id)
        if (Either.isRight(made)) expect(stored).toBe(made.right)
        else expect(Option.map(ReferenceId.parse(stored), (p) => p.storeKey)).toEqual(Option.some(key))
      }),
      { numRuns: 500 }
    )
    // Two long ids that share their start still get two stand-ins (the column is unique).
    const start = "x".repeat(300)
    expect(ReferenceId.keyOf("feed", `${start}1`)).not.toBe(ReferenceId.keyOf("feed", `${start}2`))
  })
})
