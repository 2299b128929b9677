/**
 * Economy shipping (pod-openapi-v3.yaml, VendorShippingCoverageAPI):
 * `POST /api/v3/shipping/economy/coverage/check` and the `shipping_substitution`
 * a draft carries when the service moved it from Economy to Standard.
 *
 * Protobuf JSON leaves zero values out, so an uncovered ZIP may come without
 * `covered`, a covered one without `reason`, and an answer without `results`:
 * each decodes to its zero value here.
 */
import { Schema } from "effect"
import { Envelope, opt } from "./Common.js"
import { DraftSummary } from "./Drafts.js"

/** The largest `zip_codes` one check takes. */
export const MAX_COVERAGE_ZIPS = 100

const withZero = <S extends Schema.Schema.Any>(schema: S, zero: () => Schema.Schema.Type<S>) =>
  Schema.optionalWith(schema, { exact: true, nullable: true, default: zero })

/** Request body: 1 to 100 US ZIP codes, each 5 to 10 characters (a ZIP+4 is matched on its first five). */
export const EconomyCoverageRequest = Schema.Struct({
  zip_codes: Schema.Array(Schema.String.pipe(Schema.minLength(5), Schema.maxLength(10))).pipe(
    Schema.minItems(1),
    Schema.maxItems(MAX_COVERAGE_ZIPS)
  )
}).annotations({ identifier: "EconomyCoverageRequest" })

export const EconomyCoverageZip = Schema.Struct({
  /** The ZIP as matched: five digits. */
  zip_code: withZero(Schema.String, () => ""),
  covered: withZero(Schema.Boolean, () => false),
  /** Only when not covered; `uncovered_zip` is also the reason an order moved to Standard carries. */
  reason: withZero(Schema.String, () => "")
}).annotations({ identifier: "EconomyCoverageZip" })
export type EconomyCoverageZip = typeof EconomyCoverageZip.Type

export const EconomyCoverage = Schema.Struct({
  /** The coverage edition the answer came from; it changes when the carrier republishes coverage. */
  coverage_version: withZero(Schema.String, () => ""),
  /** One entry per requested ZIP, in the order requested. */
  results: withZero(Schema.Array(EconomyCoverageZip), () => [])
}).annotations({ identifier: "EconomyCoverage" })
export type EconomyCoverage = typeof EconomyCoverage.Type

export const EconomyCoverageResponse = Envelope(EconomyCoverage)

/** A shipping method the service changed before payment, e.g. Economy → Standard for `uncovered_zip`. */
export const ShippingSubstitution = Schema.Struct({
  from: opt(Schema.String),
  to: opt(Schema.String),
  reason: opt(Schema.String)
}).annotations({ identifier: "ShippingSubstitution" })
export type ShippingSubstitution = typeof ShippingSubstitution.Type

/**
 * What the pipeline keeps of a draft it just made (`DraftSummary`), and whether its shipping was
 * substituted. Spread rather than `Schema.extend`, so it still builds if `DraftSummary` gains the field.
 */
export const DraftSummaryWithShipping = Schema.Struct({ ...DraftSummary.fields, shipping_substitution: opt(ShippingSubstitution) })
  .annotations({ identifier: "DraftSummaryWithShipping" })
export type DraftSummaryWithShipping = typeof DraftSummaryWithShipping.Type
export const DraftSummaryWithShippingResponse = Envelope(DraftSummaryWithShipping)
