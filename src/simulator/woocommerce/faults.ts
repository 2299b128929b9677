/**
 * Fault rules (`POST /__sim/faults`) matched against a request's operation name (`orders.list`,
 * `orders.update`, `trackings.create`, … or "*"), and the host's rate limiter. WooCommerce core has no
 * REST rate limit; the 429 and 503 answers a real client meets come from the host or a WAF in front of
 * WordPress, so they carry an HTML body (not WooCommerce's JSON error) and a `Retry-After` header.
 */

export type FaultKind = "error5xx" | "reset" | "commitThenDrop" | "latency" | "429"

export interface FaultRule {
  readonly operation: string
  readonly kind: FaultKind
  readonly probability: number
  /** How many more times the rule may fire; Infinity when not limited. */
  remaining: number
  readonly latencyMs: readonly [number, number]
  /** 5xx status for `error5xx` (default 500). */
  readonly status: number
  /** `Retry-After` seconds sent with a 429 or 503; null sends none. */
  readonly retryAfterSeconds: number | null
}

const kinds: ReadonlyArray<FaultKind> = ["error5xx", "reset", "commitThenDrop", "latency", "429"]

/** Validates an admin request body; returns the rule or a message saying what is wrong. */
export const parseFaultRule = (body: unknown): FaultRule | string => {
  if (typeof body !== "object" || body === null) return "body must be a JSON object"
  const b = body as Record<string, unknown>
  const kind = b.kind
  if (typeof kind !== "string" || !kinds.includes(kind as FaultKind)) return `kind must be one of ${kinds.join(", ")}`
  const operation = b.operation ?? "*"
  if (typeof operation !== "string") return 'operation must be an operation name (e.g. "orders.update") or "*"'
  const probability = b.probability ?? 1
  if (typeof probability !== "number" || probability < 0 || probability > 1) return "probability must be between 0 and 1"
  const count = b.count ?? null
  if (count !== null && (typeof count !== "number" || count < 1)) return "count must be a positive number"
  const latency = b.latencyMs ?? [200, 200]
  const pair = typeof latency === "number" ? [latency, latency] : latency
  if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((n) => typeof n === "number" && n >= 0)) {
    return "latencyMs must be [min, max] in milliseconds"
  }
  const status = b.status ?? 500
  if (typeof status !== "number" || status < 500 || status > 599) return "status must be a 5xx code"
  const retryAfter = b.retryAfterSeconds ?? null
  if (retryAfter !== null && (typeof retryAfter !== "number" || retryAfter < 0)) return "retryAfterSeconds must be a non-negative number"
  return {
    operation,
    kind: kind as FaultKind,
    probability,
    remaining: count === null ? Infinity : count,
    latencyMs: [pair[0] as number, pair[1] as number],
    status,
    retryAfterSeconds: retryAfter
  }
}

export class Faults {
  private rules: FaultRule[] = []

  constructor(private readonly random: () => number) {}

  add(rule: FaultRule): void { this.rules.push(rule) }
  clear(): void { this.rules = [] }
  list(): ReadonlyArray<FaultRule> { return this.rules }

  /** The faults that fire for `operation` (at most one of each kind); each firing uses up one of its rule's count. */
  draw(operation: string): FaultRule[] {
    const fired: FaultRule[] = []
    for (const rule of this.rules) {
      if (rule.remaining <= 0) continue
      if (rule.operation !== "*" && rule.operation !== operation) continue
      if (fired.some((f) => f.kind === rule.kind)) continue
      if (this.random() >= rule.probability) continue
      rule.remaining -= 1
      fired.push(rule)
    }
    this.rules = this.rules.filter((r) => r.remaining > 0)
    return fired
  }

  latencyOf(rule: FaultRule): number {
    const [min, max] = rule.latencyMs
    return min + Math.floor(this.random() * (max - min + 1))
  }
}

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
