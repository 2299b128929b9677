/**
 * Fault rules set through `POST /__sim/faults`, matched against the contract
 * operation a request is for (`listOrders`, `getOrder`, `listFulfillments`,
 * `createFulfillment`, or `*`).
 *
 * - `error5xx`: answered with a 5xx before anything is done;
 * - `reset`: the connection is dropped before anything is done;
 * - `commitThenDrop`: the request is carried out, then the connection is dropped unanswered;
 * - `latency`: the work takes `latencyMs` (a POST holds its Idempotency-Key meanwhile);
 * - `rateLimit` (or `429`): answered 429 with `Retry-After: retryAfterSeconds`, nothing done.
 */
import type { Random } from "./fixtures.js"

export type FaultKind = "error5xx" | "reset" | "commitThenDrop" | "latency" | "rateLimit"

export interface FaultRule {
  readonly operation: string
  readonly kind: FaultKind
  readonly probability: number
  /** How many more times the rule may fire; Infinity when not limited. */
  remaining: number
  readonly latencyMs: readonly [number, number]
  readonly status: number
  readonly retryAfterSeconds: number
}

const kinds: ReadonlyArray<FaultKind> = ["error5xx", "reset", "commitThenDrop", "latency", "rateLimit"]
const operations = ["*", "listOrders", "getOrder", "listFulfillments", "createFulfillment"]

/** Validates an admin request body; returns the rule or a message saying what is wrong. */
export const parseFaultRule = (body: unknown): FaultRule | string => {
  if (typeof body !== "object" || body === null) return "body must be a JSON object"
  const b = body as Record<string, unknown>
  // "429" is accepted as another name for rateLimit.
  const kind = b.kind === "429" || b.kind === 429 ? "rateLimit" : kinds.find((k) => k === b.kind)
  if (kind === undefined) return `kind must be one of ${kinds.join(", ")} (or 429)`
  const operation = b.operation ?? "*"
  if (typeof operation !== "string" || !operations.includes(operation)) return `operation must be one of ${operations.join(", ")}`
  const probability = b.probability ?? 1
  if (typeof probability !== "number" || probability < 0 || probability > 1) return "probability must be between 0 and 1"
  const count = b.count ?? null
  if (count !== null && (typeof count !== "number" || count < 1)) return "count must be a positive number"
  const latency = b.latencyMs ?? [200, 200]
  const pair = typeof latency === "number" ? [latency, latency] : latency
  if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((n) => typeof n === "number" && n >= 0)) {
    return "latencyMs must be [min, max] in milliseconds"
  }
  const status = b.status ?? 503
  if (typeof status !== "number" || status < 500 || status > 599) return "status must be a 5xx code"
  const retryAfterSeconds = b.retryAfterSeconds ?? 1
  if (typeof retryAfterSeconds !== "number" || retryAfterSeconds < 0) return "retryAfterSeconds must be a non-negative number"
  return {
    operation, kind, probability,
    remaining: count === null ? Infinity : count,
    latencyMs: [pair[0] as number, pair[1] as number],
    status, retryAfterSeconds
  }
}

export class Faults {
  private rules: Array<FaultRule> = []

  constructor(private readonly random: Random) {}

  add(rule: FaultRule): void { this.rules.push(rule) }
  clear(): void { this.rules = [] }
  list(): ReadonlyArray<FaultRule> { return this.rules }

  /** The faults that fire for a request (at most one of each kind); each firing uses up one of its rule's count. */
  draw(operation: string): Array<FaultRule> {
    const fired: Array<FaultRule> = []
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
