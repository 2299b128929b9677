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
import { FaultRules, faultRuleParser, type FaultRule as KitFaultRule } from "../kit/faults.js"

export type FaultKind = "error5xx" | "reset" | "commitThenDrop" | "latency" | "rateLimit"

export type FaultRule = KitFaultRule<FaultKind> & { readonly retryAfterSeconds: number }

const kinds: ReadonlyArray<FaultKind> = ["error5xx", "reset", "commitThenDrop", "latency", "rateLimit"]
const operations = ["*", "listOrders", "getOrder", "listFulfillments", "createFulfillment"]

/** Validates an admin request body; returns the rule or a message saying what is wrong. */
export const parseFaultRule: (body: unknown) => FaultRule | string = faultRuleParser(
  {
    kinds,
    // "429" is accepted as another name for rateLimit.
    readKind: (raw) => (raw === "429" || raw === 429 ? "rateLimit" : kinds.find((k) => k === raw)),
    kindError: `kind must be one of ${kinds.join(", ")} (or 429)`,
    operations,
    operationError: `operation must be one of ${operations.join(", ")}`,
    defaultStatus: 503
  },
  (b) => {
    const retryAfterSeconds = b.retryAfterSeconds ?? 1
    if (typeof retryAfterSeconds !== "number" || retryAfterSeconds < 0) return "retryAfterSeconds must be a non-negative number"
    return { retryAfterSeconds }
  }
)

export class Faults extends FaultRules<FaultRule> {}
