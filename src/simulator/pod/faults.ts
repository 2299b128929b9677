// Fault injection per route: latency, 5xx, resets before processing,
// commit-then-drop, 429 storms, malformed bodies, unknown enum values and
// envelope-level errors. Faults fire in the order they were added.
import { ENUM_PREFIXES } from "./enums.js"
import type { FieldIssue, Json } from "./wire.js"
import { isRecord } from "./wire.js"

export const FAULT_KINDS = [
  "latency",
  "error5xx",
  "reset",
  "commitThenDrop",
  "rateLimit429",
  "malformed",
  "unknownEnum",
  "envelopeError",
  // Not a request's fault: an order shipped with generated tracking goes in `packages` boxes (default 2),
  // the first at once and each other one at a later tick or ship-all, each with its tracking webhook.
  "splitPackages"
] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export interface Fault {
  readonly id: string
  readonly route: string | null
  readonly kind: FaultKind
  readonly probability: number
  remaining: number | null
  readonly latencyMs: readonly [number, number]
  readonly status: number
  readonly retryAfterSeconds: number
  /** `splitPackages`: how many boxes. */
  readonly packages: number
  fired: number
}

/** What happens before the handler runs. */
export type PreFault =
  | { readonly kind: "reset" }
  | { readonly kind: "error5xx"; readonly status: number }
  | { readonly kind: "rateLimit429"; readonly retryAfterSeconds: number }
  | { readonly kind: "envelopeError" }

/** What happens to the handler's answer. */
export type PostFault = "commitThenDrop" | "malformed" | "unknownEnum"

export interface FaultPlan {
  readonly delayMs: number
  readonly pre: PreFault | null
  readonly post: ReadonlyArray<PostFault>
}

export class FaultBoard {
  private faults: Array<Fault> = []
  private nextId = 1

  constructor(private readonly random: () => number = Math.random) {}

  /** Parses an admin request body into a fault; returns issues when it is not one. */
  add(body: unknown, knownRoutes: ReadonlyArray<string>): { readonly id: string } | { readonly issues: ReadonlyArray<FieldIssue> } {
    const issues: Array<FieldIssue> = []
    if (!isRecord(body)) return { issues: [{ field: "body", issue: "must be an object" }] }
    const kind = body["kind"]
    if (typeof kind !== "string" || !(FAULT_KINDS as ReadonlyArray<string>).includes(kind)) {
      issues.push({ field: "kind", issue: `must be one of ${FAULT_KINDS.join(", ")}` })
    }
    const route = body["route"]
    if (route !== undefined && (typeof route !== "string" || !knownRoutes.includes(route))) {
      issues.push({ field: "route", issue: `unknown route; known: ${knownRoutes.join(" | ")}` })
    }
    const probability = body["probability"] ?? 1
    if (typeof probability !== "number" || probability < 0 || probability > 1) {
      issues.push({ field: "probability", issue: "must be in 0..1" })
    }
    const count = body["count"]
    if (count !== undefined && (typeof count !== "number" || !Number.isInteger(count) || count < 1)) {
      issues.push({ field: "count", issue: "must be a positive integer" })
    }
    const latency = body["latencyMs"] ?? [50, 150]
    const validLatency = Array.isArray(latency) && latency.length === 2 && latency.every((n) => typeof n === "number" && n >= 0) &&
      latency[0] <= latency[1]
    if (!validLatency) issues.push({ field: "latencyMs", issue: "must be [min, max] milliseconds" })
    const status = body["status"] ?? 500
    if (typeof status !== "number" || !Number.isInteger(status) || status < 100 || status > 599) {
      issues.push({ field: "status", issue: "must be an HTTP status" })
    }
    const retryAfter = body["retryAfterSeconds"] ?? 1
    if (typeof retryAfter !== "number" || retryAfter < 0) issues.push({ field: "retryAfterSeconds", issue: "must be a number of seconds" })
    const packages = body["packages"] ?? 2
    if (typeof packages !== "number" || !Number.isInteger(packages) || packages < 2 || packages > 20) {
      issues.push({ field: "packages", issue: "must be a whole number from 2 to 20" })
    }
    if (issues.length > 0) return { issues }
    const id = `fault-${this.nextId++}`
    this.faults.push({
      id,
      route: typeof route === "string" ? route : null,
      kind: kind as FaultKind,
      probability: probability as number,
      remaining: typeof count === "number" ? count : null,
      latencyMs: [(latency as Array<number>)[0] as number, (latency as Array<number>)[1] as number],
      status: status as number,
      retryAfterSeconds: retryAfter as number,
      packages: packages as number,
      fired: 0
    })
    return { id }
  }

