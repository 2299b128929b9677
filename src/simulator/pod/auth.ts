// v3 header credentials. The service's published texts name two header pairs:
// X-Gearment-Client-Key/-Secret (the overview, the migration guide's curl, the
// shipping-coverage group) and X-API-Key/-Secret (the catalog, order and webhook
// groups). Which one the live service accepts is not settled, so the simulator
// accepts both by default; a start option or `POST /__sim/auth-headers` narrows it
// to one pair, so a client's fallback from one pair to the other can be tested.
import type { IncomingHttpHeaders } from "node:http"
import type { Route } from "./routes.js"
import type { Json, SimResponse } from "./wire.js"
import { errorBody, isRecord } from "./wire.js"

export interface HeaderPair {
  readonly key: string
  readonly secret: string
}

export const GEARMENT_HEADERS: HeaderPair = { key: "X-Gearment-Client-Key", secret: "X-Gearment-Client-Secret" }
export const X_API_HEADERS: HeaderPair = { key: "X-API-Key", secret: "X-API-Secret" }
export const PUBLISHED_HEADER_PAIRS: ReadonlyArray<HeaderPair> = [GEARMENT_HEADERS, X_API_HEADERS]

/** Named sets for `podsync simulate --pod-auth-headers` and the admin switch. */
export const HEADER_PAIR_SETS: Readonly<Record<"both" | "gearment" | "x-api", ReadonlyArray<HeaderPair>>> = {
  both: PUBLISHED_HEADER_PAIRS,
  gearment: [GEARMENT_HEADERS],
  "x-api": [X_API_HEADERS]
}

/** The header pairs accepted now; changed by the admin switch, restored by `/__sim/reset`. */
export class AcceptedHeaders {
  private current: ReadonlyArray<HeaderPair>
  constructor(private readonly initial: ReadonlyArray<HeaderPair>) {
    this.current = initial
  }
  get pairs(): ReadonlyArray<HeaderPair> {
    return this.current
  }
  set(pairs: ReadonlyArray<HeaderPair>): void {
    this.current = pairs
  }
  reset(): void {
    this.current = this.initial
  }
}

const unauthorized = (message: string): SimResponse => errorBody(401, "UNAUTHENTICATED", message)

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()]
  return typeof value === "string" && value !== "" ? value : undefined
}

/**
 * Who is calling by the v3 headers: the first accepted pair the request carries
 * in full decides. A pair the simulator does not accept counts as absent, as an
 * unknown header would at the real service.
 */
export const authenticateV3 = (
  headers: IncomingHttpHeaders,
  accepted: ReadonlyArray<HeaderPair>,
  credentials: { readonly clientKey: string; readonly clientSecret: string }
): { readonly key: string } | SimResponse => {
  for (const pair of accepted) {
    const key = header(headers, pair.key)
    const secret = header(headers, pair.secret)
    if (key === undefined || secret === undefined) continue
    return key === credentials.clientKey && secret === credentials.clientSecret ? { key } : unauthorized("invalid client key or secret")
  }
  return unauthorized(`missing credentials: send ${accepted.map((p) => `${p.key} and ${p.secret}`).join(", or ")}`)
}

const readPairs = (body: unknown): ReadonlyArray<HeaderPair> | string => {
  if (!isRecord(body)) return "body must be an object"
  const accept = body["accept"]
  if (typeof accept === "string") {
    return accept in HEADER_PAIR_SETS
      ? HEADER_PAIR_SETS[accept as keyof typeof HEADER_PAIR_SETS]
      : `accept must be one of ${Object.keys(HEADER_PAIR_SETS).join(", ")}, or a list of { key, secret }`
  }
  if (!Array.isArray(accept) || accept.length === 0) return "accept must be both, gearment, x-api, or a non-empty list of { key, secret }"
  const pairs: Array<HeaderPair> = []
  for (const item of accept as ReadonlyArray<unknown>) {
    if (
      !isRecord(item) || typeof item["key"] !== "string" || typeof item["secret"] !== "string" || item["key"] === "" ||
      item["secret"] === ""
    ) {
      return "each pair needs non-empty key and secret header names"
    }
    pairs.push({ key: item["key"], secret: item["secret"] })
  }
  return pairs
}

const view = (pairs: ReadonlyArray<HeaderPair>): Json => ({ accept: pairs.map((p) => ({ key: p.key, secret: p.secret })) })

/** `GET /__sim/auth-headers`, `POST /__sim/auth-headers { accept: "both" | "gearment" | "x-api" | [{ key, secret }] }`. */
export const authHeaderRoutes = (accepted: AcceptedHeaders): ReadonlyArray<Route> => [
  { method: "GET", pattern: "/__sim/auth-headers", auth: "admin", handle: () => ({ status: 200, body: view(accepted.pairs) }) },
  {
    method: "POST",
    pattern: "/__sim/auth-headers",
    auth: "admin",
    handle: (context) => {
      const pairs = readPairs(context.body)
      if (typeof pairs === "string") return { status: 400, body: { error: pairs } }
      accepted.set(pairs)
      return { status: 200, body: view(pairs) }
    }
  }
]
