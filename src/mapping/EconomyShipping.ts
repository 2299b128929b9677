import type { CreateDraftInput } from "../pod/schemas/DraftRequests.js"

/**
 * Economy shipping (METHOD_ECONOMY), pure. The POD service's Economy carrier
 * serves only part of the US: an Economy order to a ZIP outside its coverage is
 * not refused but moved to Standard (and charged as Standard), and offshore,
 * military and non-US destinations are refused Economy outright
 * (pod-openapi-v3.yaml, VendorShippingCoverageAPI). podsync therefore checks
 * coverage before drafting an Economy order and, for an uncovered ZIP, either
 * sends it as Standard itself or holds it, as the store's
 * `shipping.economyUncovered` says.
 */

export const ECONOMY = "METHOD_ECONOMY"
export const STANDARD = "METHOD_STANDARD"

/** `shipping.economyUncovered`: send an uncovered Economy order as Standard, or hold it for a person. */
export type EconomyUncoveredPolicy = "standard" | "hold"

/** How long an order held for an uncovered ZIP waits before its coverage is checked again (coverage editions change rarely). */
export const ECONOMY_RECHECK_MS = 24 * 60 * 60 * 1000

const US_ZIP = /^(\d{5})(?:-?\d{4})?$/

/** The five digits a US ZIP or ZIP+4 is matched on; undefined when it is neither. */
export const zip5Of = (zip: string): string | undefined => US_ZIP.exec(zip.trim())?.[1]

// Refused outright by the service ("offshore and military destinations"). The published text names
// no list: these are the US military codes and the states and territories off the mainland.
const MILITARY_STATES: ReadonlySet<string> = new Set(["AA", "AE", "AP"])
const OFFSHORE_STATES: ReadonlySet<string> = new Set(["AK", "HI", "PR", "VI", "GU", "AS", "MP", "FM", "MH", "PW"])

export type EconomyDestination =
  | { readonly _tag: "Zip"; readonly zip5: string }
  | { readonly _tag: "Refused"; readonly why: string }
  | { readonly _tag: "BadZip"; readonly zip: string }

/** Where an Economy order ships, as far as Economy is concerned: a ZIP to check, a destination refused, or no usable ZIP. */
export const economyDestination = (address: {
  readonly country_code: string
  readonly state_code?: string | undefined
  readonly zip_code: string
}): EconomyDestination => {
  const country = address.country_code.toUpperCase()
  const state = (address.state_code ?? "").toUpperCase()
  if (country !== "US") {
    return { _tag: "Refused", why: `it ships to ${country || "an address without a country"}, and Economy ships within the US only` }
  }
  if (MILITARY_STATES.has(state)) return { _tag: "Refused", why: `it ships to a military address (${state}), which Economy does not serve` }
  if (OFFSHORE_STATES.has(state)) return { _tag: "Refused", why: `it ships to ${state}, an offshore destination Economy does not serve` }
  const zip5 = zip5Of(address.zip_code)
  return zip5 === undefined ? { _tag: "BadZip", zip: address.zip_code } : { _tag: "Zip", zip5 }
}

/** Why planning holds an Economy order before any call, in the seller's words; undefined when its ZIP is to be checked. */
export const economyDestinationProblem = (
  destination: EconomyDestination
): { readonly code: "economy_unavailable" | "address"; readonly message: string } | undefined => {
  switch (destination._tag) {
    case "Zip":
      return undefined
    case "Refused":
      return {
        code: "economy_unavailable",
        message: `the order's shipping maps to Economy (METHOD_ECONOMY), but ${destination.why}: the POD service refuses it. ` +
          `Map this shipping rate to another method in the store's shipping.byTitle, or change the order's shipping in the store`
      }
    case "BadZip":
      return {
        code: "address",
        message: `shipping address postal code (zip_code) "${destination.zip}" is not a US ZIP code (five digits, or ZIP+4), ` +
          `which Economy shipping needs to check the carrier's coverage; fix the address in the store`
      }
  }
}

/** What the coverage check said of one ZIP (or that it could not be asked). */
export type ZipCoverage =
  | { readonly _tag: "Covered"; readonly version: string }
  | { readonly _tag: "Uncovered"; readonly reason: string; readonly version: string }
  | { readonly _tag: "Unchecked"; readonly error: string }

