// Economy shipping: POST /api/v3/shipping/economy/coverage/check, and what the
// service does with an Economy draft (pod-openapi-v3.yaml, VendorShippingCoverageAPI):
// - Economy is carried by one carrier that does not serve every US ZIP. An Economy
//   order to an uncovered ZIP is not refused: it is moved to Standard (and priced
//   as Standard), and its draft and order carry `shipping_substitution`
//   { from: METHOD_ECONOMY, to: METHOD_STANDARD, reason: uncovered_zip }.
// - Offshore and military destinations, and anything outside the US, are refused
//   Economy outright (400 on data.shipping_method).
// Coverage here is deterministic: ZIPs whose first three digits fall in
// UNCOVERED_PREFIX_RANGES are uncovered, plus any ZIP marked with
// `POST /__sim/economy/coverage { uncovered: [...], covered: [...] }` (cleared by
// /__sim/reset). Each admin change is a new coverage edition (`coverage_version`).
import type { Route, RouteContext } from "./routes.js"
import type { AddressRecord } from "./state.js"
import type { Json, SimResponse } from "./wire.js"
import { invalidArgument, isRecord, success } from "./wire.js"

export const UNCOVERED_ZIP = "uncovered_zip"

/** Rural and far-away three-digit prefixes the simulated carrier does not serve (inclusive ranges). */
export const UNCOVERED_PREFIX_RANGES: ReadonlyArray<readonly [from: string, to: string]> = [
  ["006", "009"], // Puerto Rico, Virgin Islands
  ["090", "099"], // military (AE)
  ["340", "340"], // military (AA)
  ["580", "599"], // North Dakota, Montana
  ["820", "831"], // Wyoming
  ["962", "969"], // military (AP), Hawaii, Guam
  ["995", "999"] // Alaska
]

const US_ZIP = /^(\d{5})(?:-?\d{4})?$/

/** The five-digit ZIP a US ZIP or ZIP+4 is matched on; undefined when it is neither. */
export const zip5Of = (zip: string): string | undefined => US_ZIP.exec(zip.trim())?.[1]

const MILITARY_STATES = new Set(["AA", "AE", "AP"])
const OFFSHORE_STATES = new Set(["AK", "HI", "PR", "VI", "GU", "AS", "MP", "FM", "MH", "PW"])

/** Why a destination cannot ship Economy at all, or undefined when it may. */
export const economyRefusal = (address: AddressRecord | null): string | undefined => {
  if (address === null) return undefined
  const country = (address["country_code"] ?? "").toUpperCase()
  const state = (address["state_code"] ?? "").toUpperCase()
  if (country !== "US") return "Economy ships within the US only"
  if (MILITARY_STATES.has(state)) return "Economy does not ship to military addresses"
  if (OFFSHORE_STATES.has(state)) return "Economy does not ship to offshore destinations"
  return undefined
}

export interface ShippingSubstitution {
  readonly from: string
  readonly to: string
  readonly reason: string
}

export class EconomyCoverage {
  private readonly uncovered = new Set<string>()
  private readonly covered = new Set<string>()
  private edition = 1

  constructor(private readonly seed: number) {}

  get version(): string {
    return `sim-${this.seed}.${this.edition}`
  }

  /** Whether the carrier serves a five-digit ZIP: the admin marks first, then the prefix rule. */
  covers(zip5: string): boolean {
    if (this.uncovered.has(zip5)) return false
    if (this.covered.has(zip5)) return true
    const prefix = zip5.slice(0, 3)
    return !UNCOVERED_PREFIX_RANGES.some(([from, to]) => prefix >= from && prefix <= to)
  }

  mark(uncovered: ReadonlyArray<string>, covered: ReadonlyArray<string>): void {
    for (const zip of uncovered) {
      this.covered.delete(zip)
      this.uncovered.add(zip)
    }
    for (const zip of covered) {
      this.uncovered.delete(zip)
      this.covered.add(zip)
    }
    this.edition += 1
  }

  reset(): void {
    this.uncovered.clear()
    this.covered.clear()
    this.edition = 1
  }

