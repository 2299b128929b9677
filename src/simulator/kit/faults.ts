import { sleep } from "./http.js"
import type { Random } from "./random.js"

/**
 * The fault-rule model the marketplace simulators share (`POST /__sim/faults`): a rule names a kind,
 * an operation (or "*"), a probability and an optional count; it fires at most once per request per
 * kind and is dropped once its count is used up. Each simulator names its kinds and operations and
 * may add fields; what a fired fault does to the answer is the simulator's business.
 */

export interface FaultRule<K extends string> {
  readonly operation: string
  readonly kind: K
  readonly probability: number
  /** How many more times the rule may fire; Infinity when not limited. */
  remaining: number
  readonly latencyMs: readonly [number, number]
  readonly status: number
}

export interface FaultRuleSyntax<K extends string> {
  readonly kinds: ReadonlyArray<K>
  /** Reads the body's `kind`; by default it must be one of `kinds` exactly. */
  readonly readKind?: (raw: unknown) => K | undefined
  /** The message for a kind that is not one; by default it lists `kinds`. */
  readonly kindError?: string
  /** The operations a rule may name ("*" is always allowed); any string when absent. */
  readonly operations?: ReadonlyArray<string>
  readonly operationError: string
  /** The `status` of an `error5xx` rule that names none. */
  readonly defaultStatus: number
}

/**
 * A simulator's `parseFaultRule`: validates an admin request body against `syntax` and returns the
 * rule or a message saying what is wrong. `extra` reads the simulator's own fields (none by default),
 * checked after the shared ones.
 */
export const faultRuleParser = <K extends string, X extends object = Record<never, never>>(
  syntax: FaultRuleSyntax<K>,
  extra: (b: Record<string, unknown>) => X | string = () => ({}) as X
) =>
(body: unknown): (FaultRule<K> & X) | string => {
  if (typeof body !== "object" || body === null) return "body must be a JSON object"
  const b = body as Record<string, unknown>
  const kind = (syntax.readKind ?? ((raw) => syntax.kinds.find((k) => k === raw)))(b.kind)
  if (kind === undefined) return syntax.kindError ?? `kind must be one of ${syntax.kinds.join(", ")}`
  const operation = b.operation ?? "*"
  if (typeof operation !== "string" || (operation !== "*" && syntax.operations !== undefined && !syntax.operations.includes(operation))) {
    return syntax.operationError
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
  const status = b.status ?? syntax.defaultStatus
  if (typeof status !== "number" || status < 500 || status > 599) return "status must be a 5xx code"
  const more = extra(b)
  if (typeof more === "string") return more
  return {
    operation,
    kind,
    probability,
    remaining: count === null ? Infinity : count,
    latencyMs: [pair[0] as number, pair[1] as number],
    status,
    ...more
  }
}

/** The rules of one simulator, drawn against each request. */
export class FaultRules<R extends FaultRule<string>> {
  private rules: Array<R> = []

  constructor(private readonly random: Random) {}

  add(rule: R): void {
    this.rules.push(rule)
  }
  clear(): void {
    this.rules = []
  }
  list(): ReadonlyArray<R> {
    return this.rules
  }

  /**
   * The faults that fire for a request on `operation` (or touching any of several, as a GraphQL
   * request's root fields do): at most one of each kind; each firing uses up one of its rule's count.
   */
  draw(operation: string | ReadonlyArray<string>): Array<R> {
    const names: ReadonlyArray<string> = typeof operation === "string" ? [operation] : operation
    const fired: Array<R> = []
    for (const rule of this.rules) {
      if (rule.remaining <= 0) continue
      if (rule.operation !== "*" && !names.includes(rule.operation)) continue
      if (fired.some((f) => f.kind === rule.kind)) continue
      if (this.random() >= rule.probability) continue
      rule.remaining -= 1
      fired.push(rule)
    }
    this.rules = this.rules.filter((r) => r.remaining > 0)
    return fired
  }

  latencyOf(rule: R): number {
    const [min, max] = rule.latencyMs
    return min + Math.floor(this.random() * (max - min + 1))
  }

  /** Draws for one request, counts each fired kind with `count`, and wraps the result for the server. */
  fire(operation: string | ReadonlyArray<string>, count: (kind: R["kind"]) => void): Fired<R> {
    const fired = this.draw(operation)
    for (const f of fired) count(f.kind)
    return new Fired(fired, this)
  }
}

/** The faults fired for one request. */
export class Fired<R extends FaultRule<string>> {
  constructor(readonly rules: ReadonlyArray<R>, private readonly faults: FaultRules<R>) {}

  has(kind: R["kind"]): R | undefined {
    return this.rules.find((f) => f.kind === kind)
  }

  /** Waits out a fired `latency` rule (a no-op otherwise). */
  async delay(): Promise<void> {
    const latency = this.rules.find((f) => f.kind === "latency")
    if (latency) await sleep(this.faults.latencyOf(latency))
  }
}