/** The coverage answers of one check, by five-digit ZIP. A ZIP the answer does not mention stays unknown. */
export const coverageByZip = (
  results: ReadonlyArray<{ readonly zip_code: string; readonly covered: boolean; readonly reason: string }>,
  version: string
): ReadonlyMap<string, ZipCoverage> =>
  new Map(results.flatMap((r): ReadonlyArray<readonly [string, ZipCoverage]> => {
    const zip5 = zip5Of(r.zip_code)
    if (zip5 === undefined) return []
    return [[zip5, r.covered ? { _tag: "Covered", version } : { _tag: "Uncovered", reason: r.reason || "uncovered_zip", version }]]
  }))

/** What is recorded with an order held for an uncovered ZIP; the match stage reads it back. */
export interface EconomyHoldDetails {
  readonly message: string
  readonly zip: string
  readonly coverageVersion: string
  /** ISO time after which the coverage is checked again. */
  readonly recheckAt: string
}

export type EconomyDecision =
  /** Not Economy, or Economy to a covered ZIP: draft as planned (`note`: said in the order's story). */
  | { readonly _tag: "AsPlanned"; readonly note?: string }
  /** Uncovered, policy `standard`: draft this instead, and say so in the order's story. */
  | {
    readonly _tag: "AsStandard"
    readonly draft: CreateDraftInput
    readonly reason: string
    readonly data: Readonly<Record<string, string>>
  }
  /** Uncovered, policy `hold`. */
  | { readonly _tag: "Hold"; readonly details: EconomyHoldDetails; readonly recheckAt: Date }
  /** The coverage could not be asked, and the policy is `hold`: try again later. */
  | { readonly _tag: "Wait"; readonly why: string }

/** The ZIP whose coverage decides a planned draft's shipping; undefined when it is not Economy (or has no usable ZIP). */
export const economyZipOfDraft = (draft: CreateDraftInput): string | undefined =>
  draft.shipping_method === ECONOMY ? zip5Of(draft.address.zip_code) : undefined

/**
 * What to do with a planned draft given the coverage of its ZIP and the store's policy. Planning
 * has already held Economy orders the service would refuse (economyDestinationProblem). When the
 * coverage could not be asked, policy `standard` drafts Economy anyway: the service itself moves it
 * to Standard if the ZIP is uncovered (and says so in its answer, which the story records), so an
 * unreachable coverage check never stalls those orders; policy `hold` waits for an answer.
 */
export const decideEconomyShipping = (
  draft: CreateDraftInput,
  coverage: ZipCoverage | undefined,
  policy: EconomyUncoveredPolicy,
  nowMs: number
): EconomyDecision => {
  const zip = economyZipOfDraft(draft)
  if (zip === undefined) return { _tag: "AsPlanned" }
  if (coverage === undefined || coverage._tag === "Unchecked") {
    const why = `the Economy coverage of ZIP ${zip} could not be checked${coverage === undefined ? "" : ` (${coverage.error})`}`
    return policy === "hold"
      ? { _tag: "Wait", why }
      : {
        _tag: "AsPlanned",
        note: `${why}: sent as Economy; the POD service moves it to Standard itself if its carrier does not serve the ZIP`
      }
  }
  if (coverage._tag === "Covered") return { _tag: "AsPlanned" }
  if (policy === "standard") {
    return {
      _tag: "AsStandard",
      draft: { ...draft, shipping_method: STANDARD },
      reason: `sent as Standard instead of Economy: the Economy carrier does not deliver to ZIP ${zip} (${coverage.reason}), ` +
        `so it ships, and is charged, as Standard (the store's shipping.economyUncovered is "standard")`,
      data: { from: ECONOMY, to: STANDARD, reason: coverage.reason, zip, coverageVersion: coverage.version }
    }
  }
  const recheckAt = new Date(nowMs + ECONOMY_RECHECK_MS)
  return {
    _tag: "Hold",
    recheckAt,
    details: {
      zip,
      coverageVersion: coverage.version,
      recheckAt: recheckAt.toISOString(),
      message: `Economy shipping is not available to ZIP ${zip}: the POD service's Economy carrier does not deliver there ` +
        `(${coverage.reason}), so the service would ship it as Standard at the Standard price. It is held because the store's ` +
        `shipping.economyUncovered is "hold". To send it as Standard, change the order's shipping in the store or set ` +
        `economyUncovered: standard; otherwise cancel it. Its coverage is checked again every 24 hours`
    }
  }
}

