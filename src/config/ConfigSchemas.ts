import { Schema } from "effect"

/**
 * The pieces every section of the configuration is made of: secrets, URLs, numbers that may come
 * from `${NAME}` as strings, defaults, and the check for duplicate names in a list.
 */

// The message is overridden so that no validation error ever prints the value it refused.
export const Secret = Schema.Redacted(Schema.NonEmptyTrimmedString.annotations({
  message: () => ({ message: "expected a non-empty secret without leading or trailing spaces", override: true })
}))

export const Url = Schema.NonEmptyTrimmedString.pipe(
  Schema.filter((s) => URL.canParse(s) || `expected an absolute URL such as https://host/path, got "${s}"`)
)

// Numbers may come from ${NAME} as strings: accept "8088" where 8088 is expected.
const numberMessage = (what: string) => ({
  message: (issue: { readonly actual: unknown }) => ({ message: `expected ${what}, got ${JSON.stringify(issue.actual)}`, override: true })
})
export const IntLike = Schema.Union(Schema.Int, Schema.NumberFromString.pipe(Schema.int())).annotations(numberMessage("a whole number"))
export const NumberLike = Schema.Union(Schema.Number, Schema.NumberFromString).annotations(numberMessage("a number"))

export const withDefault = <S extends Schema.Schema.Any>(schema: S, value: () => Schema.Schema.Type<S>) =>
  Schema.optionalWith(schema, { default: value, exact: true })
export const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** The first item whose name an earlier one has, as a filter issue at `[...at, index, "<field>"]`; undefined when none. */
export const duplicateName = <T>(
  items: ReadonlyArray<T>,
  nameOf: (item: T) => string,
  at: ReadonlyArray<string>,
  field: string,
  what: string
) => {
  const seen = new Set<string>()
  for (const [index, item] of items.entries()) {
    const name = nameOf(item)
    if (seen.has(name)) return { path: [...at, index, field], message: `duplicate ${what} "${name}"` }
    seen.add(name)
  }
  return undefined
}
