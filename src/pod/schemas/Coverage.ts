/**
 * Economy shipping (pod-openapi-v3.yaml, VendorShippingCoverageAPI):
 * `POST /api/v3/shipping/economy/coverage/check` (a draft the service moved from
 * Economy to Standard says so in its `shipping_substitution`, Common.ts).
 *
 * Protobuf JSON leaves zero values out, so an uncovered ZIP may come without
 * `covered`, a covered one without `reason`, and an answer without `results`:
 * each decodes to its zero value here.
 */
import { Schema } from "effect"
import { Envelope } from "./Common.js"

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
