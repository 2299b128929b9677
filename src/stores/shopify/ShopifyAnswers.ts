/**
 * Pure readings of Shopify's answers, beside what ShopifyGraphql does with them:
 *
 * - the GraphQL envelope (`data`, `errors[]` with `path` and `extensions.code`, `extensions.cost`);
 * - a partial answer: `errors[]` that are all `ACCESS_DENIED` beside good `data` keep the data, and
 *   the denied fields are recorded (store-apis.md §0, "Partial answers");
 * - a shop Shopify has made unavailable: 402 (frozen, its bill unpaid) or 423 (locked), whose body is
 *   `{"errors": "…"}` as a string, not a GraphQL error list.
 */
import { Either, Schema } from "effect"

const ThrottleStatusSchema = Schema.Struct({
  maximumAvailable: Schema.Number,
  currentlyAvailable: Schema.Number,
  restoreRate: Schema.Number
})

const GraphqlError = Schema.Struct({
  message: Schema.String,
  path: Schema.optional(Schema.Array(Schema.Union(Schema.String, Schema.Number))),
  extensions: Schema.optional(Schema.Struct({ code: Schema.optional(Schema.String) }))
})
export type GraphqlError = typeof GraphqlError.Type

const Envelope = Schema.Struct({
  data: Schema.optional(Schema.Unknown),
  errors: Schema.optional(Schema.Array(GraphqlError)),
  extensions: Schema.optional(
    Schema.Struct({
      cost: Schema.optional(
        Schema.Struct({
          requestedQueryCost: Schema.optional(Schema.NullOr(Schema.Number)),
          actualQueryCost: Schema.optional(Schema.NullOr(Schema.Number)),
          throttleStatus: ThrottleStatusSchema
        })
      )
    })
  )
})
export const decodeEnvelope = Schema.decodeUnknownEither(Schema.parseJson(Envelope))

export const codeOf = (error: GraphqlError): string | undefined => error.extensions?.code

export const hasCode = (errors: ReadonlyArray<GraphqlError> | undefined, code: string): boolean =>
  errors?.some((e) => codeOf(e) === code) === true

/** A field Shopify withheld: where it is in `data` (as `errors[].path` says) and Shopify's words. */
export interface DeniedField {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

/**
 * Whether the denied field's parent is there in `data`: the field alone is null. A denied non-null
 * field takes its parent with it (GraphQL's null propagation), and then more than the field is gone.
 */
const parentPresent = (data: unknown, path: ReadonlyArray<string | number>): boolean => {
  let at: unknown = data
  for (const step of path.slice(0, -1)) {
    if (typeof at !== "object" || at === null) return false
    at = (at as Record<string | number, unknown>)[step]
  }
  return typeof at === "object" && at !== null
}

/**
 * The denied fields of an answer whose every error is `ACCESS_DENIED` on a field whose parent is
 * there: the rest of `data` is good. Undefined when the answer is not such a partial one.
 */
export const partialAnswer = (
  data: unknown,
  errors: ReadonlyArray<GraphqlError>
): ReadonlyArray<DeniedField> | undefined => {
  if (data === undefined || data === null || errors.length === 0) return undefined
  const denied: Array<DeniedField> = []
  for (const error of errors) {
    if (codeOf(error) !== "ACCESS_DENIED" || error.path === undefined || !parentPresent(data, error.path)) return undefined
    denied.push({ path: error.path, message: error.message })
  }
  return denied
}

/** The scope handles a denial names (`Required access: \`read_products\` access scope.`). */
export const scopesNamedIn = (message: string): ReadonlyArray<string> =>
  [...message.matchAll(/`([a-z_]+)` access scope/g)].map((m) => m[1] ?? "")

const ErrorsText = Schema.Struct({ errors: Schema.String })
const decodeErrorsText = Schema.decodeUnknownEither(Schema.parseJson(ErrorsText))

/**
 * What a 402 or 423 means, with Shopify's own words from the body; undefined for any other status.
 * Both refuse every request until the shop's owner settles it with Shopify: an outage of the store.
 */
export const unavailableShop = (status: number, body: string): string | undefined => {
  if (status !== 402 && status !== 423) return undefined
  const said = Either.match(decodeErrorsText(body), { onLeft: () => body.trim().slice(0, 200), onRight: (b) => b.errors })
  const quoted = said === "" ? "" : ` ("${said}")`
  return status === 402
    ? `the shop is frozen${quoted}: Shopify refuses every request until the shop's owner pays the outstanding bill in the Shopify admin`
    : `the shop is locked${quoted}: Shopify refuses every request until the shop's owner settles it with Shopify support`
}
