/**
 * Forward-compatible enums for responses: a known value decodes to its
 * literal type; a value the service added later is kept (branded
 * `UnknownEnumValue`, so code must say what it does with "something else")
 * and logged once per enum and value, never failing the decode.
 */
import { type Brand, Effect, ParseResult, Schema } from "effect"

export type UnknownEnumValue = string & Brand.Brand<"UnknownEnumValue">

export type Open<K extends string> = K | UnknownEnumValue

const UnknownEnumValueSchema = Schema.String.pipe(Schema.brand("UnknownEnumValue"))

/** Values already logged, per enum: "logged once" for the life of the process. */
const alreadyLogged = new Set<string>()

const logUnknownOnce = (enumName: string, value: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const key = `${enumName}\u0000${value}`
    if (alreadyLogged.has(key)) return Effect.void
    alreadyLogged.add(key)
    return Effect.logWarning("POD response carries an enum value this version does not know; kept as is").pipe(
      Effect.annotateLogs({ enum: enumName, value })
    )
  })

/**
 * How an enum's values are numbered on the wire: the number of the first value
 * (the rest follow in order), or one number per value (`undefined` for a value
 * that has no published number). Protobuf JSON may send either the name or the
 * number; 0 is "unspecified" and never names a value.
 */
export type EnumNumbering = number | ReadonlyArray<number | undefined>

export const OpenEnum = <const K extends readonly [string, ...Array<string>]>(
  enumName: string,
  known: K,
  numbering: EnumNumbering = 2
) => {
  const knownValues: ReadonlySet<string> = new Set(known)
  const isKnown = (value: string): value is K[number] => knownValues.has(value)
  const byNumber = new Map<number, K[number]>()
  known.forEach((name, index) => {
    const number = typeof numbering === "number" ? numbering + index : numbering[index]
    if (number !== undefined) byNumber.set(number, name)
  })
  return Schema.transformOrFail(
    Schema.Union(Schema.String, Schema.Number),
    Schema.Union(Schema.Literal(...known), UnknownEnumValueSchema),
    {
      strict: true,
      decode: (value) => {
        const name = typeof value === "number" ? (byNumber.get(value) ?? String(value)) : value
        return isKnown(name)
          ? ParseResult.succeed(name)
          : Effect.as(logUnknownOnce(enumName, name), UnknownEnumValueSchema.make(name))
      },
      encode: (value) => ParseResult.succeed(value)
    }
  ).annotations({ identifier: enumName })
}

/** True when `value` is one of `known` (narrows an `Open<K>` to `K`). */
export const isKnownValue = <K extends string>(known: ReadonlyArray<K>, value: string): value is K =>
  (known as ReadonlyArray<string>).includes(value)
