/**
 * Fault rules set through `POST /__sim/faults`, matched against the operation a request is for
 * (`getShopReceipts`, `getShopReceipt`, `createReceiptShipment`, `updateShopReceipt`, `oauthToken`, or
 * "*"). `error5xx` answers before acting; `commitThenDrop` acts, then drops the connection; `reset`
 * drops it before acting; `latency` delays; `429` answers as the quota would, without counting.
 */

export type FaultKind = "error5xx" | "reset" | "commitThenDrop" | "latency" | "429"

export const operations = ["getShopReceipts", "getShopReceipt", "createReceiptShipment", "updateShopReceipt", "oauthToken"] as const
export type Operation = (typeof operations)[number]

export interface FaultRule {
  readonly operation: string
  readonly kind: FaultKind
  readonly probability: number
  remaining: number
  readonly latencyMs: readonly [number, number]
  readonly status: number
}

const kinds: ReadonlyArray<FaultKind> = ["error5xx", "reset", "commitThenDrop", "latency", "429"]

export const parseFaultRule = (body: unknown): FaultRule | string => {
  if (typeof body !== "object" || body === null) return "body must be a JSON object"
  const b = body as Record<string, unknown>
  const kind = b.kind
  if (typeof kind !== "string" || !kinds.includes(kind as FaultKind)) return `kind must be one of ${kinds.join(", ")}`
  const operation = b.operation ?? "*"
  if (typeof operation !== "string" || (operation !== "*" && !(operations as ReadonlyArray<string>).includes(operation))) {
    return `operation must be one of ${operations.join(", ")} or "*"`
  }
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
  return {
    operation, kind: kind as FaultKind, probability,
    remaining: count === null ? Infinity : count,
    latencyMs: [pair[0] as number, pair[1] as number],
    status
  }
}

export class Faults {
  private rules: FaultRule[] = []

  constructor(private readonly random: () => number) {}

  add(rule: FaultRule): void { this.rules.push(rule) }
  clear(): void { this.rules = [] }
  list(): ReadonlyArray<FaultRule> { return this.rules }

  /** The faults that fire for one request (at most one of each kind); each firing uses up its rule's count. */
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