/**
 * Whether an order held for an uncovered ZIP stays held when the match stage looks at it again:
 * `undefined` to release it (its shipping or ZIP changed, the policy is now `standard`, or its
 * coverage is due a new check), else when to look again. Reads the details `decideEconomyShipping`
 * recorded; details of another shape release the order.
 */
export const economyHoldStands = (
  details: unknown,
  planned: CreateDraftInput,
  policy: EconomyUncoveredPolicy,
  nowMs: number
): { readonly lookAgainAt: Date } | { readonly release: string } => {
  const held = details as Partial<EconomyHoldDetails> | null
  const recheckAt = typeof held?.recheckAt === "string" ? Date.parse(held.recheckAt) : Number.NaN
  const zip = economyZipOfDraft(planned)
  if (zip === undefined || zip !== held?.zip) return { release: "released: the order no longer ships Economy to the ZIP it was held for" }
  if (policy === "standard") {
    return { release: `released: the store's shipping.economyUncovered is now "standard", so it is sent as Standard` }
  }
  if (Number.isNaN(recheckAt) || nowMs >= recheckAt) return { release: `released to check the Economy coverage of ZIP ${zip} again` }
  return { lookAgainAt: new Date(Math.min(recheckAt, nowMs + ECONOMY_HOLD_LOOK_MS)) }
}

/**
 * How often a held Economy order is planned again (no call: planning is pure), so a policy change
 * after a restart or an edit of the order in the store takes effect within a minute.
 */
export const ECONOMY_HOLD_LOOK_MS = 60_000

const METHOD_NAMES: Readonly<Record<string, string>> = {
  METHOD_STANDARD: "Standard",
  METHOD_ECONOMY: "Economy",
  METHOD_GROUND: "Ground",
  METHOD_FAST_SHIP: "Fast Ship",
  METHOD_STAMP: "Stamp"
}
const methodName = (
  method: string | undefined
) => (method === undefined || method === "" ? "another method" : METHOD_NAMES[method] ?? method)

/**
 * The `shipping_substitution` a new draft came back with, for its story: the service changed the
 * shipping podsync asked for (e.g. coverage changed since it was checked, or the parcel is too heavy
 * for Economy). Undefined when there is none.
 */
export const substitutionNote = (
  substitution: { readonly from?: string | undefined; readonly to?: string | undefined; readonly reason?: string | undefined } | undefined
): string | undefined =>
  substitution === undefined || (!substitution.from && !substitution.to)
    ? undefined
    : `the POD service changed its shipping from ${methodName(substitution.from)} to ${methodName(substitution.to)}` +
      `${substitution.reason ? ` (${substitution.reason})` : ""}, and charges it as ${methodName(substitution.to)}`

/**
 * How a new draft's move to drafted tells its shipping: what podsync decided (sent as Standard) and
 * what the service changed itself (`shipping_substitution` in its answer), as the event's reason and data.
 */
export const draftedShipping = (
  decision: EconomyDecision,
  substitution: { readonly from?: string | undefined; readonly to?: string | undefined; readonly reason?: string | undefined } | undefined
): { readonly reason: string; readonly substitution?: Readonly<Record<string, string>> } => {
  const byService = substitutionNote(substitution)
  const reason = [
    decision._tag === "AsStandard" ? `draft created ${decision.reason}` : "draft created",
    decision._tag === "AsPlanned" ? decision.note : undefined,
    byService
  ].filter((part) => part !== undefined).join("; ")
  if (decision._tag === "AsStandard") return { reason, substitution: decision.data }
  if (byService === undefined || substitution === undefined) return { reason }
  return {
    reason,
    substitution: { from: substitution.from ?? "", to: substitution.to ?? "", reason: substitution.reason ?? "", by: "pod" }
  }
}
