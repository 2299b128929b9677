import { FaultRules, faultRuleParser, type FaultRule as KitFaultRule } from "../kit/faults.js"

/**
 * Fault rules (`POST /__sim/faults`) matched against a request's operation name (`orders.list`,
 * `orders.update`, `trackings.create`, … or "*"), and the host's rate limiter. WooCommerce core has no
 * REST rate limit; the 429 and 503 answers a real client meets come from the host or a WAF in front of
 * WordPress, so they carry an HTML body (not WooCommerce's JSON error) and a `Retry-After` header.
 */

export type FaultKind = "error5xx" | "reset" | "commitThenDrop" | "latency" | "429"

/** `status` is the 5xx of `error5xx` (default 500); `retryAfterSeconds` goes with a 429 or 503 (null sends none). */
export type FaultRule = KitFaultRule<FaultKind> & { readonly retryAfterSeconds: number | null }

/** Validates an admin request body; returns the rule or a message saying what is wrong. */
export const parseFaultRule: (body: unknown) => FaultRule | string = faultRuleParser(
  {
    kinds: ["error5xx", "reset", "commitThenDrop", "latency", "429"],
    operationError: 'operation must be an operation name (e.g. "orders.update") or "*"',
    defaultStatus: 500
  },
  (b) => {
    const retryAfter = b.retryAfterSeconds ?? null
    if (
      retryAfter !== null && (typeof retryAfter !== "number" || retryAfter < 0)
    ) return "retryAfterSeconds must be a non-negative number"
    return { retryAfterSeconds: retryAfter }
  }
)

export class Faults extends FaultRules<FaultRule> {}

export interface HostLimit {
  readonly requests: number
  readonly windowSeconds: number
  readonly retryAfterSeconds: number
}

/** A sliding-window limiter in front of the whole site, on the simulator's clock. */
export class HostLimiter {
  private arrivals: number[] = []
  limit: HostLimit | null

  constructor(private readonly initial: HostLimit | null) {
    this.limit = initial
  }

  reset(): void {
    this.arrivals = []
    this.limit = this.initial
  }

  /** Null when the request may pass (and is counted), else the Retry-After seconds to answer with. */
  admit(now: number): number | null {
    if (this.limit === null) return null
    const from = now - this.limit.windowSeconds * 1000
    this.arrivals = this.arrivals.filter((t) => t > from)
    if (this.arrivals.length >= this.limit.requests) return this.limit.retryAfterSeconds
    this.arrivals.push(now)
    return null
  }
}

export const parseHostLimit = (body: unknown): HostLimit | null | string => {
  if (body === null) return null
  if (typeof body !== "object") return "body must be a JSON object or null"
  const b = body as Record<string, unknown>
  if (b.requests === null) return null
  const requests = b.requests
  const windowSeconds = b.windowSeconds ?? 1
  const retryAfterSeconds = b.retryAfterSeconds ?? 1
  if (typeof requests !== "number" || requests < 1) return "requests must be a positive number (or null to lift the limit)"
  if (typeof windowSeconds !== "number" || windowSeconds <= 0) return "windowSeconds must be positive"
  if (typeof retryAfterSeconds !== "number" || retryAfterSeconds < 0) return "retryAfterSeconds must be non-negative"
  return { requests, windowSeconds, retryAfterSeconds }
}