  clear(): void {
    this.faults = []
  }

  list(): ReadonlyArray<Fault> {
    return this.faults
  }

  /** How many boxes the next order shipped with generated tracking goes in: a `splitPackages` fault's, else 1. */
  packagesFor(): number {
    for (const fault of this.faults) {
      if (fault.kind !== "splitPackages" || (fault.remaining !== null && fault.remaining <= 0)) continue
      if (fault.probability < 1 && this.random() >= fault.probability) continue
      if (fault.remaining !== null) fault.remaining -= 1
      fault.fired += 1
      return fault.packages
    }
    return 1
  }

  /** Decides which faults fire for one request on `route`. */
  plan(route: string): FaultPlan {
    let delayMs = 0
    let pre: PreFault | null = null
    const post: Array<PostFault> = []
    for (const fault of this.faults) {
      if (fault.kind === "splitPackages") continue
      if (fault.route !== null && fault.route !== route) continue
      if (fault.remaining !== null && fault.remaining <= 0) continue
      const isPre = fault.kind === "reset" || fault.kind === "error5xx" || fault.kind === "rateLimit429" || fault.kind === "envelopeError"
      if (isPre && pre !== null) continue
      if (fault.probability < 1 && this.random() >= fault.probability) continue
      if (fault.remaining !== null) fault.remaining -= 1
      fault.fired += 1
      switch (fault.kind) {
        case "latency":
          delayMs += fault.latencyMs[0] + Math.floor(this.random() * (fault.latencyMs[1] - fault.latencyMs[0] + 1))
          break
        case "reset":
          pre = { kind: "reset" }
          break
        case "error5xx":
          pre = { kind: "error5xx", status: fault.status }
          break
        case "rateLimit429":
          pre = { kind: "rateLimit429", retryAfterSeconds: fault.retryAfterSeconds }
          break
        case "envelopeError":
          pre = { kind: "envelopeError" }
          break
        default:
          post.push(fault.kind)
      }
    }
    return { delayMs, pre, post }
  }
}

const UNKNOWN_SUFFIX = "SIM_FUTURE_VALUE"

const unknownEnumValue = (text: string): string | undefined => {
  if (!/^[A-Z][A-Z0-9_-]+$/.test(text)) return undefined
  const prefix = ENUM_PREFIXES.find((p) => text.startsWith(p) && text.length > p.length)
  return prefix === undefined ? undefined : `${prefix}${UNKNOWN_SUFFIX}`
}

/** Fields that hold an enum, for records whose enums travel as numbers. */
const ENUM_FIELDS = new Set([
  "status",
  "order_status",
  "payment_status",
  "created_method",
  "order_platform",
  "stock_label",
  "tracking_type",
  "topic",
  "version"
])
/** A number no published enumeration uses yet. */
const UNKNOWN_NUMBER = 99

/** Replaces every enum value in a response with one of the same enumeration that no client knows (a name, or a number where it came as one). */
export const withUnknownEnums = (value: Json, key = ""): Json => {
  if (typeof value === "string") return unknownEnumValue(value) ?? value
  if (typeof value === "number") return ENUM_FIELDS.has(key) ? UNKNOWN_NUMBER : value
  if (Array.isArray(value)) return value.map((item: Json) => withUnknownEnums(item, key))
  if (value !== null && typeof value === "object") {
    const out: Record<string, Json | undefined> = {}
    for (const [field, inner] of Object.entries(value as Record<string, Json | undefined>)) {
      out[field] = inner === undefined ? undefined : withUnknownEnums(inner, field)
    }
    return out
  }
  return value
}

/** A body that cannot be parsed as JSON: the answer cut off halfway. */
export const malformedText = (json: string): string => {
  const cut = json.slice(0, Math.max(1, Math.floor(json.length / 2)))
  return cut.endsWith("}") ? `${cut.slice(0, -1)},"` : cut
}