  /** What the service does with a new draft's shipping: refuse Economy, move it to Standard, or keep it. */
  forDraft(method: string, address: AddressRecord | null): { readonly refused: string } | { readonly substitution?: ShippingSubstitution } {
    if (method !== "METHOD_ECONOMY" || address === null) return {}
    const refused = economyRefusal(address)
    if (refused !== undefined) return { refused }
    const zip5 = zip5Of(address["zip_code"] ?? "")
    return zip5 !== undefined && this.covers(zip5)
      ? {}
      : { substitution: { from: "METHOD_ECONOMY", to: "METHOD_STANDARD", reason: UNCOVERED_ZIP } }
  }
}

const checkHandler = (coverage: EconomyCoverage) => (context: RouteContext): SimResponse => {
  const body = context.body
  const zips = isRecord(body) ? body["zip_codes"] : undefined
  if (!Array.isArray(zips)) return invalidArgument([{ field: "zip_codes", issue: zips === undefined ? "is required" : "must be an array" }])
  if (zips.length < 1 || zips.length > 100) return invalidArgument([{ field: "zip_codes", issue: "must hold 1 to 100 ZIP codes" }])
  const issues: Array<{ field: string; issue: string }> = []
  const matched = zips.map((zip: unknown, i) => {
    const field = `zip_codes[${i}]`
    if (typeof zip !== "string") return void issues.push({ field, issue: "must be a string" })
    if (zip.length < 5 || zip.length > 10) return void issues.push({ field, issue: "must be 5 to 10 characters" })
    const zip5 = zip5Of(zip)
    if (zip5 === undefined) issues.push({ field, issue: "must be a US ZIP code: five digits, or ZIP+4" })
    return zip5
  })
  if (issues.length > 0) return invalidArgument(issues)
  // Protobuf JSON leaves zero values out: `covered: false` is sent as no `covered` at all.
  const results: Array<Json> = matched.map((zip5) =>
    coverage.covers(zip5!) ? { zip_code: zip5!, covered: true } : { zip_code: zip5!, reason: UNCOVERED_ZIP }
  )
  return success({ coverage_version: coverage.version, results })
}

const readZips = (value: unknown): ReadonlyArray<string> | string => {
  if (value === undefined) return []
  if (!Array.isArray(value)) return "must be an array of ZIP codes"
  const out: Array<string> = []
  for (const zip of value as ReadonlyArray<unknown>) {
    const zip5 = typeof zip === "string" ? zip5Of(zip) : undefined
    if (zip5 === undefined) return `${JSON.stringify(zip)} is not a US ZIP code`
    out.push(zip5)
  }
  return out
}

export const coverageRoutes = (coverage: EconomyCoverage): ReadonlyArray<Route> => [
  { method: "POST", pattern: "/api/v3/shipping/economy/coverage/check", auth: "v3", handle: checkHandler(coverage) }
]

/** `GET /__sim/economy/coverage`; `POST /__sim/economy/coverage { uncovered?: [zip], covered?: [zip] }` (a new edition). */
export const coverageAdminRoutes = (coverage: EconomyCoverage): ReadonlyArray<Route> => [
  {
    method: "GET",
    pattern: "/__sim/economy/coverage",
    auth: "admin",
    handle: () => ({
      status: 200,
      body: { coverage_version: coverage.version, uncovered_prefix_ranges: UNCOVERED_PREFIX_RANGES.map(([a, b]) => `${a}-${b}`) }
    })
  },
  {
    method: "POST",
    pattern: "/__sim/economy/coverage",
    auth: "admin",
    handle: (context) => {
      const body = isRecord(context.body) ? context.body : {}
      const uncovered = readZips(body["uncovered"])
      const covered = readZips(body["covered"])
      if (typeof uncovered === "string") return { status: 400, body: { error: `uncovered: ${uncovered}` } }
      if (typeof covered === "string") return { status: 400, body: { error: `covered: ${covered}` } }
      coverage.mark(uncovered, covered)
      return { status: 200, body: { coverage_version: coverage.version } }
    }
  }
]
